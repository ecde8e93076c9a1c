package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// call evaluates a function call.
func (e *evaluator) call(s *scope, c *syntax.Call) any {
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		args[i] = e.expr(s, a)
	}
	if c.Lambda != nil {
		return e.iterate(s, c, args)
	}
	switch c.Name {
	case "include", "require", "contain":
		e.includeLike(s, c, args)
		return nil
	case "notice", "warning", "info", "debug", "err", "alert", "crit", "emerg":
		if e.opts.Log != nil {
			parts := make([]string, len(args))
			for i, a := range args {
				parts[i] = toString(a)
			}
			level := strings.ToUpper(c.Name[:1]) + c.Name[1:]
			e.opts.Log(level + ": Scope(" + s.container.Ref() + "): " + strings.Join(parts, " "))
		}
		return nil
	case "fail":
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = toString(a)
		}
		e.fail(c.P, "Evaluation Error: Error while evaluating a Function Call, %s", strings.Join(parts, " "))
	case "template", "inline_template":
		var b strings.Builder
		for i, a := range args {
			src, path := toString(a), "inline_template"
			if c.Name == "template" {
				path = e.findModuleFile(c.P, toString(a), "templates")
				src = e.readFile(c.P, path)
			}
			b.WriteString(e.renderTemplate(s, c.Args[i].At(), path, src, false, nil))
		}
		return b.String()
	case "epp", "inline_epp":
		e.arity(c, args, 1, 2)
		var params *hash
		if len(args) == 2 {
			h, ok := args[1].(*hash)
			if !ok {
				e.fail(c.P, "%s() expects a Hash of parameters, got %s", c.Name, typeName(args[1]))
			}
			params = h
		}
		src, path := toString(args[0]), "inline_epp"
		if c.Name == "epp" {
			path = e.findModuleFile(c.P, toString(args[0]), "templates")
			src = e.readFile(c.P, path)
		}
		return e.renderTemplate(s, c.P, path, src, true, params)
	case "file":
		for _, a := range args {
			p := e.findModuleFile(c.P, toString(a), "files")
			if _, err := os.Stat(p); err == nil {
				return e.readFile(c.P, p)
			}
		}
		e.fail(c.P, "Evaluation Error: Error while evaluating a Function Call, could not find any files from %s", toString(args))
	case "tag":
		return nil
	case "create_resources":
		e.createResources(s, c, args)
		return nil
	case "defined":
		return e.defined(s, c, args)
	case "sprintf":
		return e.sprintf(c, args)
	}
	if f := pureFuncs[c.Name]; f != nil {
		return f(e, c, args)
	}
	panic(syntax.Unsupported(c.P, "function "+c.Name+"()"))
}

// defined reports whether every argument exists so far: a resource
// reference (declared), a "$var" (set), or the name of a class, defined
// type or resource type.
func (e *evaluator) defined(s *scope, c *syntax.Call, args []any) bool {
	if len(args) == 0 {
		e.fail(c.P, "defined() expects at least one argument")
	}
	for _, a := range args {
		switch x := a.(type) {
		case ref:
			if e.entries[x.String()] == nil {
				return false
			}
		case string:
			if v, ok := strings.CutPrefix(x, "$"); ok {
				found := false
				for sc := s; sc != nil; sc = sc.parent {
					if _, ok := sc.vars[v]; ok {
						found = true
					}
				}
				if !found {
					return false
				}
				continue
			}
			name := strings.ToLower(strings.TrimPrefix(x, "::"))
			if e.classes[name] == nil && e.defines[name] == nil && !e.knownType(name) {
				e.loadModule(name)
				if e.classes[name] == nil && e.defines[name] == nil {
					return false
				}
			}
		default:
			panic(syntax.Unsupported(c.P, "defined() of "+typeName(a)))
		}
	}
	return true
}

// sprintf formats with the %s, %d, %f, %x, %o and %% verbs (with flags,
// width and precision).
func (e *evaluator) sprintf(c *syntax.Call, args []any) string {
	if len(args) == 0 {
		e.fail(c.P, "sprintf() expects a format")
	}
	format := toString(args[0])
	verbs := regexp.MustCompile(`%[-+ 0#]*[0-9]*(?:\.[0-9]+)?[a-zA-Z%]`).FindAllString(format, -1)
	var vals []any
	i := 1
	for _, v := range verbs {
		verb := v[len(v)-1]
		if verb == '%' {
			continue
		}
		if i >= len(args) {
			e.fail(c.P, "sprintf(): too few arguments for %q", format)
		}
		a := args[i]
		i++
		switch verb {
		case 's':
			vals = append(vals, toString(a))
		case 'd', 'x', 'o', 'X':
			f, ok := toFloat(a)
			if !ok {
				e.fail(c.P, "sprintf(): %%%c needs a number, got %s", verb, typeName(a))
			}
			vals = append(vals, int64(f))
		case 'f', 'e', 'g':
			f, ok := toFloat(a)
			if !ok {
				e.fail(c.P, "sprintf(): %%%c needs a number, got %s", verb, typeName(a))
			}
			vals = append(vals, f)
		default:
			panic(syntax.Unsupported(c.P, "sprintf verb "+v))
		}
	}
	return fmt.Sprintf(format, vals...)
}

// createResources declares the resources of a hash (title => attributes)
// with optional default attributes, like create_resources(type, h, d).
func (e *evaluator) createResources(s *scope, c *syntax.Call, args []any) {
	e.arity(c, args, 2, 3)
	typ := strings.ToLower(strings.TrimPrefix(toString(args[0]), "::"))
	titles := e.hashArg(c, args[1])
	defaults := &hash{m: map[string]any{}}
	if len(args) == 3 {
		defaults = e.hashArg(c, args[2])
	}
	for _, title := range titles.keys {
		attrs := map[string]any{}
		var order []string
		for _, k := range defaults.keys {
			attrs[k] = defaults.m[k]
			order = append(order, k)
		}
		if body, ok := titles.m[title].(*hash); ok {
			for _, k := range body.keys {
				if _, seen := attrs[k]; !seen {
					order = append(order, k)
				}
				attrs[k] = body.m[k]
			}
		} else if titles.m[title] != nil {
			e.fail(c.P, "create_resources(): the attributes of '%s' must be a Hash", title)
		}
		if typ == "class" {
			e.declareClass(s, c.P, title, attrs, true)
			continue
		}
		e.declareOne(s, c.P, c.P, typ, title, attrs, order)
	}
}

// iterate implements each, map and filter with their lambda: one
// parameter gets the element (a [key, value] pair for hashes), two get the
// index or key and the value.
func (e *evaluator) iterate(s *scope, c *syntax.Call, args []any) any {
	switch c.Name {
	case "each", "map", "filter":
	default:
		panic(syntax.Unsupported(c.P, "function "+c.Name+"() with a lambda"))
	}
	e.arity(c, args, 1, 1)
	l := c.Lambda
	if len(l.Params) < 1 || len(l.Params) > 2 {
		e.fail(l.P, "%s() expects a lambda with 1 or 2 parameters, got %d", c.Name, len(l.Params))
	}
	type item struct{ key, val any }
	var items []item
	switch x := args[0].(type) {
	case []any:
		for i, v := range x {
			items = append(items, item{int64(i), v})
		}
	case *hash:
		for _, k := range x.keys {
			items = append(items, item{k, x.m[k]})
		}
	case int64:
		for i := int64(0); i < x; i++ {
			items = append(items, item{i, i})
		}
	default:
		e.fail(c.P, "%s() cannot iterate over %s", c.Name, typeName(args[0]))
	}
	_, isHash := args[0].(*hash)
	var out []any
	outHash := &hash{m: map[string]any{}}
	for _, it := range items {
		ls := newScope(s, s, s.container)
		ls.depth = s.depth
		if len(l.Params) == 2 {
			ls.vars[l.Params[0].Name], ls.vars[l.Params[1].Name] = it.key, it.val
		} else if isHash {
			ls.vars[l.Params[0].Name] = []any{it.key, it.val}
		} else {
			ls.vars[l.Params[0].Name] = it.val
		}
		var last any
		for _, st := range l.Body {
			e.stmt(ls, st)
			last = e.lastValue(ls, st)
		}
		switch c.Name {
		case "map":
			out = append(out, last)
		case "filter":
			if truthy(last) {
				if isHash {
					outHash.set(toString(it.key), it.val)
				} else {
					out = append(out, it.val)
				}
			}
		}
	}
	switch {
	case c.Name == "each":
		return args[0]
	case c.Name == "filter" && isHash:
		return outHash
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// lastValue is the value of a lambda's last statement, for map and
// filter: expressions are evaluated again (they have no side effects in
// the subset, resource declarations aside, which map to their refs).
func (e *evaluator) lastValue(s *scope, st syntax.Node) any {
	switch st.(type) {
	case *syntax.Resource, *syntax.Assign, *syntax.If, *syntax.Case, *syntax.Chain, *syntax.Defaults, *syntax.Call:
		return nil
	}
	return e.expr(s, st)
}

func (e *evaluator) arity(c *syntax.Call, args []any, lo, hi int) {
	if len(args) < lo || len(args) > hi {
		e.fail(c.P, "%s() expects between %d and %d arguments, got %d", c.Name, lo, hi, len(args))
	}
}

// findModuleFile resolves "mod/rest" to <modulepath>/mod/<sub>/rest; an
// absolute path is used as it is.
func (e *evaluator) findModuleFile(p syntax.Pos, name, sub string) string {
	if filepath.IsAbs(name) {
		return name
	}
	mod, rest, ok := strings.Cut(name, "/")
	if !ok {
		e.fail(p, "cannot find %s '%s': expected module/file", strings.TrimSuffix(sub, "s"), name)
	}
	for _, dir := range e.opts.ModulePath {
		cand := filepath.Join(dir, mod, sub, rest)
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
	}
	return filepath.Join(mod, sub, rest)
}

func (e *evaluator) readFile(p syntax.Pos, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		e.fail(p, "Evaluation Error: Error while evaluating a Function Call, could not read %s: %v", path, err)
	}
	if e.opts.Read != nil {
		e.opts.Read(path)
	}
	return string(b)
}
