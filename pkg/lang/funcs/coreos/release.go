package coreos

import (
	"os"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// The distribution families os.family returns and the variables
// $os.family_redhat, $os.family_debian and $os.family_archlinux hold, so
// that a program compares `os.family() == $os.family_debian`.
const (
	FamilyRedHat    = "redhat"
	FamilyDebian    = "debian"
	FamilyArchLinux = "archlinux"
)

// familyOf maps the distribution ids of os-release(5) (ID, and the ids
// of ID_LIKE) to their family.
var familyOf = map[string]string{
	"rhel": FamilyRedHat, "fedora": FamilyRedHat, "centos": FamilyRedHat, "rocky": FamilyRedHat,
	"almalinux": FamilyRedHat, "ol": FamilyRedHat, "amzn": FamilyRedHat,
	"debian": FamilyDebian, "ubuntu": FamilyDebian, "raspbian": FamilyDebian, "linuxmint": FamilyDebian,
	"arch": FamilyArchLinux, "archlinux": FamilyArchLinux, "manjaro": FamilyArchLinux, "endeavouros": FamilyArchLinux,
}

// Family returns the family of the distribution described by the
// os-release(5) content s: that of its ID or, failing that, of the first
// id of ID_LIKE with a known family; "" when none is known.
func Family(s string) string {
	kv := ParseOSRelease(s)
	for _, id := range append([]string{kv["ID"]}, strings.Fields(kv["ID_LIKE"])...) {
		if f, ok := familyOf[strings.ToLower(id)]; ok {
			return f
		}
	}
	return ""
}

// FamilyOfID returns the family of a distribution id ("fedora",
// "ubuntu") or of a family name itself; "" when it is unknown.
func FamilyOfID(id string) string {
	id = strings.ToLower(id)
	switch id {
	case FamilyRedHat, FamilyDebian, FamilyArchLinux:
		return id
	}
	return familyOf[id]
}

// family reads the running system's os-release(5): /etc/os-release, or
// /usr/lib/os-release when that is missing.
func family() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		b, _ = os.ReadFile("/usr/lib/os-release")
	}
	return Family(string(b))
}

func init() {
	for _, f := range []string{FamilyRedHat, FamilyDebian, FamilyArchLinux} {
		funcs.RegisterVar("os", "family_"+f, values.Str(f))
	}
}

// ParseOSRelease parses the KEY=value lines of os-release(5), unquoting
// quoted values; comments and malformed lines are skipped.
func ParseOSRelease(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			if v[0] == '"' {
				if u, err := strconv.Unquote(v); err == nil {
					v = u
				} else {
					v = v[1 : len(v)-1]
				}
			} else {
				v = v[1 : len(v)-1]
			}
		}
		out[k] = v
	}
	return out
}
