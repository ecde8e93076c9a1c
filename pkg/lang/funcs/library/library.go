// Package library registers the mcl library modules beyond the core ones
// (pkg/lang/funcs/all imports the core packages): importing it for its
// side effects makes their functions known to the compiler.
package library

import (
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/golang"
)
