package puppet

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// fileMapping translates Puppet's file type to our file kind (a trailing
// slash on the path means a directory).
var fileMapping = &mapping{kind: "file", title: true, whole: fileWhole, rules: map[string]rule{
	"owner":   toStr("owner"),
	"group":   toStr("group"),
	"mode":    fileMode,
	"recurse": toBool("recurse"),
	// Puppet replaces a file (or a link) in a directory's way without
	// force, so a directory always has the kind's force (fileWhole),
	// which does nothing else for it; Puppet's force on a directory only
	// lets purge remove directories (purge_dirs)
	"force": func(t *tr, k string, v any) {
		if b, ok := boolValue(v); !ok {
			t.fallbackValue(k, v)
		} else if scalar(t.params["ensure"]) != "directory" {
			t.out["force"] = b
		}
	},
	// Puppet purges only while it recurses, and only a directory; the
	// directories nothing manages go only with force, otherwise only
	// what they hold
	"purge": func(t *tr, k string, v any) {
		b, ok := boolValue(v)
		switch {
		case !ok:
			t.fallbackValue(k, v)
		case !b || !truthyParam(t.params["recurse"]):
		case scalar(t.params["ensure"]) != "directory":
			t.fallback("purge without ensure => directory")
		default:
			t.out["purge"] = true
			if !truthyParam(t.params["force"]) {
				t.out["purge_dirs"] = false
			}
		}
	},
	"backup":             fileBackup,
	"validate_cmd":       fileValidateCmd,
	"replace":            fileReplace,
	"links":              only("manage"),
	"source_permissions": only("ignore"),
	// content checksums: a change of content is a change either way
	"checksum": only("md5", "md5lite", "sha256", "sha256lite", "sha224", "sha384", "sha512", "sha1", "sha1lite"),
	"provider": only("posix"),
	// the file kind never asks SELinux for default contexts
	"selinux_ignore_defaults": only("false", "true"),
	"seluser":                 toStr("seluser"),
	"selrole":                 toStr("selrole"),
	"seltype":                 toStr("seltype"),
	"selrange":                toStr("selrange"),
	"sourceselect":            only("first"),
	// false (or a Sensitive content, see fileWhole): no diff, sizes only
	"show_diff": func(t *tr, k string, v any) {
		if b, ok := boolValue(v); !ok {
			t.fallbackValue(k, v)
		} else if !b {
			t.out["show_diff"] = false
		}
	},
	"validate_replacement": func(t *tr, k string, v any) {
		if s, ok := v.(string); !ok || s == "" {
			t.fallbackValue(k, v)
		} else if s != "%" {
			t.out["validate_replacement"] = s
		}
	},
}}

// fileWhole translates ensure (with target and the directory's trailing
// slash), content and source.
func fileWhole(t *tr) {
	p := t.v.Name
	t.get("path")
	ens, hasEns := t.get("ensure")
	target, hasTarget := t.get("target")
	_, hasContent := t.params["content"]
	_, hasSource := t.params["source"]
	es := scalar(ens)
	switch {
	case !hasEns && hasSource && isModuleSource(t.params["source"]):
		// Puppet takes ensure from the source's type: a module's file
		// (anything else falls back in fileSource) makes a file
		t.out["state"] = "exists"
	case !hasEns && hasSource:
		t.fallback("a source without ensure: Puppet copies a file or a directory, whichever the source is")
	case !hasEns && hasContent:
		t.out["state"] = "exists" // content implies ensure => file
	case !hasEns:
	case es == "present" || es == "file":
		t.out["state"] = "exists"
	case es == "directory":
		t.out["state"] = "exists"
		t.out["force"] = true // see the force rule
		if p != "/" {
			p += "/"
		}
	case es == "absent":
		t.out["state"] = "absent"
		// Puppet removes the file and manages nothing else of it
		for _, k := range []string{"content", "source", "owner", "group", "mode", "recurse", "checksum", "source_permissions", "links", "validate_cmd", "validate_replacement"} {
			t.used[k] = true
		}
	case es == "link" || strings.HasPrefix(es, "/"):
		if es != "link" {
			target, hasTarget = es, true
		}
		switch {
		case !hasTarget:
			t.fallback("ensure => link without a target")
		case hasContent || hasSource:
			t.fallback("ensure => link with content or a source")
		default:
			t.out["state"] = "exists"
			t.out["symlink"] = true
			t.out["source"] = scalar(target)
			// Puppet manages a link's owner and group, never a mode
			t.used["mode"] = true
		}
	default:
		t.fallbackValue("ensure", ens)
	}
	t.out["path"] = p
	fileLinks(t, es, hasEns, hasContent || hasSource, truthyParam(t.params["force"]))
	if c, ok := t.params["content"]; ok && !t.used["content"] {
		t.get("content")
		if s, isStr := c.(string); isStr {
			t.out["content"] = s
			if t.secret["content"] {
				t.out["show_diff"] = false
			}
		} else {
			t.fallbackValue("content", c)
		}
	}
	if s, ok := t.params["source"]; ok && !t.used["source"] {
		t.get("source")
		fileSource(t, s, strings.HasSuffix(p, "/"))
	}
}

// fileLinks sets the links of the file kind for Puppet's links =>
// manage, its default, with which a symbolic link at the path is never
// followed: ensure => file or directory (or content or a source without
// ensure, which make a file) replaces it, ensure => present or no ensure
// leaves it (managing only the link's owner and group); ensure => link
// replaces a file, FIFO or socket in its way (not a directory);
// ensure => absent without force keeps a directory it finds (links keep).
// A file with replace => false (which follows no link) needs none.
func fileLinks(t *tr, es string, hasEns, hasData, force bool) {
	keep, isBool := boolValue(t.params["replace"])
	switch {
	case t.out["state"] == "absent" && !force:
		// Puppet leaves a directory there, with a notice
		t.out["links"] = "keep"
	case t.out["state"] == "absent" || isBool && !keep:
	case es == "file" || es == "directory" || !hasEns && hasData || t.out["symlink"] == true:
		t.out["links"] = "replace"
	default:
		t.out["links"] = "keep"
	}
}

var slashes = regexp.MustCompile(`/+`)

// fileSource translates a local source (a path or a file: URL), or the
// content of a file's puppet:///modules source (the first of a list that
// exists), read from the module path now.
func fileSource(t *tr, s any, dir bool) {
	src, isStr := s.(string)
	if l, isList := s.([]any); isList && len(l) > 0 {
		src, isStr = l[0].(string)
		isStr = isStr && strings.HasPrefix(src, "puppet:")
	}
	switch {
	case !isStr:
		t.fallbackValue("source", s)
		return
	case strings.HasPrefix(src, "puppet:") && !dir:
		if content, ok := moduleSource(t, "source", s); ok {
			t.out["content"] = content
		}
		return
	case strings.HasPrefix(src, "puppet:"):
		t.fallback("a puppet: directory source is served by Puppet")
		return
	case dir && !truthyParam(t.params["recurse"]):
		t.fallback("a directory source without recurse: Puppet copies nothing, our kind copies the top level")
		return
	}
	if _, hasMode := t.params["mode"]; !hasMode {
		t.fallback("a source without a mode: Puppet does not copy the source's mode, our kind does")
		return
	}
	src = strings.TrimPrefix(src, "file://")
	if !strings.HasPrefix(src, "/") {
		t.fallbackValue("source", s)
		return
	}
	src = path.Clean(slashes.ReplaceAllString(src, "/"))
	if fi, err := os.Lstat(src); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// with links => manage Puppet copies the link itself (the path
		// becomes a link, whatever ensure says); the file kind refuses
		// such a source, should it be a link only where it is applied
		t.fallback("the source %s is a symbolic link, which Puppet copies as a link", src)
		return
	}
	if dir && src != "/" {
		src += "/"
	}
	t.out["source"] = src
}

// fileReplace translates replace => false on a file, with which Puppet
// writes the content only into a new file and leaves whatever is at the
// path. On a directory, a link or a file to remove (Puppet then removes
// nothing) it falls back.
func fileReplace(t *tr, k string, v any) {
	b, ok := boolValue(v)
	p, _ := t.out["path"].(string)
	switch {
	case !ok || !b && (t.out["state"] == "absent" || t.out["symlink"] == true || strings.HasSuffix(p, "/")):
		t.fallbackValue(k, v)
	case !b:
		t.out["replace"] = false
	}
}

func truthyParam(v any) bool {
	b, ok := boolValue(v)
	return ok && b
}

// fileMode accepts string modes (octal or symbolic); Puppet's numeric
// modes are deprecated and ambiguous. A directory's octal mode gets the
// search bit wherever it gives the read bit, as Puppet sets it ("0644"
// makes a directory 0755); the file kind applies a mode as written, but
// for the directories of a recursed tree.
func fileMode(t *tr, k string, v any) {
	s, ok := v.(string)
	if !ok || s == "" {
		t.fallbackValue(k, v)
		return
	}
	if s, ok = puppetMode(s); !ok {
		t.fallbackValue(k, v)
		return
	}
	if p, _ := t.out["path"].(string); strings.HasSuffix(p, "/") && !truthyParam(t.params["recurse"]) {
		// (with recurse the file kind does it, for the directory and
		// every directory below it, and leaves the files the mode)
		s = searchWhereRead(s)
	}
	t.out["mode"] = s
}

// puppetOctal reports whether s is an octal mode as Puppet reads one:
// one to four octal digits, after an optional 0.
func puppetOctal(s string) bool {
	if len(s) == 5 && s[0] == '0' {
		s = s[1:]
	}
	if len(s) < 1 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// puppetMode returns a Puppet mode in the file kind's form, which gives
// the same bits from every current mode, or false when it cannot. An
// octal mode is kept. A symbolic one differs from chmod(1)'s, which the
// kind follows, in ways the translation either rewrites or refuses:
// Puppet's "=" sets the read, write and execute bits of the classes and
// leaves their set-id and sticky bits ("u=rw" keeps a set-user-ID bit,
// chmod clears it), so it is written as the removal of the bits not
// named and the addition of those named ("u-x+rw"); X is an error with
// another operator than "+", and looks at the mode before the whole
// change (chmod at the mode so far), so it is kept only where no other
// part of the mode changes an execute bit; s and t (Puppet's "o+s" is
// the sticky bit, "+s" all three special bits), the copy of another
// class's bits, and spaces are left to Puppet.
func puppetMode(s string) (string, bool) {
	if puppetOctal(s) {
		return s, true
	}
	bigX := strings.Contains(s, "X")
	if bigX && (strings.ContainsAny(s, "x=") || strings.Contains(s, "-X")) {
		return "", false
	}
	var out strings.Builder
	for i, part := range strings.Split(s, ",") {
		if i > 0 {
			out.WriteByte(',')
		}
		who := strings.TrimLeft(part, "ugoa")
		out.WriteString(part[:len(part)-len(who)])
		if who == "" {
			return "", false // no operator
		}
		for ops := who; ops != ""; {
			op := ops[0]
			end := strings.IndexAny(ops[1:], "+-=") + 1
			if end == 0 {
				end = len(ops)
			}
			perms := ops[1:end]
			ops = ops[end:]
			if strings.Trim(perms, "rwxX") != "" || op != '+' && op != '-' && op != '=' {
				return "", false
			}
			if op != '=' {
				out.WriteByte(op)
				out.WriteString(perms)
				continue
			}
			off := strings.Map(func(r rune) rune {
				if strings.ContainsRune(perms, r) {
					return -1
				}
				return r
			}, "rwx")
			if off != "" {
				out.WriteString("-" + off)
			}
			if perms != "" {
				out.WriteString("+" + perms)
			}
		}
	}
	return out.String(), true
}

// searchWhereRead adds to an octal mode the search bits of the classes it
// lets read; a symbolic mode is returned as it is.
func searchWhereRead(s string) string {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil || m > 0o7777 {
		return s
	}
	if w := m | (m&0o444)>>2; w != m {
		return fmt.Sprintf("%04o", w)
	}
	return s
}

// execMapping translates Puppet's exec type to our exec kind.
var execMapping = &mapping{kind: "exec", title: true, whole: execWhole, rules: map[string]rule{
	"cwd":     toStr("cwd"),
	"creates": toStr("creates"),
	"timeout": execTimeout,
	"refreshonly": func(t *tr, k string, v any) {
		if refreshOnly(v) {
			t.out["refreshonly"] = true
		}
	},
	"returns": func(t *tr, k string, v any) {
		l := commandList(v)
		if len(l) != 1 || scalar(l[0]) != "0" {
			t.fallbackValue(k, v)
		}
	},
	"logoutput": none,
	"provider":  only("posix", "shell"),
	// The commands run as user (its groups as initgroups(3) gives them)
	// and group, as Puppet runs them; the graph orders a user or group
	// resource of the catalog before the exec (autorequire).
	"user":  toStr("user"),
	"group": toStr("group"),
	"tries": func(t *tr, k string, v any) {
		n, err := strconv.Atoi(scalar(v))
		if err != nil || n < 1 || n > 32767 {
			t.fallbackValue(k, v)
			return
		}
		t.meta.Retry = int16(n - 1)
	},
	"try_sleep": func(t *tr, k string, v any) {
		f, err := strconv.ParseFloat(scalar(v), 64)
		if err != nil || f < 0 {
			t.fallbackValue(k, v)
			return
		}
		t.meta.Delay = uint64(f * 1000)
	},
}}

// execWhole translates the command (a shell line, or an argv array run
// without a shell), path and environment, and onlyif/unless (each a list of
// commands, themselves lines or argv arrays) into one shell condition.
func execWhole(t *tr) {
	cmd, ok := t.get("command")
	if !ok {
		cmd = t.v.Name
	}
	env := map[string]any{}
	var dirs []string
	if p, ok := t.get("path"); ok {
		dirs = pathList(p)
		env["PATH"] = strings.Join(dirs, ":")
	}
	if e, ok := t.get("environment"); ok {
		execEnv(t, e, env)
	}
	if len(env) > 0 {
		t.out["env"] = env
	}
	// Puppet runs every command of an exec without these (its
	// environment parameter may set them again)
	t.out["unsetenv"] = []any{"HOME", "USER", "LOGNAME"}
	shellProvider := scalar(t.params["provider"]) == "shell"
	argv, isArgv := words(cmd)
	switch {
	case isArgv && shellProvider:
		t.fallback("an argv command with the shell provider")
	case isArgv && len(argv) > 0:
		execArgv(t, argv, dirs != nil)
	case isArgv:
		t.fallbackValue("command", cmd)
	default:
		line := scalar(cmd)
		if !shellProvider && !qualified(line, dirs != nil) {
			t.fallback("the command %q is not qualified and no path is set: Puppet refuses it", line)
		}
		t.out["cmd"] = line
		t.out["shell"] = "/bin/sh"
	}
	var conds []string
	for _, k := range []string{"onlyif", "unless"} {
		v, ok := t.get(k)
		if !ok {
			continue
		}
		for _, c := range commandList(v) {
			s, qual := conditionShell(c)
			if s == "" {
				t.fallbackValue(k, v)
				continue
			}
			if !shellProvider && !qualified(qual, dirs != nil) {
				t.fallback("the %s command %q is not qualified and no path is set: Puppet refuses it", k, qual)
			}
			if k == "unless" {
				s = "! " + s
			}
			conds = append(conds, s)
		}
	}
	if len(conds) > 0 {
		t.out["ifcmd"] = strings.Join(conds, " && ")
		t.out["ifshell"] = "/bin/sh"
	}
	t.out["timeout"] = int64(300)
	if v, ok := t.params["refreshonly"]; ok && refreshOnly(v) {
		return // runs on a refresh only, not at every Puppet run
	}
	// Puppet runs an exec at every run: a tick per runinterval reruns it
	t.out["watchinterval"] = int64(t.opts.runInterval())
}

// refreshOnly reads Puppet's refreshonly: only false turns it off.
func refreshOnly(v any) bool {
	b, ok := boolValue(v)
	return !ok || b
}

// execArgv translates an argv command: run without a shell when the
// program is an absolute path, else through a shell with every word
// quoted (the shell then looks the program up in PATH, as Puppet does in
// path).
func execArgv(t *tr, argv []string, hasPath bool) {
	switch {
	case strings.HasPrefix(argv[0], "/") && (len(argv) > 1 || !strings.ContainsAny(argv[0], " \t\n")):
		t.out["cmd"] = argv[0]
		if len(argv) > 1 {
			t.out["args"] = toAnyList(argv[1:])
		}
	case strings.HasPrefix(argv[0], "/") || hasPath:
		t.out["cmd"] = shellQuote(argv)
		t.out["shell"] = "/bin/sh"
	default:
		t.fallback("the command %q is not qualified and no path is set: Puppet refuses it", argv[0])
	}
}

// conditionShell renders one onlyif/unless command for /bin/sh, in a
// subshell so that an exit or cd in it stays there, and returns the word
// Puppet checks for qualification.
func conditionShell(c any) (sh, first string) {
	if argv, ok := words(c); ok {
		if len(argv) == 0 {
			return "", ""
		}
		return "(" + shellQuote(argv) + ")", argv[0]
	}
	line, ok := c.(string)
	if !ok || strings.TrimSpace(line) == "" {
		return "", ""
	}
	return "(\n" + line + "\n)", line
}

// qualified reports whether Puppet accepts the command line: its program
// is an absolute path, or a path is set to look it up.
func qualified(line string, hasPath bool) bool {
	f := strings.Fields(line)
	return hasPath || len(f) > 0 && strings.HasPrefix(f[0], "/")
}

// words returns the strings of an argv array; ok is false when v is not
// an array of strings.
func words(v any) (argv []string, ok bool) {
	l, isList := v.([]any)
	if !isList {
		return nil, false
	}
	for _, e := range l {
		s, isStr := e.(string)
		if !isStr {
			return nil, true
		}
		argv = append(argv, s)
	}
	if argv == nil {
		argv = []string{}
	}
	return argv, true
}

// commandList returns the commands of an onlyif/unless value: a line, or
// an array whose elements are lines or argv arrays.
func commandList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// shellQuote quotes every word for /bin/sh, so that the shell runs exactly
// these words.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// pathList splits Puppet's exec path: an array of directories or a
// colon-separated string.
func pathList(v any) []string {
	var out []string
	for _, s := range stringList(v) {
		out = append(out, strings.Split(s, ":")...)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// execEnv adds Puppet's environment settings (NAME=VALUE, one string or a
// list) to env; later settings win, as in Puppet.
func execEnv(t *tr, v any, env map[string]any) {
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	for _, e := range list {
		s, ok := e.(string)
		k, val, cut := strings.Cut(s, "=")
		if !ok || !cut || k == "" {
			t.fallbackValue("environment", v)
			return
		}
		env[k] = val
	}
}

func execTimeout(t *tr, k string, v any) {
	var n float64
	switch x := v.(type) {
	case int64:
		n = float64(x)
	case float64:
		n = x
	default:
		f, err := strconv.ParseFloat(scalar(v), 64)
		if err != nil {
			t.fallbackValue(k, v)
			return
		}
		n = f
	}
	if n < 0 || n != float64(int64(n)) {
		t.fallbackValue(k, v)
		return
	}
	t.out["timeout"] = int64(n)
}

func toAnyList(s []string) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}
