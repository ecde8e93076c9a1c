package puppet

import (
	"slices"
	"strconv"
	"strings"
)

// concatFileMapping translates the concat module's concat_file to a file
// whose content is assembled now, from the fragments the catalog holds,
// as the type assembles it when Puppet applies it (see concatWhole). The
// parameters it hands to the file it generates translate as a file's do.
var concatFileMapping = &mapping{kind: "file", whole: concatWhole, rules: map[string]rule{
	"owner":                   fileMapping.rules["owner"],
	"group":                   fileMapping.rules["group"],
	"mode":                    fileMode,
	"backup":                  fileBackup,
	"replace":                 fileMapping.rules["replace"],
	"show_diff":               fileMapping.rules["show_diff"],
	"selinux_ignore_defaults": fileMapping.rules["selinux_ignore_defaults"],
	"seluser":                 fileMapping.rules["seluser"],
	"selrole":                 fileMapping.rules["selrole"],
	"seltype":                 fileMapping.rules["seltype"],
	"selrange":                fileMapping.rules["selrange"],
	"validate_cmd":            fileValidateCmd,
	// read by concatWhole
	"order": none, "ensure_newline": none, "format": none, "force": none,
}}

// concatWhole translates ensure and assembles the content: the fragments
// the concat_file collects (by target, its path or title, or by its tag),
// sorted by order and name, numerically or alphabetically as the type
// sorts them, each with a final newline added when ensure_newline asks
// for one. Only the plain format is assembled, and only fragments whose
// content is known now (a content, or a puppet:///modules source read
// from the module path); anything else falls back.
func concatWhole(t *tr) {
	t.get("path")
	t.out["path"] = t.v.Name
	switch ens, _ := t.str("ensure"); ens {
	case "", "present":
		t.out["state"] = "exists"
	case "absent":
		t.out["state"] = "absent"
		// the generated file is removed and manages nothing else; with
		// replace => false it is left (fileReplace falls back)
		for _, k := range []string{"owner", "group", "mode", "validate_cmd", "show_diff"} {
			t.used[k] = true
		}
	default:
		t.fallbackValue("ensure", ens)
		return
	}
	// the file it generates has ensure => file (or absent), without force
	fileLinks(t, "file", true, true, false)
	if tag, ok := t.v.Res.Params["tag"]; ok {
		if _, isStr := tag.(string); !isStr {
			t.fallbackValue("tag", tag)
			return
		}
	}
	if f, ok := t.params["format"]; ok && scalar(f) != "plain" {
		t.fallbackValue("format", f)
		return
	}
	numeric := true
	if o, ok := t.params["order"]; ok {
		switch scalar(o) {
		case "numeric":
		case "alpha":
			numeric = false
		default:
			t.fallbackValue("order", o)
			return
		}
	}
	newline := false
	if n, ok := t.params["ensure_newline"]; ok {
		b, isBool := boolValue(n)
		if !isBool {
			t.fallbackValue("ensure_newline", n)
			return
		}
		newline = b
	}
	frags, ok := concatFragmentsOf(t, newline)
	if !ok {
		return
	}
	content, why := assembleConcat(frags, numeric)
	if why != "" {
		t.fallback("%s", why)
		return
	}
	if t.out["state"] == "exists" {
		t.out["content"] = content
	}
}

// A concatFrag is one fragment's sort key parts and content.
type concatFrag struct {
	order, name, content string
}

// concatFragmentsOf reads the fragments t's concat_file collects (its
// companions), adding the final newlines.
func concatFragmentsOf(t *tr, newline bool) ([]concatFrag, bool) {
	var out []concatFrag
	for _, c := range t.comp {
		if c.Type != "concat_fragment" {
			continue
		}
		ref := "Concat_fragment[" + c.Title + "]"
		switch {
		case c.shared:
			t.fallback("%s is collected by more than one concat_file", ref)
		case c.res != nil && len(c.res.Sensitive) > 0:
			t.fallback("%s has Sensitive parameters", ref)
		case richParam(c.Params) != "":
			t.fallback("%s holds a value only Puppet can resolve", ref)
		}
		if t.why != "" {
			return nil, false
		}
		f := concatFrag{name: c.Title}
		if n, ok := c.Params["name"].(string); ok {
			f.name = n
		}
		switch o := c.Params["order"].(type) {
		case nil:
			f.order = "10"
		case string:
			f.order = o
		case int64:
			f.order = strconv.FormatInt(o, 10)
		default:
			t.fallback("%s has the order %s", ref, inspect(o))
			return nil, false
		}
		content, hasContent := c.Params["content"]
		source, hasSource := c.Params["source"]
		switch {
		case hasContent && hasSource || !hasContent && !hasSource:
			t.fallback("%s needs either a content or a source", ref)
			return nil, false
		case hasContent:
			s, ok := content.(string)
			if !ok {
				t.fallback("%s has the content %s", ref, inspect(content))
				return nil, false
			}
			f.content = s
		default:
			s, ok := moduleSource(t, ref+" source", source)
			if !ok {
				return nil, false
			}
			f.content = s
		}
		if newline && !strings.HasSuffix(f.content, "\n") {
			f.content += "\n"
		}
		out = append(out, f)
	}
	return out, true
}

// assembleConcat sorts the fragments as concat_file does and joins their
// contents; why says what Puppet would do that cannot be known now.
//
// The type sorts the keys "<order>___<name>": numerically, it compares
// the two parts split at the first "___", each a number when its digits
// are all it holds (Ruby's <=> of [Integer or String, Integer or
// String]: a number and a string do not compare, and Puppet fails);
// alphabetically, the two parts split at the first "__" (sic). Its sort
// is not stable: fragments that compare equal but differ in content have
// no known order.
func assembleConcat(frags []concatFrag, numeric bool) (string, string) {
	type keyed struct {
		a, b    concatKey
		content string
	}
	ks := make([]keyed, len(frags))
	for i, f := range frags {
		key := f.order + "___" + f.name
		var a, b string
		if numeric {
			a, b, _ = strings.Cut(key, "___")
		} else {
			a, b, _ = strings.Cut(key, "__")
		}
		ka, oka := parseConcatKey(a, numeric)
		kb, okb := parseConcatKey(b, numeric)
		if !oka || !okb {
			return "", "fragment " + strconv.Quote(f.name) + ": Ruby reads a number in a line of its sort key"
		}
		ks[i] = keyed{ka, kb, f.content}
	}
	// a number and a string never compare: in the first part, or in the
	// second among equal first parts
	if why := mixedKeys(ks, func(k keyed) concatKey { return k.a }, nil); why != "" {
		return "", why
	}
	if why := mixedKeys(ks, func(k keyed) concatKey { return k.b }, func(k keyed) concatKey { return k.a }); why != "" {
		return "", why
	}
	cmp := func(x, y keyed) int {
		if c := x.a.compare(y.a); c != 0 {
			return c
		}
		return x.b.compare(y.b)
	}
	slices.SortFunc(ks, cmp)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 && cmp(ks[i-1], k) == 0 && ks[i-1].content != k.content {
			return "", "two fragments sort equal and differ: Puppet's order of them is not known"
		}
		b.WriteString(k.content)
	}
	return b.String(), ""
}

// A concatKey is one part of a sort key: a string, or a number (its
// decimal digits without leading zeros) when num is set.
type concatKey struct {
	s   string
	num bool
}

// parseConcatKey reads one part: with numeric sorting, a part that is
// all ASCII digits is a number. ok is false when Ruby's /^\d+$/ would
// match one line of a part of several lines (it then reads the part's
// leading number, which is not modelled).
func parseConcatKey(s string, numeric bool) (concatKey, bool) {
	if !numeric {
		return concatKey{s: s}, true
	}
	if isDigits(s) {
		t := strings.TrimLeft(s, "0")
		if t == "" {
			t = "0"
		}
		return concatKey{s: t, num: true}, true
	}
	if strings.Contains(s, "\n") {
		for _, line := range strings.Split(s, "\n") {
			if isDigits(line) {
				return concatKey{}, false
			}
		}
	}
	return concatKey{s: s}, true
}

// compare orders two parts of the same type: numbers by value, strings
// bytewise.
func (k concatKey) compare(o concatKey) int {
	if k.num && len(k.s) != len(o.s) {
		return len(k.s) - len(o.s)
	}
	return strings.Compare(k.s, o.s)
}

// mixedKeys reports a number and a string among the parts part of the
// keys that share the same group part (all keys when group is nil).
func mixedKeys[K any](ks []K, part, group func(K) concatKey) string {
	seen := map[concatKey][2]bool{}
	for _, k := range ks {
		var g concatKey
		if group != nil {
			g = group(k)
		}
		s := seen[g]
		if part(k).num {
			s[0] = true
		} else {
			s[1] = true
		}
		if s[0] && s[1] {
			return "fragments whose sort keys mix numbers and strings: Puppet cannot sort them"
		}
		seen[g] = s
	}
	return ""
}
