package eval

import (
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// EPP templates are Puppet code with text: the template is rewritten into
// a manifest (text becomes __epp_text(N) calls, <%= x %> an
// __epp_out(x) call, code stays as it is, line breaks are kept so that
// positions hold) and evaluated by the regular parser and evaluator, in a
// scope that sees only top scope and the template's parameters.

// An eppRender is the output of the template being rendered.
type eppRender struct {
	texts []string
	out   strings.Builder
}

// renderEPP renders an EPP template with its parameters.
func (e *evaluator) renderEPP(s *scope, p syntax.Pos, file, src string, params *hash) string {
	r := &eppRender{}
	code, paramSrc, err := r.translate(file, src)
	if err != nil {
		panic(err)
	}
	stmts, err := syntax.Parse(file, code)
	if err != nil {
		panic(err)
	}
	ts := newScope(e.top, s.dyn, s.container)
	ts.module, ts.class = s.module, s.class
	given := map[string]any{}
	if params != nil {
		for _, k := range params.keys {
			given[k] = params.m[k]
		}
	}
	if paramSrc != nil {
		e.bindEPPParams(p, ts, file, paramSrc, given)
	} else {
		for k, v := range given {
			ts.vars[k] = v
		}
	}
	saved := e.epp
	e.epp = r
	defer func() { e.epp = saved }()
	e.block(ts, stmts)
	return r.out.String()
}

// bindEPPParams binds the template's declared parameters (<%- |$a = 1| -%>).
func (e *evaluator) bindEPPParams(p syntax.Pos, ts *scope, file string, params []*syntax.Param, given map[string]any) {
	known := map[string]bool{}
	for _, prm := range params {
		known[prm.Name] = true
		v, ok := given[prm.Name]
		if !ok {
			if prm.Default == nil {
				e.fail(p, "epp template %s expects a value for parameter '%s'", file, prm.Name)
			}
			v = e.expr(ts, prm.Default)
		}
		if prm.Type != nil {
			if t := e.paramType(ts, prm); !e.isInstance(prm.P, v, t) {
				e.fail(p, "epp template %s: parameter '%s' expects a value of type %s, got %s", file, prm.Name, t, typeName(v))
			}
		}
		ts.vars[prm.Name] = v
	}
	for k := range given {
		if !known[k] {
			e.fail(p, "epp template %s has no parameter named '%s'", file, k)
		}
	}
}

// translate rewrites the template into Puppet code and returns its
// parameters (nil when it declares none).
func (r *eppRender) translate(file, src string) (string, []*syntax.Param, error) {
	var code strings.Builder
	var params []*syntax.Param
	line := 1
	first := true
	trimNext := false
	for len(src) > 0 {
		i := strings.Index(src, "<%")
		if i < 0 {
			r.text(&code, src, trimNext)
			break
		}
		text, rest := src[:i], src[i+2:]
		if strings.HasPrefix(rest, "%") { // <%% is a literal <%
			r.text(&code, text+"<%", trimNext)
			trimNext = false
			line += strings.Count(text, "\n")
			src = rest[1:]
			continue
		}
		if strings.HasPrefix(rest, "-") {
			rest = rest[1:]
			text = strings.TrimRight(text, " \t")
		}
		r.text(&code, text, trimNext)
		line += strings.Count(text, "\n")
		end := strings.Index(rest, "%>")
		if end < 0 {
			return "", nil, &syntax.Error{Pos: syntax.NewPos(file, line, 1), Msg: "unterminated epp tag"}
		}
		body, after := rest[:end], rest[end+2:]
		trimNext = strings.HasSuffix(body, "-")
		body = strings.TrimSuffix(body, "-")
		switch {
		case strings.HasPrefix(body, "#"):
			code.WriteString(strings.Repeat("\n", strings.Count(body, "\n")))
		case strings.HasPrefix(body, "="):
			code.WriteString(" __epp_out(" + body[1:] + ") ")
		case first && strings.HasPrefix(strings.TrimSpace(body), "|"):
			ps, err := parseEPPParams(syntax.NewPos(file, line, 1), strings.TrimSpace(body))
			if err != nil {
				return "", nil, err
			}
			params = ps
			code.WriteString(strings.Repeat("\n", strings.Count(body, "\n")))
		default:
			code.WriteString(" " + body + " ")
		}
		if strings.TrimSpace(text) != "" || !strings.HasPrefix(body, "#") {
			first = false
		}
		line += strings.Count(body, "\n")
		src = after
	}
	return code.String(), params, nil
}

// text adds a text segment as an __epp_text call, with its line breaks
// after it so that later positions stay right. After -%> the spaces and
// the line break that follow are dropped; %%> stands for %>.
func (r *eppRender) text(code *strings.Builder, t string, skipLeading bool) {
	lines := strings.Count(t, "\n")
	if skipLeading {
		t = strings.TrimLeft(t, " \t")
		t = strings.TrimPrefix(strings.TrimPrefix(t, "\r"), "\n")
	}
	t = strings.ReplaceAll(t, "%%>", "%>")
	if t == "" {
		code.WriteString(strings.Repeat("\n", lines))
		return
	}
	r.texts = append(r.texts, t)
	code.WriteString(" __epp_text(" + strconv.Itoa(len(r.texts)-1) + ")" + strings.Repeat("\n", lines))
}

// trimLineSpace drops the spaces and tabs before a <%- tag on its line.
func trimLineSpace(t string) string {
	i := len(t)
	for i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
		i--
	}
	if i == 0 || t[i-1] == '\n' {
		return t[:i]
	}
	return t
}

// parseEPPParams parses the |params| declaration of a template.
func parseEPPParams(p syntax.Pos, src string) ([]*syntax.Param, error) {
	x, err := syntax.ParseExpr(p, "__epp_params() "+src+" {}")
	if err != nil {
		return nil, err
	}
	c, ok := x.(*syntax.Call)
	if !ok || c.Lambda == nil {
		return nil, &syntax.Error{Pos: p, Msg: "bad epp parameter declaration"}
	}
	return c.Lambda.Params, nil
}

// eppCall handles the calls the rewritten template makes.
func (e *evaluator) eppCall(s *scope, c *syntax.Call) (any, bool) {
	if e.epp == nil || !strings.HasPrefix(c.Name, "__epp_") {
		return nil, false
	}
	switch c.Name {
	case "__epp_text":
		i, _ := strconv.Atoi(c.Args[0].(*syntax.Num).Text)
		e.epp.out.WriteString(e.epp.texts[i])
		e.checkText(c.P, e.epp.out.Len())
	case "__epp_out":
		if len(c.Args) != 1 {
			e.fail(c.P, "an epp output tag needs one expression")
		}
		v := e.expr(s, c.Args[0])
		e.checkInterpolated(c.P, v)
		e.epp.out.WriteString(toString(v))
		e.checkText(c.P, e.epp.out.Len())
	default:
		return nil, false
	}
	return nil, true
}
