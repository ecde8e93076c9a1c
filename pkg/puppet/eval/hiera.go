package eval

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/bounded"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// hiera implements Hiera 5 lookups the way Puppet does: three layers
// (global hiera.yaml, the environment's, the module's for keys of that
// module), each a hierarchy of data files (yaml_data, json_data) whose
// paths interpolate facts; the first layer and level holding a key wins,
// or, with a merge strategy (from lookup_options or the caller), the
// values of all are merged. Anything else (other backends, Hiera 3
// configurations, encrypted data) is refused as unsupported.
type hiera struct {
	e       *evaluator
	configs map[string]*hieraConfig // by hiera.yaml path; nil: none
	data    map[string]*hash        // parsed data files; nil: missing
	active  map[string]bool         // keys being looked up (recursion guard)
}

type hieraConfig struct {
	file   string
	levels []*hieraLevel
}

type hieraLevel struct {
	name     string
	datadir  string
	backend  string // yaml_data or json_data
	paths    []string
	globs    bool
	mapped   []string
	position syntax.Pos
}

func newHiera(e *evaluator) *hiera {
	return &hiera{e: e, configs: map[string]*hieraConfig{}, data: map[string]*hash{}, active: map[string]bool{}}
}

// A lookup is one lookup request.
type lookup struct {
	p     syntax.Pos
	s     *scope
	key   string
	merge string // first, unique, hash, deep; "" : from lookup_options
}

// classParam looks up a class parameter (automatic parameter lookup).
func (h *hiera) classParam(p syntax.Pos, key string) (any, bool) {
	return h.find(&lookup{p: p, s: h.e.top, key: key})
}

// layers returns the hiera.yaml files to search for key, in order.
func (h *hiera) layers(key string) []string {
	var out []string
	if h.e.opts.HieraConfig != "" {
		out = append(out, h.e.opts.HieraConfig)
	}
	if h.e.opts.EnvironmentDir != "" {
		out = append(out, filepath.Join(h.e.opts.EnvironmentDir, "hiera.yaml"))
	}
	if mod, _, ok := strings.Cut(strings.TrimPrefix(key, "::"), "::"); ok {
		for _, dir := range h.e.opts.ModulePath {
			md := filepath.Join(dir, mod)
			if st, err := os.Stat(md); err == nil && st.IsDir() {
				out = append(out, filepath.Join(md, "hiera.yaml"))
				break
			}
		}
	}
	return out
}

// find looks a key up: its merge strategy (the request's, else the
// lookup_options of the data), then every level of every layer.
func (h *hiera) find(l *lookup) (any, bool) {
	root, dig, _ := strings.Cut(l.key, ".")
	if h.active[root] {
		h.e.fail(l.p, "Recursive lookup detected in [%s]", root)
	}
	h.active[root] = true
	defer delete(h.active, root)
	merge := l.merge
	if merge == "" {
		merge = h.mergeOption(l, root)
	}
	var found []any
	for _, file := range h.layers(root) {
		cfg := h.config(l.p, file)
		if cfg == nil {
			continue
		}
		for _, lv := range cfg.levels {
			for _, df := range h.dataFiles(l, cfg, lv) {
				data := h.dataFile(l.p, df, lv.backend)
				if data == nil {
					continue
				}
				v, ok := data.m[root]
				if !ok {
					continue
				}
				v = h.interpolateValue(l, v)
				if merge == "first" || merge == "" {
					return h.digValue(l, v, dig)
				}
				found = append(found, v)
			}
		}
	}
	if len(found) == 0 {
		return nil, false
	}
	return h.digValue(l, h.mergeValues(l, merge, found), dig)
}

func (h *hiera) digValue(l *lookup, v any, dig string) (any, bool) {
	if dig == "" {
		return v, true
	}
	for _, k := range strings.Split(dig, ".") {
		switch c := v.(type) {
		case *hash:
			nv, ok := c.m[k]
			if !ok {
				return nil, false
			}
			v = nv
		case []any:
			i, err := parseIndex(k)
			if err != nil || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mergeOption reads the merge strategy of a key from lookup_options.
func (h *hiera) mergeOption(l *lookup, key string) string {
	if key == "lookup_options" {
		return "hash"
	}
	opts, ok := h.find(&lookup{p: l.p, s: l.s, key: "lookup_options", merge: "hash"})
	if !ok {
		return "first"
	}
	oh, _ := opts.(*hash)
	if oh == nil {
		return "first"
	}
	for _, k := range oh.keys {
		spec, _ := oh.m[k].(*hash)
		if spec == nil {
			continue
		}
		match := k == key
		if strings.HasPrefix(k, "^") {
			match = h.e.regexp(l.p, k).MatchString(key)
		}
		if !match {
			continue
		}
		for _, o := range spec.keys {
			if o != "merge" {
				panic(syntax.Unsupported(l.p, "the lookup option '"+o+"' of "+key))
			}
		}
		return h.strategy(l.p, spec.m["merge"])
	}
	return "first"
}

// strategy reads a merge strategy: a name or {strategy => name, options}.
func (h *hiera) strategy(p syntax.Pos, v any) string {
	switch m := v.(type) {
	case nil:
		return "first"
	case string:
		switch m {
		case "first", "unique", "hash", "deep":
			return m
		}
	case *hash:
		if len(m.keys) == 1 {
			return h.strategy(p, m.m["strategy"])
		}
		panic(syntax.Unsupported(p, "merge options "+quoted(m)))
	}
	h.e.fail(p, "unknown merge strategy %s", quoted(v))
	return ""
}

// mergeValues merges the values found, highest priority first.
func (h *hiera) mergeValues(l *lookup, merge string, vals []any) any {
	switch merge {
	case "unique":
		out := []any{}
		for _, v := range vals {
			l, ok := v.([]any)
			if !ok {
				l = []any{v}
			}
			for _, el := range flattenAll(l) {
				dup := false
				for _, o := range out {
					if strictEqual(o, el) {
						dup = true
					}
				}
				if !dup {
					out = append(out, el)
				}
			}
		}
		return out
	case "hash", "deep":
		var out *hash
		for i := len(vals) - 1; i >= 0; i-- {
			hv, ok := vals[i].(*hash)
			if !ok {
				h.e.fail(l.p, "lookup of '%s' with merge %s found %s, want Hash", l.key, merge, typeName(vals[i]))
			}
			if out == nil {
				out = newHash()
			}
			if merge == "deep" {
				out = deepMergeUnique(out, hv)
			} else {
				for _, k := range hv.keys {
					out.set(k, hv.m[k])
				}
			}
		}
		return h.reorder(vals[0], out)
	}
	return vals[0]
}

// reorder lists the keys of a merged hash the way Puppet does: those of
// the highest-priority value first.
func (h *hiera) reorder(first any, merged *hash) *hash {
	f, ok := first.(*hash)
	if !ok {
		return merged
	}
	out := newHash()
	for _, k := range f.keys {
		out.set(k, merged.m[k])
	}
	for _, k := range merged.keys {
		out.set(k, merged.m[k])
	}
	return out
}

func flattenAll(l []any) []any {
	var out []any
	for _, v := range l {
		if sub, ok := v.([]any); ok {
			out = append(out, flattenAll(sub)...)
		} else {
			out = append(out, v)
		}
		if len(out) > maxElements {
			panic(elementsTooLarge)
		}
	}
	return out
}

// deepMergeUnique merges b (higher priority) over a: hashes recursively,
// arrays as unique unions.
func deepMergeUnique(a, b *hash) *hash {
	out := a.copy()
	for _, k := range b.keys {
		switch bv := b.m[k].(type) {
		case *hash:
			if av, ok := out.m[k].(*hash); ok {
				out.set(k, deepMergeUnique(av, bv))
				continue
			}
		case []any:
			if av, ok := out.m[k].([]any); ok {
				merged := append([]any{}, bv...)
				for _, el := range av {
					dup := false
					for _, o := range merged {
						if strictEqual(o, el) {
							dup = true
						}
					}
					if !dup {
						merged = append(merged, el)
					}
				}
				out.set(k, merged)
				continue
			}
		}
		out.set(k, b.m[k])
	}
	return out
}

// config reads and caches a hiera.yaml (nil when missing).
func (h *hiera) config(p syntax.Pos, file string) *hieraConfig {
	if c, ok := h.configs[file]; ok {
		return c
	}
	h.configs[file] = nil
	b, ok := h.read(p, file)
	if !ok {
		return nil
	}
	if h.e.opts.Read != nil {
		h.e.opts.Read(file)
	}
	v, err := parseYAML(file, b)
	if err != nil {
		panic(syntax.Unsupported(syntax.NewPos(file, 1, 1), "this hiera.yaml ("+err.Error()+")"))
	}
	c := h.parseConfig(file, v)
	h.configs[file] = c
	return c
}

func (h *hiera) parseConfig(file string, v any) *hieraConfig {
	pos := syntax.NewPos(file, 1, 1)
	top, _ := v.(*hash)
	if top == nil {
		return nil
	}
	if ver := toString(top.m["version"]); ver != "5" {
		panic(syntax.Unsupported(pos, "Hiera configuration version "+quoted(top.m["version"])+" (only version 5)"))
	}
	c := &hieraConfig{file: file}
	datadir, backend := "data", ""
	if d, ok := top.m["defaults"].(*hash); ok {
		if x, ok := d.m["datadir"].(string); ok {
			datadir = x
		}
		backend = h.backend(pos, d)
	}
	levels, _ := top.m["hierarchy"].([]any)
	for _, lv := range levels {
		lh, ok := lv.(*hash)
		if !ok {
			panic(syntax.Unsupported(pos, "a hierarchy level that is not a hash"))
		}
		l := &hieraLevel{name: toString(lh.m["name"]), datadir: datadir, backend: backend, position: pos}
		if x, ok := lh.m["datadir"].(string); ok {
			l.datadir = x
		}
		if b := h.backend(pos, lh); b != "" {
			l.backend = b
		}
		if l.backend == "" {
			l.backend = "yaml_data"
		}
		for _, k := range lh.keys {
			switch k {
			case "name", "datadir", "data_hash":
			case "path", "glob":
				l.paths = append(l.paths, toString(lh.m[k]))
				l.globs = k == "glob"
			case "paths", "globs":
				for _, x := range flatStrings(lh.m[k]) {
					l.paths = append(l.paths, x)
				}
				l.globs = k == "globs"
			case "mapped_paths":
				l.mapped = flatStrings(lh.m[k])
			default:
				panic(syntax.Unsupported(pos, "the hierarchy setting '"+k+"' (level "+l.name+")"))
			}
		}
		if len(l.paths) == 0 && l.mapped == nil {
			l.paths = []string{l.name + ".yaml"}
		}
		c.levels = append(c.levels, l)
	}
	return c
}

// backend reads data_hash; other backends are refused.
func (h *hiera) backend(pos syntax.Pos, m *hash) string {
	for _, k := range []string{"lookup_key", "data_dig", "hiera3_backend"} {
		if _, ok := m.m[k]; ok {
			panic(syntax.Unsupported(pos, "the Hiera backend "+k+" "+quoted(m.m[k])))
		}
	}
	b, ok := m.m["data_hash"].(string)
	if !ok {
		return ""
	}
	if b != "yaml_data" && b != "json_data" {
		panic(syntax.Unsupported(pos, "the Hiera backend data_hash "+b))
	}
	return b
}

// dataFiles returns the data files of a level, paths interpolated.
func (h *hiera) dataFiles(l *lookup, cfg *hieraConfig, lv *hieraLevel) []string {
	dir := lv.datadir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(cfg.file), dir)
	}
	var out []string
	paths := lv.paths
	if lv.mapped != nil {
		if len(lv.mapped) != 3 {
			h.e.fail(lv.position, "mapped_paths needs three entries")
		}
		list := h.interpolateVar(l, lv.mapped[0])
		arr, _ := list.([]any)
		for _, el := range arr {
			paths = append(paths, strings.ReplaceAll(lv.mapped[2], "%{"+lv.mapped[1]+"}", toString(el)))
		}
	}
	for _, p := range paths {
		ip := h.interpolate(l, p)
		full := filepath.Join(dir, ip)
		if lv.globs {
			m, _ := filepath.Glob(full)
			out = append(out, m...)
			continue
		}
		out = append(out, full)
	}
	return out
}

// read reads a hiera.yaml or a data file for the lookup at p: ok is false
// when it does not exist. Any other failure fails the lookup, as Puppet's
// does: a file that cannot be read is not one without data.
func (h *hiera) read(p syntax.Pos, file string) (b []byte, ok bool) {
	b, err := bounded.ReadFile(file)
	switch {
	case err == nil:
		return b, true
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, false
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err // the path is said once
	}
	h.e.fail(p, "Evaluation Error: Error while evaluating a Function Call, could not read %s: %v", file, err)
	return nil, false
}

// dataFile reads and caches a data file (nil when missing).
func (h *hiera) dataFile(p syntax.Pos, file, backend string) *hash {
	if d, ok := h.data[file]; ok {
		return d
	}
	h.data[file] = nil
	b, ok := h.read(p, file)
	if !ok {
		return nil
	}
	if h.e.opts.Read != nil {
		h.e.opts.Read(file)
	}
	var v any
	var err error
	if backend == "json_data" {
		v, err = parseJSON(b)
	} else {
		v, err = parseYAML(file, b)
	}
	if err != nil {
		panic(syntax.Unsupported(syntax.NewPos(file, 1, 1), "this data file ("+err.Error()+")"))
	}
	d, ok := v.(*hash)
	if !ok && v != nil {
		h.e.fail(syntax.NewPos(file, 1, 1), "Hiera data must be a hash, got %s", typeName(v))
	}
	if d == nil {
		d = newHash()
	}
	h.data[file] = d
	return d
}

var hieraInterp = regexp.MustCompile(`%\{([^}]*)\}`)

// interpolate expands %{...} in a Hiera string: variables (facts.x.y,
// ::name, trusted.x), and the functions lookup, hiera, alias (whole
// string only), literal and scope.
func (h *hiera) interpolate(l *lookup, s string) string {
	return hieraInterp.ReplaceAllStringFunc(s, func(m string) string {
		return toString(h.interpolateExpr(l, m[2:len(m)-1]))
	})
}

func (h *hiera) interpolateExpr(l *lookup, expr string) any {
	expr = strings.TrimSpace(expr)
	if i := strings.IndexByte(expr, '('); i > 0 && strings.HasSuffix(expr, ")") {
		fn := expr[:i]
		arg := strings.Trim(strings.TrimSpace(expr[i+1:len(expr)-1]), `'"`)
		switch fn {
		case "lookup", "hiera", "alias":
			v, ok := h.find(&lookup{p: l.p, s: l.s, key: arg})
			if !ok {
				h.e.fail(l.p, "Function lookup() did not find a value for the name '%s'", arg)
			}
			return v
		case "literal":
			return arg
		case "scope":
			return h.interpolateVar(l, arg)
		}
		panic(syntax.Unsupported(l.p, "the Hiera interpolation function "+fn+"()"))
	}
	return h.interpolateVar(l, expr)
}

// interpolateVar reads a variable with dotted keys: facts.os.family.
func (h *hiera) interpolateVar(l *lookup, name string) any {
	parts := strings.Split(strings.TrimPrefix(name, "::"), ".")
	v := h.e.lookup(h.e.top, l.p, parts[0])
	for i, k := range parts[1:] {
		c, ok := v.(*hash)
		if !ok {
			return nil
		}
		nv, found := c.m[k]
		if !found && i == 0 && c == h.e.top.vars["facts"] {
			nv, _ = h.e.factValue(l.p, k)
		}
		v = nv
	}
	return v
}

// interpolateValue expands interpolations in every string of a value;
// a string that is only %{alias('x')} becomes x's value, of any type.
func (h *hiera) interpolateValue(l *lookup, v any) any {
	return h.interpolateShared(l, v, map[any]any{})
}

// sharedArray names an array by its elements, to find the arrays a value
// holds in several places.
type sharedArray struct {
	first *any
	n     int
}

// interpolateShared is interpolateValue with the arrays and hashes done
// so far: one that the value holds in several places (a YAML alias) is
// done once and shared by all of them, and one without an interpolation
// is kept as it is, so that nine lines of aliases of aliases stay as
// small as they are in the file.
func (h *hiera) interpolateShared(l *lookup, v any, done map[any]any) any {
	var key any
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "%{") {
			return x
		}
		if m := hieraInterp.FindStringSubmatch(x); m != nil && m[0] == x && strings.HasPrefix(strings.TrimSpace(m[1]), "alias(") {
			return h.interpolateExpr(l, m[1])
		}
		return h.interpolate(l, x)
	case []any:
		if len(x) == 0 {
			return x
		}
		key = sharedArray{&x[0], len(x)}
	case *hash:
		key = x
	default:
		return v
	}
	if out, ok := done[key]; ok {
		return out
	}
	out := v
	switch x := v.(type) {
	case []any:
		var c []any
		for i, el := range x {
			n := h.interpolateShared(l, el, done)
			if c == nil && !same(n, el) {
				c = append(make([]any, 0, len(x)), x[:i]...)
			}
			if c != nil {
				c = append(c, n)
			}
		}
		if c != nil {
			out = c
		}
	case *hash:
		c := newHash()
		changed := false
		for _, k := range x.keys {
			nk, nv := h.interpolate(l, k), h.interpolateShared(l, x.m[k], done)
			changed = changed || nk != k || !same(nv, x.m[k])
			c.set(nk, nv)
		}
		if changed {
			out = c
		}
	}
	done[key] = out
	return out
}

// same reports whether a and b are the same value: equal scalars, or the
// same array or hash in memory.
func same(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *hash:
		y, ok := b.(*hash)
		return ok && x == y
	case string, int64, float64, bool, nil:
		return a == b
	}
	return false
}

// lookupFn implements lookup(name, [type], [merge], [default]) and the
// options-hash form, with an optional lambda giving the default.
func lookupFn(x *fcall) any {
	x.arity(1, 4)
	var names []string
	for _, n := range flatStrings(x.args[0]) {
		names = append(names, n)
	}
	var typ *ptype
	merge := ""
	var def any
	hasDef := false
	if len(x.args) == 2 {
		if opts, ok := x.args[1].(*hash); ok {
			for _, k := range opts.keys {
				switch k {
				case "value_type":
					typ, _ = opts.m[k].(*ptype)
				case "merge":
					merge = x.e.hiera.strategy(x.c.P, opts.m[k])
				case "default_value":
					def, hasDef = opts.m[k], true
				default:
					x.unsupported("with the option " + k)
				}
			}
			goto search
		}
	}
	if len(x.args) >= 2 {
		typ, _ = x.args[1].(*ptype)
	}
	if len(x.args) >= 3 && x.args[2] != nil {
		merge = x.e.hiera.strategy(x.c.P, x.args[2])
	}
	if len(x.args) == 4 {
		def, hasDef = x.args[3], true
	}
search:
	for _, n := range names {
		if v, ok := x.e.hiera.find(&lookup{p: x.c.P, s: x.s, key: n, merge: merge}); ok {
			return x.checkLookup(typ, n, v)
		}
	}
	switch {
	case x.lambda != nil:
		return x.checkLookup(typ, names[0], x.e.callLambda(x.c.P, x.lambda, names[0]))
	case hasDef:
		return x.checkLookup(typ, names[0], def)
	}
	x.fail("Function lookup() did not find a value for the name '%s'", strings.Join(names, "', '"))
	return nil
}

func (x *fcall) checkLookup(t *ptype, name string, v any) any {
	if t != nil && !x.e.isInstance(x.c.P, v, t) {
		x.fail("Function lookup() found a value of type %s for '%s', want %s", typeName(v), name, t)
	}
	return v
}

// hieraFn implements the legacy hiera, hiera_array and hiera_hash.
func hieraFn(x *fcall) any {
	x.arity(1, 3)
	if x.lambda != nil || len(x.args) == 3 {
		x.unsupported("with an override or a lambda")
	}
	merge := map[string]string{"hiera": "first", "hiera_array": "unique", "hiera_hash": "hash"}[x.c.Name]
	if v, ok := x.e.hiera.find(&lookup{p: x.c.P, s: x.s, key: toString(x.args[0]), merge: merge}); ok {
		return v
	}
	if len(x.args) >= 2 {
		return x.args[1]
	}
	x.fail("Function %s() did not find a value for the name '%s'", x.c.Name, toString(x.args[0]))
	return nil
}
