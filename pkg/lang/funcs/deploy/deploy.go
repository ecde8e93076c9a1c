// Package deploy adds to the mcl module "deploy" (the files of the deploy
// are in coredeploy): binary_path, the absolute path of the running
// compiler's executable, symlinks resolved, for programs that copy or run
// it elsewhere.
package deploy

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coredeploy"
)

func init() {
	if _, dup := funcs.Lookup("deploy", "binary_path"); dup {
		return
	}
	funcs.RegisterFunc(&funcs.Func{Module: "deploy", Name: "binary_path", Sigs: funcs.Sigs("func() str"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			p, err := BinaryPath()
			if err != nil {
				return nil, err
			}
			return values.Str(p), nil
		}, Doc: "The absolute path of the running mcl-compile executable, links resolved.", Example: "deploy.binary_path()"})
}

// BinaryPath returns the resolved path of the running executable.
func BinaryPath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}
