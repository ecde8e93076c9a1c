// Package all registers every built-in mcl function module. The compiler
// imports it for its side effects.
package all

import (
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/builtin"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coredatetime"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corefmt"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreiter"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corestrings"
)
