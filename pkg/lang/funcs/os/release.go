package os

import (
	"os"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreos"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

var (
	releaseType = types.MustParse("struct{id str; variant_id str; version_id str}")
	distroType  = types.MustParse("struct{distro str; version str; arch str}")
)

func strStruct(t *types.Type, vs ...string) *values.Struct {
	s := &values.Struct{T: t, V: make([]values.Value, len(vs))}
	for i, v := range vs {
		s.V[i] = values.Str(v)
	}
	return s
}

// release reads ID, VARIANT_ID and VERSION_ID from os-release(5) under
// env's root.
func release(env *funcs.Env) (values.Value, error) {
	b, err := os.ReadFile(env.HostPath("/etc/os-release"))
	if err != nil {
		if b, err = os.ReadFile(env.HostPath("/usr/lib/os-release")); err != nil {
			return nil, err
		}
	}
	kv := coreos.ParseOSRelease(string(b))
	return strStruct(releaseType, kv["ID"], kv["VARIANT_ID"], kv["VERSION_ID"]), nil
}

// ParseDistroUID splits a distro uid, "<distro><version>-<arch>" or
// "<distro>-<version>-<arch>" (fedora39-x86_64, debian-12-aarch64), into
// its parts. Anything else is a catchable error.
func ParseDistroUID(uid string) (values.Value, error) {
	parts := strings.Split(uid, "-")
	var distro, version, arch string
	switch len(parts) {
	case 3:
		distro, version, arch = parts[0], parts[1], parts[2]
	case 2:
		i := strings.IndexAny(parts[0], "0123456789")
		if i > 0 {
			distro, version = parts[0][:i], parts[0][i:]
		}
		arch = parts[1]
	}
	if !isName(distro) || !isVersion(version) || !isName(arch) {
		return nil, funcs.Catchablef("parse_distro_uid: %q is not <distro><version>-<arch>", uid)
	}
	return strStruct(distroType, distro, version, arch), nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

func isVersion(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == '.') {
			return false
		}
	}
	return true
}
