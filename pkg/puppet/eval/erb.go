package eval

import (
	"sort"
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
	t := e.erbTemplates[file]
	if t == nil || t.src != src {
		code, marks, err := r.translate(file, src)
		if err != nil {
			panic(err)
		}
		t = &erbParsed{src: src, texts: r.texts, stmts: rubyParseMapped(syntax.NewPos(file, 1, 1), code, marks)}
		if e.erbTemplates == nil {
			e.erbTemplates = map[string]*erbParsed{}
		}
		e.erbTemplates[file] = t
	}
	r.texts = t.texts
	env := &renv{vars: map[string]any{}}
	r.breakable(func() any { return r.block(env, t.stmts) })
	return r.out.String()
}

// An erbParsed is a template parsed once per compilation: a module's
// template is rendered for each resource that uses it, and the parsed
// code is not changed by running it.
type erbParsed struct {
	src   string
	texts []string
	stmts []*rnode
}

// A srcMark says that the Ruby code from offset off on comes from the
// template at pos: the rewritten code is longer or shorter than the text
// it stands for, so each piece of template code carries its own position.
type srcMark struct {
	off int
	pos syntax.Pos
}

// erbSource finds the line and column of offsets of a template.
type erbSource struct {
	file       syntax.Pos // line 1, column 1 of the template
	lineStarts []int
}

func newERBSource(file, src string) *erbSource {
	es := &erbSource{file: syntax.NewPos(file, 1, 1), lineStarts: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			es.lineStarts = append(es.lineStarts, i+1)
		}
	}
	return es
}

// at returns the position of offset off (columns count bytes from 1).
func (es *erbSource) at(off int) syntax.Pos {
	l := sort.Search(len(es.lineStarts), func(i int) bool { return es.lineStarts[i] > off }) - 1
	p := es.file
	p.Line, p.Col = int32(l+1), int32(off-es.lineStarts[l]+1)
	return p
}

// translate rewrites the template into Ruby and returns the marks that
// map the Ruby back to the template.
func (r *rctx) translate(file, src string) (string, []srcMark, error) {
	var code strings.Builder
	es := newERBSource(file, src)
	var marks []srcMark
	mark := func(off int) { marks = append(marks, srcMark{off: code.Len(), pos: es.at(off)}) }
	trimNext := false
	text := func(off int, t string) {
		if trimNext {
			t = strings.TrimPrefix(t, "\n")
			trimNext = false
		}
		if t == "" {
			return
		}
		mark(off)
		r.texts = append(r.texts, t)
		code.WriteString(" __erb_text(" + strconv.Itoa(len(r.texts)-1) + ");" + strings.Repeat("\n", strings.Count(t, "\n")))
	}
	for at := 0; at < len(src); {
		i := strings.Index(src[at:], "<%")
		if i < 0 {
			text(at, src[at:])
			break
		}
		tag := at + i
		t, rest := src[at:tag], tag+2
		if strings.HasPrefix(src[rest:], "%") {
			text(at, t+"<%")
			at = rest + 1
			continue
		}
		if strings.HasPrefix(src[rest:], "-") {
			rest++
			t = trimLineSpace(t)
		}
		text(at, t)
		end := strings.Index(src[rest:], "%>")
		if end < 0 {
			return "", nil, &syntax.Error{Pos: es.at(tag), Msg: "unterminated erb tag"}
		}
		body := src[rest : rest+end]
		at = rest + end + 2
		trimNext = strings.HasSuffix(body, "-")
		body = strings.TrimSuffix(body, "-")
		mark(tag)
		switch {
		case strings.HasPrefix(body, "#"):
			code.WriteString(strings.Repeat("\n", strings.Count(body, "\n")))
		case strings.HasPrefix(body, "="):
			code.WriteString(" __erb_out((")
			mark(rest + 1)
			code.WriteString(body[1:])
			mark(rest + end)
			code.WriteString("));")
		default:
			code.WriteString(" ")
			mark(rest)
			code.WriteString(body)
			mark(rest + end)
			if strings.Contains(body, "#") {
				// a comment would swallow what follows on its line
				code.WriteString("\n")
			}
			code.WriteString(";")
		}
	}
	return code.String(), marks, nil
}

// erbCall handles the calls the rewritten template makes.
func (r *rctx) erbCall(env *renv, n *rnode) (any, bool) {
	switch n.name {
	case "__erb_text":
		i, _ := n.args[0].val.(int64)
		r.out.WriteString(r.texts[i])
		r.e.checkText(n.pos, r.out.Len())
		return nil, true
	case "__erb_out":
		r.out.WriteString(rubyToS(r.eval(env, n.args[0])))
		r.e.checkText(n.pos, r.out.Len())
		return nil, true
	}
	return nil, false
}
