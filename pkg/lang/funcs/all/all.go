// Package all registers every built-in mcl function module. The compiler
// imports it for its side effects.
package all

import (
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/builtin"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreconvert"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coredatetime"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coredeploy"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreencoding"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreexample"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corefmt"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coregolang"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreiter"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corelist"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coremap"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coremath"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corenet"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreos"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corestrings"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coresys"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coretest"
)
