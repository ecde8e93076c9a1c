package eval

import (
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// ERB templates are rewritten into Ruby (text becomes __erb_text(N), an
// output tag __erb_out((expr)), code stays, line breaks are kept so that
// positions hold) with Puppet's trim mode '-': <%- drops the indentation
// before it, -%> the line break after it. The Ruby runs in rubyeval.go;
// instance variables are the Puppet variables visible where template()
// was called.

// renderERB renders an ERB template in scope s.
func (e *evaluator) renderERB(s *scope, p syntax.Pos, file, src string) string {
	r := &rctx{e: e, s: s, file: file}
	code, err := r.translate(file, src)
	if err != nil {
		panic(err)
	}
	stmts := rubyParse(syntax.Pos{File: file, Line: 1, Col: 1}, code)
	env := &renv{vars: map[string]any{}}
	r.breakable(func() any { return r.block(env, stmts) })
	return r.out.String()
}

func (r *rctx) translate(file, src string) (string, error) {
	var code strings.Builder
	line := 1
	trimNext := false
	text := func(t string) {
		if trimNext {
			t = strings.TrimPrefix(t, "\n")
			trimNext = false
		}
		if t == "" {
			return
		}
		r.texts = append(r.texts, t)
		code.WriteString(" __erb_text(" + strconv.Itoa(len(r.texts)-1) + ");" + strings.Repeat("\n", strings.Count(t, "\n")))
	}
	for len(src) > 0 {
		i := strings.Index(src, "<%")
		if i < 0 {
			text(src)
			break
		}
		t, rest := src[:i], src[i+2:]
		if strings.HasPrefix(rest, "%") {
			text(t + "<%")
			line += strings.Count(t, "\n")
			src = rest[1:]
			continue
		}
		if strings.HasPrefix(rest, "-") {
			rest = rest[1:]
			t = trimLineSpace(t)
		}
		text(t)
		line += strings.Count(t, "\n")
		end := strings.Index(rest, "%>")
		if end < 0 {
			return "", &syntax.Error{Pos: syntax.Pos{File: file, Line: line, Col: 1}, Msg: "unterminated erb tag"}
		}
		body, after := rest[:end], rest[end+2:]
		trimNext = strings.HasSuffix(body, "-")
		body = strings.TrimSuffix(body, "-")
		switch {
		case strings.HasPrefix(body, "#"):
			code.WriteString(strings.Repeat("\n", strings.Count(body, "\n")))
		case strings.HasPrefix(body, "="):
			code.WriteString(" __erb_out((" + body[1:] + "));")
		case strings.Contains(body, "#"):
			// a comment would swallow what follows on its line
			code.WriteString(" " + body + "\n;")
		default:
			code.WriteString(" " + body + ";")
		}
		line += strings.Count(body, "\n")
		src = after
	}
	return code.String(), nil
}

// erbCall handles the calls the rewritten template makes.
func (r *rctx) erbCall(env *renv, n *rnode) (any, bool) {
	switch n.name {
	case "__erb_text":
		i, _ := n.args[0].val.(int64)
		r.out.WriteString(r.texts[i])
		return nil, true
	case "__erb_out":
		r.out.WriteString(rubyToS(r.eval(env, n.args[0])))
		return nil, true
	}
	return nil, false
}
