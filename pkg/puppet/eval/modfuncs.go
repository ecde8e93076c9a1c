package eval

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Functions and facts that modules of the corpus write in Ruby, done the
// same way in Go. Each is used only when the module path has the Ruby
// code it stands for (as Puppet would run that code).
func init() {
	register(true, map[string]func(x *fcall) any{
		"mysql::password": func(x *fcall) any {
			x.arity(1, 1)
			pw := toString(x.args[0])
			switch {
			case pw == "":
				return ""
			case mysqlHash.MatchString(pw):
				return pw
			}
			inner := sha1.Sum([]byte(pw))
			outer := sha1.Sum(inner[:])
			return "*" + strings.ToUpper(hex.EncodeToString(outer[:]))
		},
		"apache::bool2httpd": func(x *fcall) any {
			x.arity(1, 1)
			switch v := x.args[0].(type) {
			case nil:
				return "Off"
			case bool:
				if v {
					return "On"
				}
				return "Off"
			case string:
				switch {
				case falseRe.MatchString(v):
					return "Off"
				case trueRe.MatchString(v):
					return "On"
				}
				return v
			}
			return toString(x.args[0])
		},
		"getvar_emptystring": func(x *fcall) any {
			x.arity(1, 1)
			v := getvarFn(x)
			if v == nil {
				return ""
			}
			return v
		},
	})
}

var (
	mysqlHash = regexp.MustCompile(`(?m)\*[A-F0-9]{40}$`)
	falseRe   = regexp.MustCompile(`(?mi)false`)
	trueRe    = regexp.MustCompile(`(?mi)true`)
)

// moduleFacts computes custom facts of modules whose Ruby code is simple
// enough to do exactly: the fact is set only when the module defining it
// is in the module path.
var moduleFacts = map[string]func() (any, bool){
	// stdlib: the home directory of root in the passwd database
	"root_home": func() (any, bool) {
		for _, line := range strings.Split(readString("/etc/passwd"), "\n") {
			f := strings.Split(line, ":")
			if len(f) >= 6 && f[0] == "root" {
				return f[5], true
			}
		}
		return nil, true
	},
	// staging: the first of powershell, curl and wget found in PATH
	"staging_http_get": func() (any, bool) {
		for _, cmd := range []string{"powershell", "curl", "wget"} {
			for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
				if st, err := os.Stat(filepath.Join(dir, cmd)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return cmd, true
				}
			}
		}
		return nil, true
	},
}

// addModuleFacts adds the module custom facts the engine computes, for
// the modules in the module path.
func (e *evaluator) addModuleFacts(facts *hash) {
	for name, f := range moduleFacts {
		if _, ok := facts.m[name]; ok {
			continue
		}
		if len(e.modules().find(filepath.Join("lib", "facter", name+".rb"))) == 0 {
			continue
		}
		if v, ok := f(); ok && v != nil {
			facts.set(name, v)
			e.top.vars[name] = v
		} else if ok {
			if e.opts.AbsentFacts == nil {
				e.opts.AbsentFacts = map[string]bool{}
			}
			e.opts.AbsentFacts[name] = true
		}
	}
}
