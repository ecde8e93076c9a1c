// Package os adds to the mcl module "os" (files, commands and the family
// checks are in coreos): users (home, uid, user_exists), the release
// (release, parse_distro_uid), is_virtual and modinfo_loaded.
//
// user_exists streams: it re-checks each time /etc/passwd changes
// (watched through fswatch). modinfo_loaded streams too, but procfs sends
// no inotify events, so it re-reads /proc/modules every two seconds
// (funcs.Env.Poll) and emits only changes. The files are read under
// funcs.Env.Root. is_virtual looks for the "hypervisor" CPU flag and
// for the vendor strings of common hypervisors in the DMI tables.
package os

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/internal/account"
	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreos"
)

// pollModules is how often modinfo_loaded re-reads /proc/modules unless
// funcs.Env.Poll says otherwise.
const pollModules = 2 * time.Second

func register(f *funcs.Func) {
	f.Module = "os"
	if _, dup := funcs.Lookup("os", f.Name); !dup {
		funcs.RegisterFunc(f)
	}
}

func str(v values.Value) string { return string(v.(values.Str)) }

func init() {
	register(&funcs.Func{Name: "home", Sigs: funcs.Sigs("func(name str) str"), Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		u, err := lookupUser(str(c.Args[0]))
		if err != nil {
			return nil, err
		}
		return values.Str(u.HomeDir), nil
	}, Doc: "The home directory of a user, from the user database.", Example: `os.home("root")`})
	register(&funcs.Func{Name: "uid", Sigs: funcs.Sigs("func(name str) str"), Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		u, err := lookupUser(str(c.Args[0]))
		if err != nil {
			return nil, err
		}
		return values.Str(u.Uid), nil
	}, Doc: "The uid of a user, as a str.", Example: `os.uid("root")`})
	register(&funcs.Func{Name: "user_exists", Sigs: funcs.Sigs("func(name str) bool"), Stream: userExists, Doc: "Whether a user exists, following /etc/passwd.", Example: `os.user_exists("nobody")`})
	register(&funcs.Func{Name: "modinfo_loaded", Sigs: funcs.Sigs("func(name str) bool"), Stream: modinfoLoaded, Doc: "Whether a kernel module is loaded, following /proc/modules.", Example: `os.modinfo_loaded("loop")`})
	register(&funcs.Func{Name: "is_virtual", Sigs: funcs.Sigs("func() bool"), Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		return values.Bool(isVirtual(c.Env)), nil
	}, Doc: "Whether this host is a virtual machine (the CPU's hypervisor flag, or a hypervisor's DMI strings).", Example: "os.is_virtual()"})
	register(&funcs.Func{Name: "release", Sigs: funcs.Sigs("func() " + releaseType.String()), Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		return release(c.Env)
	}, Doc: "The id, variant_id and version_id of /etc/os-release.", Example: "os.release()"})
	register(&funcs.Func{Name: "parse_distro_uid", Pure: true, Sigs: funcs.Sigs("func(uid str) " + distroType.String()), Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		return ParseDistroUID(str(c.Args[0]))
	}, Doc: `Splits a distribution id, "fedora39-x86_64" or "debian-12-aarch64", into distro, version and arch; anything else is an error <|> can catch.`, Example: `os.parse_distro_uid("fedora39-x86_64")`})
}

// lookupUser finds a user by name ("" is the current user); an unknown
// user is a catchable error.
func lookupUser(name string) (*user.User, error) {
	if name == "" {
		return user.Current()
	}
	u, err := account.Lookup(name)
	if _, ok := err.(user.UnknownUserError); ok {
		return nil, funcs.Catchablef("no user named %q", name)
	}
	return u, err
}

func userExists(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	name := str(c.Args[0])
	return fswatch.Follow(ctx, c.Env.HostPath("/etc/passwd"), func() error {
		ok, err := inPasswd(c.Env, name)
		if err != nil {
			return err
		}
		emit(values.Bool(ok))
		return nil
	})
}

// inPasswd reports whether /etc/passwd under env's root has an entry for
// name (falling back, on this host, to the system's user database when it
// does not).
func inPasswd(env *funcs.Env, name string) (bool, error) {
	p := env.HostPath("/etc/passwd")
	f, err := os.Open(p)
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if n, _, _ := strings.Cut(sc.Text(), ":"); n == name {
				return true, nil
			}
		}
		if err := sc.Err(); err != nil {
			return false, err
		}
	}
	if p != "/etc/passwd" {
		return false, nil
	}
	_, err = account.Lookup(name)
	return err == nil, nil
}

func modinfoLoaded(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	name := strings.ReplaceAll(str(c.Args[0]), "-", "_")
	t := time.NewTicker(c.Env.PollEvery(pollModules))
	defer t.Stop()
	for first, last := true, false; ; first = false {
		ok, err := moduleLoaded(c.Env, name)
		if err != nil {
			return err
		}
		if first || ok != last {
			emit(values.Bool(ok))
			last = ok
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func moduleLoaded(env *funcs.Env, name string) (bool, error) {
	b, err := os.ReadFile(env.HostPath("/proc/modules"))
	if err != nil {
		return false, fmt.Errorf("modinfo_loaded: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if n, _, _ := strings.Cut(line, " "); n == name {
			return true, nil
		}
	}
	return false, nil
}

// hypervisors are DMI vendor or product strings of virtual machines.
var hypervisors = []string{"qemu", "kvm", "vmware", "virtualbox", "innotek", "xen", "bochs", "parallels", "bhyve", "amazon ec2", "google compute engine", "virtual machine", "openstack", "cloud hypervisor"}

// IsVirtual reports whether this machine looks like a virtual machine.
func IsVirtual() bool { return isVirtual(nil) }

// isVirtual reports whether the host under env's root looks like a virtual
// machine.
func isVirtual(env *funcs.Env) bool {
	if b, err := os.ReadFile(env.HostPath("/proc/cpuinfo")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
				for _, f := range strings.Fields(v) {
					if f == "hypervisor" {
						return true
					}
				}
			}
		}
	}
	for _, f := range []string{"sys_vendor", "product_name", "board_vendor", "bios_vendor"} {
		b, err := os.ReadFile(env.HostPath("/sys/class/dmi/id/" + f))
		if err != nil {
			continue
		}
		s := strings.ToLower(strings.TrimSpace(string(b)))
		for _, h := range hypervisors {
			if strings.Contains(s, h) {
				return true
			}
		}
	}
	return false
}
