package puppet

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// A mapping maps one Puppet type to one of our kinds. Every parameter the
// Puppet resource sets needs a rule; a parameter without one, a rule that
// cannot express its value, an output parameter the kind lacks, or a
// resource the kind rejects sends the resource to pippet instead. Adding a
// translation is one entry: a rule in a mapping, or a mapping in
// mappings.
type mapping struct {
	kind string
	// title names the graph resource after the Puppet title (the kind has
	// a parameter for the namevar); otherwise after the namevar's value
	// (a package's name, not its title).
	title bool
	rules map[string]rule
	// whole, when set, translates what spans several parameters (file
	// ensure with target, exec command with its conditions); it runs
	// before the rules and consumes the parameters it reads.
	whole func(t *tr)
}

// A rule translates the value v of Puppet parameter k into output
// parameters of t, or makes t fall back.
type rule func(t *tr, k string, v any)

// mappings are the Puppet types with a native translation. Types absent
// here (cron, host, ...) always go to pippet.
var mappings = map[string]*mapping{}

func init() {
	for typ, m := range map[string]*mapping{
		"file":               fileMapping,
		"exec":               execMapping,
		"package":            packageMapping,
		"service":            serviceMapping,
		"user":               userMapping,
		"group":              groupMapping,
		"notify":             notifyMapping,
		"mount":              mountMapping,
		"file_line":          fileLineMapping,
		"ssh_authorized_key": sshAuthorizedKeyMapping,
		"concat_file":        concatFileMapping,
		"anchor":             {kind: "noop", rules: map[string]rule{"name": none}},
		// a concat_fragment does nothing on its own: the concat_file that
		// collects it carries its content to Puppet (see companions)
		"concat_fragment": {kind: "noop", rules: map[string]rule{
			"name": none, "target": none, "content": none, "source": none, "order": none, "tag": none,
		}},
	} {
		mappings[typ] = m
	}
}

// commonRules are the metaparameters every mapping accepts.
var commonRules = map[string]rule{
	"loglevel": none,
	"noop": func(t *tr, k string, v any) {
		b, ok := boolValue(v)
		if !ok {
			t.fallbackValue(k, v)
			return
		}
		t.meta.Noop = b
	},
}

// tr is the state of one resource translation: the Puppet parameters, the
// ones consumed so far, the output and the reason to fall back, if any.
type tr struct {
	v      *Vertex
	opts   Options
	params map[string]any
	used   map[string]bool
	out    map[string]any
	meta   graph.Meta
	comp   []companion // the resources Puppet needs beside this one (a concat_file's fragments)
	keys   []string    // scratch list of the parameters' names (run)
	why    string      // the first reason to fall back; "" while the translation is exact
	// secret holds the parameters whose values were Sensitive: their
	// values never reach a message.
	secret map[string]bool
}

// get consumes and returns parameter k.
func (t *tr) get(k string) (any, bool) {
	v, ok := t.params[k]
	t.used[k] = true
	return v, ok
}

// str consumes parameter k and returns it as a string.
func (t *tr) str(k string) (string, bool) {
	v, ok := t.get(k)
	if !ok {
		return "", false
	}
	return scalar(v), true
}

// fallback records why the resource cannot be translated natively; the
// first reason is the one reported.
func (t *tr) fallback(format string, args ...any) {
	if t.why == "" {
		t.why = fmt.Sprintf(format, args...)
	}
}

// fallbackValue records that parameter k cannot be translated with value v.
func (t *tr) fallbackValue(k string, v any) {
	if t.secret[k] {
		t.fallback("no native translation for %s => (a Sensitive value)", k)
		return
	}
	t.fallback("no native translation for %s => %s", k, inspect(v))
}

// run applies the mapping m to the parameters of t.
func (t *tr) run(m *mapping) {
	if m.whole != nil {
		m.whole(t)
	}
	keys := t.keys[:0] // the parameters in order, in the scratch's list
	for k := range t.params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	t.keys = keys
	for _, k := range keys {
		if t.used[k] {
			continue
		}
		t.used[k] = true
		r := m.rules[k]
		if r == nil {
			r = commonRules[k]
		}
		if r == nil {
			t.fallback("no native translation for parameter '%s' (value: %s)", k, inspect(t.params[k]))
			continue
		}
		r(t, k, t.params[k])
	}
}

// checkSchema falls back when the kind is not registered or lacks one of
// the output parameters, and coerces numbers to the declared types.
func (t *tr) checkSchema(kind string) {
	s, ok := t.opts.Schema(kind)
	if !ok {
		t.fallback("kind %s is not available", kind)
		return
	}
	missing := false
	for k, v := range t.out {
		if typ, ok := s.Params[k]; ok {
			t.out[k] = coerce(v, typ)
		} else {
			missing = true
		}
	}
	if !missing {
		return
	}
	for _, k := range sortedKeys(t.out) { // the first in order
		if _, ok := s.Params[k]; !ok {
			t.fallback("kind %s has no parameter '%s'", kind, k)
			return
		}
	}
}

// none consumes a parameter that has no effect on what the resource does
// (loglevel, show_diff, ...).
func none(*tr, string, any) {}

// to copies a parameter to output parameter name.
func to(name string) rule {
	return func(t *tr, _ string, v any) { t.out[name] = v }
}

// toStr copies a scalar parameter as a string to output parameter name.
func toStr(name string) rule {
	return func(t *tr, k string, v any) {
		switch v.(type) {
		case string, int64, float64, bool:
			t.out[name] = scalar(v)
		default:
			t.fallbackValue(k, v)
		}
	}
}

// toBool copies a boolean parameter (true, false, "true", "false") to
// output parameter name.
func toBool(name string) rule {
	return func(t *tr, k string, v any) {
		b, ok := boolValue(v)
		if !ok {
			t.fallbackValue(k, v)
			return
		}
		t.out[name] = b
	}
}

// toInt copies an integer parameter (or numeric string) to output
// parameter name.
func toInt(name string) rule {
	return func(t *tr, k string, v any) {
		switch x := v.(type) {
		case int64:
			t.out[name] = x
			return
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				t.out[name] = n
				return
			}
		}
		t.fallbackValue(k, v)
	}
}

// enum maps the allowed values of a parameter (compared as strings) to
// values of output parameter name; other values fall back.
func enum(name string, m map[string]any) rule {
	return func(t *tr, k string, v any) {
		out, ok := m[scalar(v)]
		if _, isList := v.([]any); isList || !ok {
			t.fallbackValue(k, v)
			return
		}
		t.out[name] = out
	}
}

// only accepts the values that mean what our kind does anyway (Puppet's
// defaults: provider => posix, replace => true, ...); other values fall
// back.
func only(vals ...string) rule {
	return func(t *tr, k string, v any) {
		if _, isList := v.([]any); !isList {
			s := scalar(v)
			for _, o := range vals {
				if s == o {
					return
				}
			}
		}
		t.fallbackValue(k, v)
	}
}

func boolValue(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch x {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
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

// scalar renders a scalar parameter value as a string.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
