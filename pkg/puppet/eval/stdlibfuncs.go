package eval

import (
	"path"
	"regexp"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Functions of puppetlabs-stdlib (8.x), with its semantics: the legacy
// (Puppet 3 API) ones get an undef argument as an empty string, as Puppet
// passes it.
func init() {
	register(true, map[string]func(x *fcall) any{
		"pick":            pickFn,
		"pick_default":    pickFn,
		"assert_private":  assertPrivateFn,
		"ensure_resource": ensureResourceFn, "ensure_resources": ensureResourcesFn,
		"ensure_packages":     ensurePackagesFn,
		"defined_with_params": definedWithParamsFn,
		"merge":               mergeFn,
		"deep_merge":          deepMergeFn,
		"delete":              deleteFn,
		"delete_undef_values": deleteUndefFn,
		"concat":              concatFn,
		"any2array":           any2arrayFn,
		"has_key":             hasKeyFn,
		"member":              memberFn,
		"prefix":              fixFn(true), "suffix": fixFn(false),
		"dirname": func(x *fcall) any { x.arity(1, 1); return path.Dir(x.str(0)) },
		"basename": func(x *fcall) any {
			x.arity(1, 2)
			b := path.Base(x.str(0))
			if len(x.args) == 2 {
				b = strings.TrimSuffix(b, x.str(1))
			}
			return b
		},
		"getvar":              getvarFn,
		"join_keys_to_values": joinKeysFn,
		"fact":                factFn,
		"str2bool":            str2boolFn,
		"bool2str":            bool2strFn,
		"range":               rangeFn,
		"union":               setFn, "intersection": setFn, "difference": setFn,
		"validate_string": validateFn(func(v any) bool { _, ok := v.(string); return ok || v == nil }, "is not a string"),
		"validate_bool":   validateFn(func(v any) bool { _, ok := v.(bool); return ok }, "is not a boolean"),
		"validate_array":  validateFn(func(v any) bool { _, ok := v.([]any); return ok }, "is not an Array"),
		"validate_hash":   validateFn(func(v any) bool { _, ok := v.(*hash); return ok }, "is not a Hash"),
		"validate_absolute_path": validateFn(func(v any) bool {
			if l, ok := v.([]any); ok {
				for _, el := range l {
					if s, ok := el.(string); !ok || !strings.HasPrefix(s, "/") {
						return false
					}
				}
				return true
			}
			s, ok := v.(string)
			return ok && strings.HasPrefix(s, "/")
		}, "is not an absolute path"),
		"validate_re":    validateReFn,
		"is_string":      func(x *fcall) any { x.arity(1, 1); return isStringFn(x.args[0]) },
		"is_hash":        func(x *fcall) any { x.arity(1, 1); _, ok := x.args[0].(*hash); return ok },
		"is_array":       func(x *fcall) any { x.arity(1, 1); _, ok := x.args[0].([]any); return ok },
		"to_json":        toJSONFn,
		"to_json_pretty": toJSONFn,
		"to_yaml":        toYAMLFn,
		"parseyaml":      parseDataFn,
		"parsejson":      parseDataFn,
		"deprecation":    func(x *fcall) any { return nil },
		"stdlib::ensure": stdlibEnsureFn,
		"os_version_gte": osVersionFn,
		"delete_values":  deleteValuesFn,
		"delete_at": func(x *fcall) any {
			x.arity(2, 2)
			arr := x.array(0)
			i, ok := x.args[1].(int64)
			if !ok || i < 0 || i >= int64(len(arr)) {
				x.fail("delete_at(): Given index exceeds size of array given")
			}
			return append(append([]any{}, arr[:i]...), arr[i+1:]...)
		},
		"values_at":       func(x *fcall) any { x.unsupported(""); return nil },
		"validate_legacy": func(x *fcall) any { x.unsupported(""); return nil },
	})
}

// args3 gives a legacy function its arguments as Puppet passes them: a
// top-level undef becomes an empty string.
func (x *fcall) args3() []any {
	out := make([]any, len(x.args))
	for i, a := range x.args {
		if a == nil {
			a = ""
		}
		out[i] = a
	}
	return out
}

// pickFn returns the first argument that is neither undef nor empty
// (pick fails when there is none, pick_default returns its last
// argument, which as a Ruby 3.x function's argument is "" for undef).
func pickFn(x *fcall) any {
	args := x.args3()
	if x.c.Name == "pick_default" {
		if len(args) == 0 {
			x.fail("pick_default(): Must receive at least one argument.")
		}
		for _, a := range args[:len(args)-1] {
			if a != nil && a != "" {
				return a
			}
		}
		return args[len(args)-1]
	}
	for _, a := range args {
		if a != nil && a != "" {
			return a
		}
	}
	x.fail("pick(): must receive at least one non empty value")
	return nil
}

func assertPrivateFn(x *fcall) any {
	x.arity(0, 1)
	if x.s.module == x.s.callerModule {
		return nil
	}
	if len(x.args) == 1 {
		if msg, ok := x.args[0].(string); ok {
			x.fail("%s", msg)
		}
	}
	what := "Definition"
	if x.s.container.Type == "Class" {
		what = "Class"
	}
	x.fail("%s %s is private", what, x.s.class)
	return nil
}

func ensureResourceFn(x *fcall) any {
	x.arity(2, 3)
	args := x.args3()
	params := x.optionalHash(2)
	typ := strings.ToLower(toString(args[0]))
	for _, title := range flatStrings(args[1]) {
		x.ensure(typ, title, params)
	}
	return nil
}

// ensure declares typ[title] with params unless it is declared with them
// already: the rule of ensure_resource(), ensure_resources() and
// ensure_packages().
func (x *fcall) ensure(typ, title string, params *hash) {
	if x.e.definedWithParams(x.s, catalog.CapitalizeType(typ), title, params) {
		return
	}
	h := newHash()
	h.set(title, params)
	x.e.declareHash(x.s, x.c.P, typ, h, newHash(), false)
}

func ensureResourcesFn(x *fcall) any {
	x.arity(2, 3)
	args := x.args3()
	defaults := x.optionalHash(2)
	titles := x.hash(1)
	typ := strings.ToLower(toString(args[0]))
	for _, title := range titles.keys {
		params := defaults.copy()
		if body, ok := titles.m[title].(*hash); ok {
			for _, k := range body.keys {
				params.set(k, body.m[k])
			}
		}
		x.ensure(typ, title, params)
	}
	return nil
}

func ensurePackagesFn(x *fcall) any {
	x.arity(1, 2)
	defaults := newHash()
	defaults.set("ensure", "installed")
	given := x.optionalHash(1)
	for _, k := range given.keys {
		defaults.set(k, given.m[k])
	}
	if defaults.m["ensure"] == "present" {
		defaults.set("ensure", "installed")
	}
	if h, ok := x.args[0].(*hash); ok {
		call := &fcall{e: x.e, s: x.s, c: x.c, args: []any{"package", h, defaults}}
		return ensureResourcesFn(call)
	}
	for _, name := range flatStrings(x.args[0]) {
		x.ensure("package", name, defaults)
	}
	return nil
}

// definedWithParams reports whether Type[title] is declared with these
// parameter values (stdlib's defined_with_params).
func (e *evaluator) definedWithParams(s *scope, typ, title string, params *hash) bool {
	en := e.entries[typ+"["+title+"]"]
	if en == nil || en.res == s.container {
		return false
	}
	for _, k := range params.keys {
		have := fromJSON(en.res.Params[k])
		want := params.m[k]
		if (have == nil || have == "") && want == nil {
			continue
		}
		if !strictEqual(have, toParamValue(want)) {
			return false
		}
	}
	return true
}

// toParamValue normalizes a value the way a resource parameter stores it.
func toParamValue(v any) any { return fromJSON(toParam(v)) }

func definedWithParamsFn(x *fcall) any {
	x.arity(1, 2)
	params := newHash()
	if len(x.args) == 2 {
		if h, ok := x.args[1].(*hash); ok {
			params = h
		}
	}
	r, ok := x.args[0].(ref)
	if !ok {
		x.unsupported("of " + typeName(x.args[0]))
	}
	return x.e.definedWithParams(x.s, r.Type, r.Title, params)
}

// fixFn implements prefix (or suffix) on arrays and hash keys.
func fixFn(pre bool) func(x *fcall) any {
	return func(x *fcall) any {
		x.arity(1, 2)
		args := x.args3()
		fix := ""
		if len(args) == 2 {
			s, ok := args[1].(string)
			if !ok {
				x.fail("%s(): expected second argument to be a String", x.c.Name)
			}
			fix = s
		}
		apply := func(s string) string {
			if pre {
				return fix + s
			}
			return s + fix
		}
		switch c := args[0].(type) {
		case []any:
			out := make([]any, len(c))
			for i, v := range c {
				out[i] = apply(toString(v))
			}
			return out
		case *hash:
			out := newHash()
			for _, k := range c.keys {
				out.set(apply(k), c.m[k])
			}
			return out
		}
		x.fail("%s(): expected first argument to be an Array or a Hash", x.c.Name)
		return nil
	}
}

func getvarFn(x *fcall) any {
	x.arity(1, 1)
	name := strings.TrimPrefix(toString(x.args[0]), "$")
	if !x.e.varDefined(x.s, name) && !strings.Contains(name, "::") {
		return x.e.topVar(x.c.P, name)
	}
	if !x.e.varDefined(x.s, name) {
		return nil
	}
	return x.e.lookup(x.s, x.c.P, name)
}

func joinKeysFn(x *fcall) any {
	x.arity(2, 2)
	h := x.hash(0)
	sep := toString(x.args[1])
	out := []any{}
	for _, k := range h.keys {
		switch v := h.m[k].(type) {
		case []any:
			for _, el := range v {
				out = append(out, k+sep+toString(el))
			}
		case nil:
			out = append(out, k+sep)
		default:
			out = append(out, k+sep+toString(v))
		}
	}
	return out
}

// factFn reads a fact by a dotted path, like stdlib's fact().
func factFn(x *fcall) any {
	x.arity(1, 1)
	parts := factPath.FindAllStringSubmatch(x.str(0), -1)
	var v any = x.e.top.vars["facts"]
	for i, m := range parts {
		k := m[1] + m[2]
		switch c := v.(type) {
		case nil:
			return nil
		case *hash:
			nv, ok := c.m[k]
			if !ok && i == 0 {
				nv, _ = x.e.factValue(x.c.P, k)
			}
			v = nv
		case []any:
			n, err := parseIndex(k)
			if err != nil || n < 0 || n >= len(c) {
				return nil
			}
			v = c[n]
		default:
			return nil
		}
	}
	return v
}

var factPath = regexp.MustCompile(`([^."]+)|"([^"]+)"`)

func parseIndex(s string) (int, error) {
	n := 0
	if s == "" {
		return 0, syntax.Unsupported(syntax.Pos{}, "index")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, syntax.Unsupported(syntax.Pos{}, "index")
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

func str2boolFn(x *fcall) any {
	x.arity(1, 1)
	switch v := x.args3()[0].(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(v) {
		case "", "0", "f", "false", "n", "no", "undef", "undefined":
			return false
		case "1", "t", "true", "y", "yes":
			return true
		}
		x.fail("str2bool(): Unknown type of boolean given")
	}
	x.fail("str2bool(): Requires a string to work with")
	return nil
}

func bool2strFn(x *fcall) any {
	x.arity(1, 3)
	b, ok := x.args[0].(bool)
	if !ok {
		x.fail("bool2str(): Requires a boolean to work with")
	}
	if len(x.args) == 3 {
		if b {
			return toString(x.args[1])
		}
		return toString(x.args[2])
	}
	return toString(b)
}

func rangeFn(x *fcall) any {
	x.arity(1, 3)
	args := x.args3()
	if len(args) < 2 {
		x.unsupported("with one argument")
	}
	lo, ok1 := args[0].(int64)
	hi, ok2 := args[1].(int64)
	if !ok1 || !ok2 {
		x.unsupported("of non-integers")
	}
	step := int64(1)
	if len(args) == 3 {
		if s, ok := args[2].(int64); ok && s != 0 {
			step = s
		}
	}
	if step < 0 {
		step = -step
	}
	out := []any{}
	if hi-lo > 1_000_000 || lo-hi > 1_000_000 {
		x.unsupported("over more than a million numbers")
	}
	if lo <= hi {
		for i := lo; i <= hi; i += step {
			out = append(out, i)
		}
	} else {
		for i := lo; i >= hi; i -= step {
			out = append(out, i)
		}
	}
	return out
}

// setFn implements union, intersection and difference of arrays.
func setFn(x *fcall) any {
	x.arity(2, -1)
	contains := func(l []any, v any) bool {
		for _, w := range l {
			if strictEqual(v, w) {
				return true
			}
		}
		return false
	}
	first := x.array(0)
	out := []any{}
	switch x.c.Name {
	case "union":
		for i := range x.args {
			for _, v := range x.array(i) {
				if !contains(out, v) {
					out = append(out, v)
				}
			}
		}
	case "intersection":
		for _, v := range first {
			if contains(x.array(1), v) && !contains(out, v) {
				out = append(out, v)
			}
		}
	case "difference":
		for _, v := range first {
			if !contains(x.array(1), v) && !contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

func validateFn(ok func(any) bool, what string) func(x *fcall) any {
	return func(x *fcall) any {
		if len(x.args) == 0 {
			x.fail("%s(): wrong number of arguments (0; must be > 0)", x.c.Name)
		}
		for _, a := range x.args3() {
			if x.c.Name == "validate_string" && a == "" {
				continue
			}
			if !ok(a) {
				x.fail("%s %s", quoted(a), what)
			}
		}
		return nil
	}
}

func validateReFn(x *fcall) any {
	x.arity(2, 3)
	args := x.args3()
	s := toString(args[0])
	pats := flatStrings(args[1])
	for _, p := range pats {
		if x.e.regexp(x.c.P, p).MatchString(s) {
			return nil
		}
	}
	if len(args) == 3 {
		x.fail("%s", toString(args[2]))
	}
	x.fail("validate_re(): %s does not match %s", quoted(s), quoted(args[1]))
	return nil
}

func isStringFn(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	if _, err := parseIndex(s); err == nil {
		return false
	}
	return true
}

// stdlibEnsureFn maps a present/absent ensure to a type's values.
func stdlibEnsureFn(x *fcall) any {
	x.arity(1, 2)
	var e string
	switch v := x.args[0].(type) {
	case bool:
		e = map[bool]string{true: "present", false: "absent"}[v]
	case string:
		e = v
	default:
		x.fail("stdlib::ensure(): expects a Boolean or present/absent")
	}
	if len(x.args) == 1 {
		return e
	}
	switch toString(x.args[1]) {
	case "directory":
		return map[string]string{"present": "directory", "absent": "absent"}[e]
	case "link":
		return map[string]string{"present": "link", "absent": "absent"}[e]
	case "file":
		return map[string]string{"present": "file", "absent": "absent"}[e]
	case "service":
		return map[string]string{"present": "running", "absent": "stopped"}[e]
	case "package":
		return map[string]string{"present": "installed", "absent": "absent"}[e]
	}
	x.unsupported("for the resource " + toString(x.args[1]))
	return nil
}

// osVersionFn compares the node's OS name and release (os_version_gte).
func osVersionFn(x *fcall) any {
	x.arity(2, 2)
	osName, _ := x.e.factValue(x.c.P, "os")
	h, _ := osName.(*hash)
	if h == nil {
		return false
	}
	name := toString(h.m["name"])
	rel, _ := h.m["release"].(*hash)
	if rel == nil || name != x.str(0) {
		return false
	}
	return versioncmp(toString(rel.m["full"]), x.str(1)) >= 0
}
