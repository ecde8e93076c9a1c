// Package deploy adds to the mcl module "deploy" (the files of the deploy
// are in coredeploy): binary_path, the absolute path of the running
// compiler's executable, symlinks resolved, for programs that copy or run
// it elsewhere; and bootstrap_packages, the packages a host needs before
// the tools can do their work there.
//
// bootstrap_packages takes a distribution id as os-release(5) spells it
// ("fedora", "ubuntu", "arch", ...) or a family name ($os.family_redhat,
// $os.family_debian, $os.family_archlinux). The tools are static Go
// binaries, so they need no shared library; what a host needs is a
// package manager the pkg kind can drive: apt, which every Debian-family
// host has, or PackageKit elsewhere. So the list is empty for the Debian
// family, ["PackageKit"] for the Red Hat family and ["packagekit"] for
// Arch Linux. An unknown distribution is a catchable error.
package deploy

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreos"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coredeploy"
)

// bootstrapPackages are the packages each family needs (see the package
// documentation).
var bootstrapPackages = map[string][]string{
	coreos.FamilyDebian:    {},
	coreos.FamilyRedHat:    {"PackageKit"},
	coreos.FamilyArchLinux: {"packagekit"},
}

// BootstrapPackages returns the packages a host of the distribution (an
// os-release id or a family name) needs before the tools can work there.
func BootstrapPackages(distro string) ([]string, error) {
	pkgs, ok := bootstrapPackages[coreos.FamilyOfID(distro)]
	if !ok {
		return nil, funcs.Catchablef("bootstrap_packages: unknown distribution %q", distro)
	}
	return pkgs, nil
}

func init() {
	if _, dup := funcs.Lookup("deploy", "bootstrap_packages"); !dup {
		funcs.RegisterFunc(&funcs.Func{Module: "deploy", Name: "bootstrap_packages", Pure: true, Sigs: funcs.Sigs("func(distro str) []str"),
			Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
				pkgs, err := BootstrapPackages(string(c.Args[0].(values.Str)))
				if err != nil {
					return nil, err
				}
				l := values.NewList(types.Str)
				for _, p := range pkgs {
					l.V = append(l.V, values.Str(p))
				}
				return l, nil
			}, Doc: "The packages a host of a distribution (an os-release id such as \"fedora\", or a family name) needs before the tools can work there: a package manager the pkg kind drives (none on the Debian family, which has apt).",
			Example: `deploy.bootstrap_packages("fedora")`})
	}
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
