package puppet

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// tr is the state of one resource translation: the Puppet parameters, the
// ones consumed so far, the output parameters and whether it stays clean.
type tr struct {
	v       *Vertex
	opts    Options
	st      *Stats
	kind    string
	params  map[string]any
	used    map[string]bool
	out     map[string]any
	meta    *graph.Meta
	unclean bool
}

// get consumes and returns parameter k.
func (t *tr) get(k string) (any, bool) {
	v, ok := t.params[k]
	t.used[k] = true
	return v, ok
}

func (t *tr) str(k string) (string, bool) {
	v, ok := t.get(k)
	if !ok {
		return "", false
	}
	return scalar(v), true
}

// carry copies parameter k to output key to.
func (t *tr) carry(k, to string) {
	if v, ok := t.get(k); ok {
		t.out[to] = v
	}
}

func (t *tr) ignore(ks ...string) {
	for _, k := range ks {
		t.used[k] = true
	}
}

// fail logs an error and makes the resource fall back to pippet.
func (t *tr) fail(msg string) {
	logf(t.opts, t.st, "Error", t.v, msg)
	t.unclean = true
}

// warn logs a warning; conservative mode also falls back.
func (t *tr) warn(msg string) {
	logf(t.opts, nil, "Warning", t.v, msg)
	if t.opts.Conservative {
		t.unclean = true
	}
}

// failUnless fails when parameter k is set to something other than ok.
func (t *tr) failUnless(k string, ok ...string) {
	v, set := t.str(k)
	if !set {
		return
	}
	for _, o := range ok {
		if v == o {
			return
		}
	}
	t.fail(fmt.Sprintf("cannot translate attribute '%s' with value %s", k, inspect(t.params[k])))
}

// checkSchema fails the translation when the target kind is registered and
// lacks one of the output parameters, and coerces numbers to the declared
// type.
func (t *tr) checkSchema() {
	if t.unclean {
		return
	}
	s, ok := t.opts.Schema(t.kind)
	if !ok {
		return
	}
	keys := make([]string, 0, len(t.out))
	for k := range t.out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		typ, ok := s.Params[k]
		if !ok {
			t.fail(fmt.Sprintf("cannot be expressed: kind %s has no parameter '%s'", t.kind, k))
			continue
		}
		t.out[k] = coerce(t.out[k], typ)
	}
}

func coerce(v any, typ string) any {
	switch typ {
	case "float":
		if i, ok := v.(int64); ok {
			return float64(i)
		}
	case "int":
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			return int64(f)
		}
		if s, ok := v.(string); ok {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i
			}
		}
	case "str":
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10)
		case bool:
			return strconv.FormatBool(x)
		}
	}
	return v
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x == "true" || x == "yes"
	}
	return false
}

var translators = map[string]func(*tr){
	"file":    trFile,
	"exec":    trExec,
	"package": trPackage,
	"service": trService,
	"user":    trUser,
	"group":   trGroup,
	"notify":  trNotify,
	"mount":   trMount,
	"augeas":  trAugeas,
	"anchor":  trAnchor,
}

// common handles the metaparameters every translator accepts.
func (t *tr) common() {
	t.ignore("loglevel")
	if v, ok := t.get("noop"); ok {
		t.meta.Noop = truthy(v)
	}
}

func trFile(t *tr) {
	t.common()
	t.kind = "file"
	p := t.v.Name
	t.ignore("path")
	ens, hasEns := t.str("ensure")
	target, hasTarget := t.str("target")
	switch {
	case !hasEns:
	case ens == "present" || ens == "file":
		t.out["state"] = "exists"
	case ens == "directory":
		t.out["state"] = "exists"
		if p != "/" {
			p += "/"
		}
	case ens == "absent":
		t.out["state"] = "absent"
	case ens == "link" || strings.HasPrefix(ens, "/"):
		if ens != "link" {
			target, hasTarget = ens, true
		}
		if !hasTarget {
			t.fail("cannot translate attribute 'ensure' with value \"link\" without a target")
			break
		}
		t.out["state"] = "exists"
		t.out["symlink"] = target
		hasTarget = false
	default:
		t.fail("cannot translate attribute 'ensure' with value " + inspect(t.params["ensure"]))
	}
	if hasTarget {
		t.fail("cannot translate attribute 'target' without ensure => link")
	}
	t.out["path"] = p
	t.carry("content", "content")
	t.carry("owner", "owner")
	t.carry("group", "group")
	if m, ok := t.get("mode"); ok {
		if i, isInt := m.(int64); isInt {
			m = fmt.Sprintf("%04o", i)
		}
		t.out["mode"] = m
	}
	if r, ok := t.get("recurse"); ok {
		if _, isBool := r.(bool); !isBool {
			t.fail("cannot translate attribute 'recurse' with value " + inspect(r))
		}
		t.out["recurse"] = r
	}
	t.carry("force", "force")
	if s, ok := t.get("source"); ok {
		src, isStr := s.(string)
		switch {
		case !isStr:
			t.fail("cannot translate several sources " + inspect(s))
		case strings.HasPrefix(src, "puppet:"):
			t.fail("cannot translate a puppet: source " + inspect(s))
		default:
			src = strings.TrimPrefix(src, "file://")
			src = path.Clean(regexp.MustCompile(`/+`).ReplaceAllString(src, "/"))
			t.out["source"] = src
		}
	}
	t.ignore("validate_replacement", "provider", "sourceselect", "show_diff", "checksum", "selinux_ignore_defaults")
	if _, ok := t.get("validate_cmd"); ok {
		t.warn("has a validate_cmd: the content will not be validated")
	}
	if v, ok := t.get("purge"); ok && truthy(v) {
		t.fail("cannot purge directories")
	}
	if v, ok := t.get("backup"); ok {
		if s := scalar(v); s != "false" && s != "puppet" {
			t.warn("uses the backup " + inspect(v) + ", which mgmt cannot do. There will be no backup copies!")
		}
	}
	if v, ok := t.get("replace"); ok && !truthy(v) {
		t.fail("cannot translate replace => false")
	}
	t.failUnless("links", "manage")
	t.failUnless("source_permissions", "ignore")
	if v, ok := t.get("max_files"); ok && scalar(v) != "0" {
		t.warn("max_files is ignored")
	}
}
