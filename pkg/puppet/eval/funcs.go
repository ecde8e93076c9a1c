package eval

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// call evaluates a function call.
func (e *evaluator) call(s *scope, c *syntax.Call) any {
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		args[i] = e.expr(s, a)
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
	}
	panic(syntax.Unsupported(c.P, "function "+c.Name+"()"))
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
