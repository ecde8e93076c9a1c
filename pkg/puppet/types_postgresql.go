package puppet

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// postgresqlPsqlMapping translates puppetlabs-postgresql's postgresql_psql
// (ruby provider) to our postgresql:psql kind, which runs psql with the
// same arguments, identity, directory and environment.
//
// The provider (the module's 6.x versions) joins psql's arguments into one
// line that Puppet hands to /bin/sh, the SQL between double quotes (each
// '"' escaped): the shell expands "$NAME" in the SQL, which is how the
// module's roles pass a password hash through environment (NEWPGPASSWD)
// and keep it out of the command Puppet logs. The kind runs psql without
// a shell, so the translation does that expansion itself, and only when
// it is certain of the result: a variable the resource's own environment
// or connect_settings sets, and no backslash, backquote or other
// expansion ($(...), $1, $$, ${NAME...}); the db, port and psql_path words
// must be ones the shell passes unchanged. A resource whose SQL took a
// value from the environment becomes sensitive, so that the value stays
// out of the logs as it does in Puppet's. Anything else falls back to
// pippet, as does a resource that neither guard (unless, onlyif) nor
// refreshonly restrains: Puppet runs it at every run.
var postgresqlPsqlMapping = &mapping{kind: "postgresql:psql", title: true, whole: psqlWhole, rules: map[string]rule{
	"name":        none, // the namevar: command defaults to it (psqlWhole)
	"db":          psqlWord("db"),
	"psql_user":   psqlWord("psql_user"),
	"psql_group":  psqlWord("psql_group"),
	"psql_path":   psqlPath,
	"port":        psqlPort,
	"cwd":         psqlCwd,
	"refreshonly": toBool("refreshonly"),
	"provider":    only("ruby"),
}}

func init() { mappings["postgresql_psql"] = postgresqlPsqlMapping }

// psqlShellWord is a word the shell passes to psql as it is: no white
// space, quote, expansion, glob or operator character.
var psqlShellWord = regexp.MustCompile(`^[A-Za-z0-9_./:@%+,-]+$`)

// psqlEnvSetting is one environment setting the provider understands
// (NAME=VALUE, VALUE not empty; settings with a newline fall back).
var psqlEnvSetting = regexp.MustCompile(`^([A-Za-z0-9_]+)=(.+)$`)

// psqlShellVars are variables the shell sets itself, whatever the
// environment says.
var psqlShellVars = map[string]bool{"IFS": true, "PPID": true, "PWD": true, "OLDPWD": true, "OPTIND": true,
	"OPTARG": true, "PS1": true, "PS2": true, "PS4": true, "LINENO": true}

// psqlWhole translates the SQL texts, search_path and the environment,
// which the shell expansion of the SQL reads.
func psqlWhole(t *tr) {
	env := psqlEnvironment(t)
	if t.why != "" {
		return
	}
	cmd, ok := t.str("command")
	if !ok {
		cmd = t.v.Name
	}
	secret := false
	texts := []struct{ param, sql string }{{"command", cmd}}
	for _, k := range []string{"unless", "onlyif"} {
		if v, ok := t.get(k); ok {
			s, isStr := v.(string)
			if !isStr {
				t.fallbackValue(k, v)
				return
			}
			texts = append(texts, struct{ param, sql string }{k, s})
		}
	}
	for _, x := range texts {
		sql, expanded, ok := psqlExpand(x.sql, env)
		if !ok {
			t.fallback("the %s holds what only the shell of Puppet's provider can expand", x.param)
			return
		}
		secret = secret || expanded
		t.out[x.param] = sql
	}
	if v, ok := t.get("search_path"); ok {
		psqlSearchPath(t, v)
	}
	if secret {
		t.out["sensitive"] = true
	}
	_, guarded := t.out["unless"]
	_, onlyif := t.out["onlyif"]
	if !guarded && !onlyif && !truthyParam(t.params["refreshonly"]) {
		t.fallback("a postgresql_psql without unless, onlyif or refreshonly runs at every Puppet run")
	}
}

// psqlEnvironment translates connect_settings and environment and returns
// the variables they set, as the provider merges them (environment wins).
func psqlEnvironment(t *tr) map[string]string {
	env := map[string]string{}
	if v, ok := t.get("connect_settings"); ok {
		m, isMap := v.(map[string]any)
		if !isMap {
			t.fallbackValue("connect_settings", v)
			return nil
		}
		out := map[string]any{}
		for k, e := range m {
			s, isStr := e.(string)
			if !isStr || k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(s, 0) {
				t.fallbackValue("connect_settings", v)
				return nil
			}
			env[k], out[k] = s, s
		}
		if len(out) > 0 {
			t.out["connect_settings"] = out
		}
	}
	v, ok := t.get("environment")
	if !ok {
		return env
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	out := map[string]any{}
	for _, e := range list {
		s, isStr := e.(string)
		m := psqlEnvSetting.FindStringSubmatch(s)
		if !isStr || m == nil || strings.ContainsAny(s, "\n\x00") {
			t.fallbackValue("environment", v)
			return nil
		}
		env[m[1]], out[m[1]] = m[2], m[2]
	}
	if len(out) > 0 {
		t.out["environment"] = out
	}
	return env
}

// psqlExpand does what the shell does to sql between double quotes, with
// the variables env sets: ok is false when the result is not certain.
// expanded reports that a variable's value was put in.
func psqlExpand(sql string, env map[string]string) (out string, expanded, ok bool) {
	if strings.ContainsAny(sql, "\\`\x00") {
		return "", false, false
	}
	var b strings.Builder
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c != '$' || i+1 == len(sql) {
			b.WriteByte(c)
			continue
		}
		rest := sql[i+1:]
		name := ""
		switch n := rest[0]; {
		case n == '{':
			end := strings.IndexByte(rest, '}')
			if end < 0 || !psqlName(rest[1:end]) {
				return "", false, false
			}
			name = rest[1:end]
			i += end + 1
		case n == '_' || n >= 'A' && n <= 'Z' || n >= 'a' && n <= 'z':
			k := 1
			for k < len(rest) && psqlNameByte(rest[k]) {
				k++
			}
			name = rest[:k]
			i += k
		case n >= '0' && n <= '9' || n >= 0x80 || strings.IndexByte("@*#?-$!(", n) >= 0:
			return "", false, false
		default:
			b.WriteByte(c) // a lone '$' stays
			continue
		}
		val, set := env[name]
		if !set || psqlShellVars[name] {
			return "", false, false
		}
		b.WriteString(val)
		expanded = true
	}
	return b.String(), expanded, true
}

// psqlName reports whether s is a shell variable name.
func psqlName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !psqlNameByte(s[i]) {
			return false
		}
	}
	return true
}

// psqlNameByte reports whether c may be part of a shell variable name.
func psqlNameByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// psqlSearchPath copies a search path (one schema or a list) that the
// shell leaves as it is.
func psqlSearchPath(t *tr, v any) {
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	var out []any
	for _, e := range list {
		s, isStr := e.(string)
		if !isStr || strings.ContainsAny(s, "$\\`\x00") {
			t.fallbackValue("search_path", v)
			return
		}
		out = append(out, s)
	}
	if len(out) == 0 || len(out) == 1 && out[0] == "" {
		t.fallbackValue("search_path", v) // "set search_path to ;" is an SQL error
		return
	}
	t.out["search_path"] = out
}

// psqlWord copies a string the shell passes unchanged.
func psqlWord(name string) rule {
	return func(t *tr, k string, v any) {
		s, ok := v.(string)
		if !ok || !psqlShellWord.MatchString(s) {
			t.fallbackValue(k, v)
			return
		}
		t.out[name] = s
	}
}

// psqlPath copies psql_path: "psql", or an absolute path the shell passes
// unchanged (another name could be a shell builtin).
func psqlPath(t *tr, k string, v any) {
	s, ok := v.(string)
	if !ok || s != "psql" && !(path.IsAbs(s) && psqlShellWord.MatchString(s)) {
		t.fallbackValue(k, v)
		return
	}
	t.out["psql_path"] = s
}

// psqlPort copies a port number (an integer, or its decimal string).
func psqlPort(t *tr, k string, v any) {
	var n int64 = -1
	switch x := v.(type) {
	case int64:
		n = x
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil && strconv.FormatInt(i, 10) == x {
			n = i
		}
	}
	if n < 1 || n > 65535 {
		t.fallbackValue(k, v)
		return
	}
	t.out["port"] = n
}

// psqlCwd copies an absolute working directory.
func psqlCwd(t *tr, k string, v any) {
	s, ok := v.(string)
	if !ok || !path.IsAbs(s) || strings.ContainsRune(s, 0) {
		t.fallbackValue(k, v)
		return
	}
	t.out["cwd"] = s
}
