// Package coredeploy holds the mcl module "deploy": files of the deployed
// code. Paths are absolute within the deploy: "/files/a" names the file
// files/a of the module the call is in (readfile, abspath) or of the
// top-level program (readfileabs).
package coredeploy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func arg(a []values.Value) (string, error) {
	p := string(a[0].(values.Str))
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("deploy path %q must be absolute (start with /)", p)
	}
	if strings.Contains(p, "..") {
		return "", fmt.Errorf("deploy path %q must not contain ..", p)
	}
	return p, nil
}

// rel returns the module directory relative to the deploy root, as "/x".
func rel(env *funcs.Env) string {
	r, err := filepath.Rel(env.DeployRoot, env.ModuleDir)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return ""
	}
	return "/" + filepath.ToSlash(r)
}

func read(path string) (values.Value, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return values.Str(b), nil
}

func init() {
	reg := func(name string, fn func(env *funcs.Env, p string) (values.Value, error), opts ...funcs.Option) {
		f := &funcs.Func{Module: "deploy", Name: name,
			Sigs: funcs.Sigs("func(path str) str"),
			Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
				p, err := arg(c.Args)
				if err != nil {
					return nil, err
				}
				return fn(c.Env, p)
			}}
		for _, o := range opts {
			o(f)
		}
		funcs.RegisterFunc(f)
	}
	reg("abspath", func(env *funcs.Env, p string) (values.Value, error) { return values.Str(rel(env) + p), nil }, funcs.Doc(`The path, within the deploy, of a file of the calling module ("/files/a" in module dir m gives "/m/files/a").`, `deploy.abspath("/files/motd")`))
	reg("readfile", func(env *funcs.Env, p string) (values.Value, error) { return read(filepath.Join(env.ModuleDir, p)) }, funcs.Doc(`The content of a file of the calling module ("/files/a" is files/a beside its main.mcl), read once at compile time.`, `deploy.readfile("/files/motd")`))
	reg("readfileabs", func(env *funcs.Env, p string) (values.Value, error) { return read(filepath.Join(env.DeployRoot, p)) }, funcs.Doc("The content of a file of the top-level program's directory, read once at compile time.", `deploy.readfileabs("/files/motd")`))
	// directory returns the real directory of a deploy directory, for
	// functions reading the local filesystem.
	reg("directory", func(env *funcs.Env, p string) (values.Value, error) {
		d := filepath.Join(env.ModuleDir, p)
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("deploy directory %s does not exist", p)
		}
		if !strings.HasSuffix(d, "/") {
			d += "/"
		}
		return values.Str(d), nil
	}, funcs.Doc("The real directory, ending in /, of a directory of the calling module, for a file resource's source.", `deploy.directory("/files/")`))
	funcs.RegisterFunc(&funcs.Func{Module: "deploy", Name: "file_exists",
		Sigs: funcs.Sigs("func(path str) bool"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			p, err := arg(c.Args)
			if err != nil {
				return nil, err
			}
			_, err = os.Stat(filepath.Join(c.Env.ModuleDir, p))
			return values.Bool(err == nil), nil
		}, Doc: "Whether a file of the calling module exists.", Example: `deploy.file_exists("/files/motd")`})
}
