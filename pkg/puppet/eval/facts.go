package eval

import (
	"os"
	"runtime"
	"strings"
)

// DefaultFacts returns the built-in fact set, read from this machine the
// way Facter reports them: hostname, fqdn, domain, kernel, os.family,
// os.name and os.release.{full,major,minor}, networking.{hostname,fqdn},
// and the legacy osfamily, operatingsystem, operatingsystemrelease and
// operatingsystemmajrelease. Every fact is also a top-scope variable.
func DefaultFacts() map[string]any {
	host, _ := os.Hostname()
	short, domain, _ := strings.Cut(host, ".")
	fqdn := host
	kernel := strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:]
	osr := readOSRelease()
	name := osr["NAME"]
	if f := strings.Fields(name); len(f) > 0 {
		name = f[0]
	}
	family := name
	like := strings.ToLower(osr["ID"] + " " + osr["ID_LIKE"])
	switch {
	case strings.Contains(like, "debian") || strings.Contains(like, "ubuntu"):
		family = "Debian"
	case strings.Contains(like, "rhel") || strings.Contains(like, "fedora") || strings.Contains(like, "centos"):
		family = "RedHat"
	case strings.Contains(like, "suse"):
		family = "Suse"
	case strings.Contains(like, "arch"):
		family = "Archlinux"
	}
	full := osr["VERSION_ID"]
	if b, err := os.ReadFile("/etc/debian_version"); err == nil && strings.ToLower(osr["ID"]) == "debian" {
		if v := strings.TrimSpace(string(b)); v != "" && v[0] >= '0' && v[0] <= '9' {
			full = v
		}
	}
	major, minor, _ := strings.Cut(full, ".")
	release := map[string]any{"full": full, "major": major}
	if minor != "" {
		release["minor"] = minor
	}
	return map[string]any{
		"hostname": short, "fqdn": fqdn, "domain": domain, "kernel": kernel,
		"osfamily": family, "operatingsystem": name, "operatingsystemrelease": full,
		"operatingsystemmajrelease": major,
		"os":                        map[string]any{"family": family, "name": name, "release": release},
		"networking":                map[string]any{"hostname": short, "fqdn": fqdn, "domain": domain},
	}
}

func readOSRelease() map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok {
			out[k] = strings.Trim(v, `"'`)
		}
	}
	return out
}

// setFacts puts $facts and the legacy top-scope facts in the top scope.
func (e *evaluator) setFacts() {
	f := e.opts.Facts
	if f == nil {
		f = map[string]any{}
	}
	e.top.vars["facts"] = fromJSON(f)
	for k, v := range f {
		e.top.vars[k] = fromJSON(v)
	}
}

// fromJSON converts decoded JSON (or Go literal) values to evaluator values.
func fromJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		h := &hash{m: map[string]any{}}
		for _, k := range sortedKeys(x) {
			h.set(k, fromJSON(x[k]))
		}
		return h
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = fromJSON(el)
		}
		return out
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case int:
		return int64(x)
	}
	return v
}
