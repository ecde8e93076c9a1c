// Package library registers the mcl library modules beyond the core ones
// (pkg/lang/funcs/all imports the core packages): importing it for its
// side effects makes their functions known to the compiler. Packages that
// add functions to a core module (os, sys, datetime, golang/strings)
// import that module's core package first and skip any name it already
// has, so the two never register a function twice.
package library

import (
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/datetime"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/deploy"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/example"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/golang"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/local"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/net"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/os"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/random"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/regexp"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/sys"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/sys/fwupd"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/util"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/value"
)
