package eval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Custom facts of modules whose value costs a process or a search of
// Puppet's providers: they are computed when a manifest first reads them
// (not for every compilation), and only when the module path holds the
// one Ruby definition of the fact that they reproduce, recognised by a
// line of its code. A value the engine cannot determine exactly on this
// machine leaves the fact unknown (the manifest is refused).

// A lazyFact is how one custom fact is computed.
type lazyFact struct {
	marker string // a line of the fact's Ruby code
	// value gives the fact's value (nil: Facter leaves it unset) and
	// whether the engine knows it exactly.
	value func(e *evaluator) (any, bool)
}

// lazyFacts are the facts computed on first read (set in init: systemd's
// reads service_provider through lazyFact).
var lazyFacts map[string]lazyFact

func init() {
	lazyFacts = map[string]lazyFact{
		// stdlib: Puppet's default provider of the service type
		"service_provider": {
			marker: serviceProviderMarker,
			value:  serviceProviderFact,
		},
		// systemd: whether service_provider is systemd (Linux only)
		"systemd": {
			marker: "Facter.value(:service_provider) == 'systemd'",
			value:  systemdFact,
		},
		// collectd: the site-packages directory of the python in PATH
		"python_dir": {
			marker: `Facter::Util::Resolution.exec('python -c "import site; print(site.getsitepackages()[0])"')`,
			value:  pythonDirFact,
		},
		// redis and collectd: the version of the installed daemon,
		// unset without one (an installed one is left unknown)
		"redis_server_version": {
			marker: "if Facter::Util::Resolution.which('redis-server')",
			value:  unsetWithout("redis-server"),
		},
		"collectd_version": {
			marker: "if Facter::Util::Resolution.which('collectd')",
			value:  unsetWithout("collectd"),
		},
	}
}

// unsetWithout gives the value of a fact that Facter leaves unset when
// the command is not in its search path; when it is, the fact's value is
// unknown to the engine.
func unsetWithout(cmd string) func(e *evaluator) (any, bool) {
	return func(e *evaluator) (any, bool) {
		if factWhich(cmd) != "" {
			return nil, false
		}
		return nil, true
	}
}

// serviceProviderMarker is the line of stdlib's service_provider fact.
const serviceProviderMarker = "Puppet::Type.type(:service).newservice(name: 'dummy')[:provider].to_s"

// lazyFact computes a fact of lazyFacts when the module path defines it
// in the expected way, and records it in $facts and the top scope.
func (e *evaluator) lazyFact(name string) (any, bool) {
	lf, ok := lazyFacts[name]
	if !ok || !e.opts.StrictFacts {
		return nil, false
	}
	if v, done := e.lazyDone[name]; done {
		return v.v, v.ok
	}
	if e.lazyDone == nil {
		e.lazyDone = map[string]lazyResult{}
	}
	e.lazyDone[name] = lazyResult{} // a fact reading itself stays unknown
	var v any
	found := false
	if e.factDefinedBy(name, lf.marker) {
		v, found = lf.value(e)
	}
	e.lazyDone[name] = lazyResult{v: v, ok: found}
	if found {
		if facts, _ := e.top.vars["facts"].(*hash); facts != nil && v != nil {
			facts.set(name, v)
		}
		if v != nil {
			e.top.vars[name] = v
		}
	}
	return v, found
}

// A lazyResult is a computed lazy fact.
type lazyResult struct {
	v  any
	ok bool
}

// factDefinition finds a Facter.add of a fact in the modules' fact files.
var factDefinition = regexp.MustCompile(`Facter\.add\(\s*[:'"]([A-Za-z0-9_]+)`)

// factDefinedBy reports whether exactly one fact file of the module path
// defines the fact, and that file holds marker.
func (e *evaluator) factDefinedBy(name, marker string) bool {
	var defs []string
	for _, file := range factFiles(e.opts.ModulePath) {
		src := readString(file)
		for _, m := range factDefinition.FindAllStringSubmatch(src, -1) {
			if m[1] == name {
				defs = append(defs, src)
			}
		}
	}
	return len(defs) == 1 && strings.Contains(defs[0], marker)
}

// factFiles lists the lib/facter files Puppet loads from the module path:
// of modules of the same name, the first in the path.
func factFiles(modulePath []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, dir := range modulePath {
		mods, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, mod := range mods {
			if seen[filepath.Base(mod)] {
				continue
			}
			seen[filepath.Base(mod)] = true
			files, _ := filepath.Glob(filepath.Join(mod, "lib", "facter", "*.rb"))
			out = append(out, files...)
		}
	}
	return out
}

// factString reads a fact the native gatherer set, as a string.
func (e *evaluator) factString(name string) string {
	if facts, _ := e.top.vars["facts"].(*hash); facts != nil {
		s, _ := facts.m[name].(string)
		return s
	}
	return ""
}

// serviceProviderFact is the provider Puppet 7 picks for a service on
// Debian: among the providers whose confines hold, the default ones for
// the node (systemd on Debian 8 and later), else the most derived ones.
// Other systems, a module's own service providers, and machines where
// two providers tie are left unknown.
func serviceProviderFact(e *evaluator) (any, bool) {
	if e.factString("operatingsystem") != "Debian" {
		return nil, false
	}
	switch e.factString("operatingsystemmajrelease") {
	case "", "5", "6", "7":
		return nil, false
	}
	if len(e.modules().findSuffix(filepath.Join("lib", "puppet", "provider", "service"), ".rb")) > 0 {
		return nil, false
	}
	if strings.Contains(readString("/proc/1/comm"), "systemd") {
		// systemd: confined to a systemd PID 1 and systemctl in PATH,
		// the default for Debian
		if which("systemctl") != "" {
			return "systemd", true
		}
		return nil, false
	}
	// debian (init's child, as deep as redhat and runit) needs its three
	// commands; redhat's and runit's would tie with it
	for _, c := range []string{"/usr/sbin/update-rc.d", "/usr/sbin/invoke-rc.d", "/usr/sbin/service"} {
		if which(c) == "" {
			return nil, false
		}
	}
	if which("/usr/bin/sv") != "" || which("/sbin/chkconfig") != "" && which("/sbin/service") != "" {
		return nil, false
	}
	return "debian", true
}

// systemdFact is the systemd module's fact: service_provider is systemd,
// on Linux only.
func systemdFact(e *evaluator) (any, bool) {
	if e.factString("kernel") != "Linux" {
		return nil, true
	}
	if !e.factDefinedBy("service_provider", serviceProviderMarker) {
		return nil, false
	}
	p, ok := e.lazyFact("service_provider")
	if !ok {
		return nil, false
	}
	return p == "systemd", true
}

// pythonDirFact runs what collectd's fact runs: python's first
// site-packages directory (distutils' on RedHat), or "" without a python
// in PATH. Facter runs the command through the shell with LC_ALL and LANG
// set to C and strips the output; it ignores stderr and the exit status.
func pythonDirFact(e *evaluator) (any, bool) {
	py := factWhich("python")
	if py == "" {
		return "", true
	}
	script := `"import site; print(site.getsitepackages()[0])"`
	if e.factString("osfamily") == "RedHat" {
		script = `"from distutils.sysconfig import get_python_lib; print(get_python_lib())"`
	}
	if strings.ContainsAny(py, " \t") {
		py = `"` + py + `"`
	}
	ctx := e.opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 300*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", py+" -c "+script)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, false
	}
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		return nil, false
	}
	return string(bytes.Trim(out, " \t\n\v\f\r\x00")), true
}

// which finds a command as Puppet does: an absolute path names itself,
// a bare name is looked up in PATH; the file must be a regular file with
// an execute bit.
func which(cmd string) string {
	if filepath.IsAbs(cmd) {
		if executableFile(cmd) {
			return cmd
		}
		return ""
	}
	return searchPath(cmd, filepath.SplitList(os.Getenv("PATH")))
}

// factWhich is Facter's which: PATH, then /sbin and /usr/sbin.
func factWhich(cmd string) string {
	return searchPath(cmd, append(filepath.SplitList(os.Getenv("PATH")), "/sbin", "/usr/sbin"))
}

func searchPath(cmd string, dirs []string) string {
	for _, dir := range dirs {
		p, err := filepath.Abs(filepath.Join(dir, cmd))
		if err == nil && executableFile(p) {
			return p
		}
	}
	return ""
}

func executableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
