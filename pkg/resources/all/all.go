// Package all registers every resource kind of the project with the engine
// (and so their parameter schemas with pkg/graph). Tools import it for its
// side effects.
package all

import (
	_ "github.com/mgmtpipe/mgmt/pkg/resources"          // core kinds: file, exec, noop, test, ...
	_ "github.com/mgmtpipe/mgmt/pkg/resources/pippet"   // pippet: Puppet resources run by Puppet
	_ "github.com/mgmtpipe/mgmt/pkg/resources/system"   // pkg, svc, user, group, hostname, mount
	_ "github.com/mgmtpipe/mgmt/pkg/resources/worldres" // kv, schedule (need the world)
)
