package resources

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// selinuxXattr is the extended attribute holding an entry's SELinux
// context.
const selinuxXattr = "security.selinux"

// selinuxfsMagic is the file system type of a mounted selinuxfs.
const selinuxfsMagic = 0xf97cff8c

// errNoSELinux says that SELinux does not run on this host.
var errNoSELinux = errors.New("SELinux is not enabled on this host (no selinuxfs is mounted)")

// selinuxPresent reports, with an error saying why not, whether SELinux
// runs on this host: a selinuxfs is mounted, where libselinux looks for
// one (/sys/fs/selinux, /selinux, then anywhere in the mount table).
// errNoSELinux means that it surely does not run.
func selinuxPresent() error {
	var st unix.Statfs_t
	for _, p := range []string{"/sys/fs/selinux", "/selinux"} {
		if unix.Statfs(p, &st) == nil && uint32(st.Type) == selinuxfsMagic {
			return nil
		}
	}
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return fmt.Errorf("cannot tell whether SELinux runs on this host: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == "selinuxfs" {
			return nil
		}
	}
	return errNoSELinux
}

// checkSELParts makes the resource fail when it sets a part of the
// context (seluser, selrole, seltype, selrange) on a host where SELinux
// runs, or may run: only a host without SELinux, which ignores them as
// Puppet does, applies them exactly.
func (obj *FileRes) checkSELParts() error {
	var set []string
	for _, p := range []struct {
		name string
		v    *string
	}{{"seluser", obj.rare().SELUser}, {"selrole", obj.rare().SELRole}, {"seltype", obj.rare().SELType}, {"selrange", obj.rare().SELRange}} {
		if p.v != nil {
			set = append(set, p.name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	on := obj.selinuxOn()
	switch err := on(); {
	case errors.Is(err, errNoSELinux):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %v", strings.Join(set, ", "), err)
	}
	return fmt.Errorf("%s: SELinux runs on this host, where only a whole context (selinux) is applied", strings.Join(set, ", "))
}

// validateSELinux checks the wanted context, and that this host has
// SELinux: setting a context elsewhere would store an attribute that
// nothing enforces.
func (obj *FileRes) validateSELinux() error {
	if obj.rare().SELinux == nil {
		return nil
	}
	if s := *obj.rare().SELinux; s != "" {
		parts := strings.SplitN(s, ":", 4)
		if len(parts) < 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" || strings.ContainsAny(s, " \t\n\x00") {
			return fmt.Errorf("selinux %q is not a context (user:role:type[:level])", s)
		}
	}
	on := obj.selinuxOn()
	if err := on(); err != nil {
		return fmt.Errorf("selinux: %v", err)
	}
	return nil
}

// checkSELinux compares and sets the context of the entry (of a link
// itself, never of what it points to); "" removes it.
func (obj *FileRes) checkSELinux(c *fileCheck) error {
	if obj.rare().SELinux == nil || c.fi == nil {
		return nil
	}
	want := *obj.rare().SELinux
	have, ok, err := getContext(c.path)
	if err != nil {
		return err
	}
	if ok == (want != "") && have == want {
		return nil
	}
	if want == "" {
		c.change("removed the selinux context " + have)
	} else {
		c.change(fmt.Sprintf("selinux context %q -> %q", have, want))
	}
	if !c.apply {
		return nil
	}
	if want == "" {
		if err := unix.Lremovexattr(c.path, selinuxXattr); err != nil && !errors.Is(err, unix.ENODATA) {
			return &os.PathError{Op: "removexattr", Path: c.path, Err: err}
		}
		return nil
	}
	// As libselinux stores it: the context and its terminating NUL.
	if err := unix.Lsetxattr(c.path, selinuxXattr, append([]byte(want), 0), 0); err != nil {
		return &os.PathError{Op: "setxattr", Path: c.path, Err: err}
	}
	return nil
}

// getContext returns the context of the entry at path (a link itself)
// and whether it has one.
func getContext(path string) (string, bool, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Lgetxattr(path, selinuxXattr, buf)
		switch {
		case errors.Is(err, unix.ENODATA):
			return "", false, nil
		case errors.Is(err, unix.ERANGE) && len(buf) < 1<<16:
			buf = make([]byte, 2*len(buf))
			continue
		case err != nil:
			return "", false, &os.PathError{Op: "getxattr", Path: path, Err: err}
		}
		return string(bytes.TrimRight(buf[:n], "\x00")), true, nil
	}
}
