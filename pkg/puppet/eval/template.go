package eval

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Templates: ERB (template, inline_template) and EPP (epp, inline_epp)
// subsets with output tags, if/elsif/else/unless and each loops. ERB code
// is a small Ruby subset (@var, loop variables, scope['x'], literals,
// comparison and boolean operators) rewritten into Puppet expressions.

type tnode interface{}

type (
	tText string
	tOut  struct{ x syntax.Node }
	tIf   struct {
		conds  []syntax.Node
		bodies [][]tnode
		els    []tnode
		not    bool
	}
	tEach struct {
		list syntax.Node
		vars []string
		body []tnode
	}
)

type tseg struct {
	kind byte // 't' text, 'o' output, 'c' code
	text string
	pos  syntax.Pos
}

// scanTemplate splits a template into text, output and code segments,
// applying the <%- and -%> whitespace trimming.
func scanTemplate(file, src string) ([]tseg, error) {
	var out []tseg
	line := 1
	for {
		i := strings.Index(src, "<%")
		if i < 0 {
			out = append(out, tseg{kind: 't', text: src})
			return out, nil
		}
		text := src[:i]
		rest := src[i+2:]
		if strings.HasPrefix(rest, "%") {
			out = append(out, tseg{kind: 't', text: text + "<%"})
			line += strings.Count(text, "\n")
			src = rest[1:]
			continue
		}
		if strings.HasPrefix(rest, "-") {
			rest = rest[1:]
			text = strings.TrimRight(text, " \t")
		}
		out = append(out, tseg{kind: 't', text: text})
		line += strings.Count(src[:i], "\n")
		pos := syntax.Pos{File: file, Line: line, Col: 1}
		end := strings.Index(rest, "%>")
		if end < 0 {
			return nil, &syntax.Error{Pos: pos, Msg: "unterminated template tag"}
		}
		body := rest[:end]
		after := rest[end+2:]
		line += strings.Count(rest[:end+2], "\n")
		if strings.HasSuffix(body, "-") {
			body = body[:len(body)-1]
			if strings.HasPrefix(after, "\n") {
				after = after[1:]
				line++
			} else if strings.HasPrefix(after, "\r\n") {
				after = after[2:]
				line++
			}
		}
		switch {
		case strings.HasPrefix(body, "="):
			out = append(out, tseg{kind: 'o', text: strings.TrimSpace(body[1:]), pos: pos})
		case strings.HasPrefix(body, "#"):
		default:
			out = append(out, tseg{kind: 'c', text: strings.TrimSpace(body), pos: pos})
		}
		src = after
	}
}

var (
	erbIf     = regexp.MustCompile(`^(if|unless|elsif)\s+(.+)$`)
	erbEach   = regexp.MustCompile(`^(.+?)\.(?:each|each_pair)\s+do\s*\|\s*(\w+)(?:\s*,\s*(\w+))?\s*\|$`)
	eppIf     = regexp.MustCompile(`^(?:\}\s*)?(if|unless|elsif)\s+(.+)\{$`)
	eppElse   = regexp.MustCompile(`^\}\s*else\s*\{$`)
	eppEach   = regexp.MustCompile(`^(.+?)\.each\s*\|\s*\$(\w+)(?:\s*,\s*\$(\w+))?\s*\|\s*\{$`)
	eppParams = regexp.MustCompile(`^\|(.*)\|$`)
)

type tparser struct {
	e     *evaluator
	segs  []tseg
	i     int
	epp   bool
	loops map[string]bool
	param []*syntax.Param
}

// parseBody parses segments until a closing statement, which it returns.
func (t *tparser) parseBody() ([]tnode, *tseg) {
	var out []tnode
	for t.i < len(t.segs) {
		sg := &t.segs[t.i]
		t.i++
		switch sg.kind {
		case 't':
			if sg.text != "" {
				out = append(out, tText(sg.text))
			}
		case 'o':
			out = append(out, &tOut{x: t.expr(sg, sg.text)})
		case 'c':
			n, closing := t.code(sg)
			if closing {
				return out, sg
			}
			if n != nil {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// code handles a code tag; closing reports end/else/elsif tags.
func (t *tparser) code(sg *tseg) (tnode, bool) {
	c := sg.text
	if t.epp {
		if m := eppParams.FindStringSubmatch(c); m != nil && t.param == nil {
			t.param = t.eppParams(sg, m[1])
			return nil, false
		}
		switch {
		case c == "}" || eppElse.MatchString(c):
			return nil, true
		case strings.HasPrefix(c, "}") && eppIf.MatchString(c):
			return nil, true
		case eppIf.MatchString(c):
			m := eppIf.FindStringSubmatch(c)
			return t.ifNode(sg, m[1], m[2]), false
		case eppEach.MatchString(c):
			m := eppEach.FindStringSubmatch(c)
			return t.eachNode(sg, m[1], m[2], m[3]), false
		}
	} else {
		switch {
		case c == "end" || c == "else" || strings.HasPrefix(c, "elsif "):
			return nil, true
		case erbIf.MatchString(c):
			m := erbIf.FindStringSubmatch(c)
			return t.ifNode(sg, m[1], m[2]), false
		case erbEach.MatchString(c):
			m := erbEach.FindStringSubmatch(c)
			return t.eachNode(sg, m[1], m[2], m[3]), false
		}
	}
	panic(syntax.Unsupported(sg.pos, "template code '"+c+"'"))
}

func (t *tparser) ifNode(sg *tseg, kw, cond string) tnode {
	n := &tIf{not: kw == "unless"}
	for {
		n.conds = append(n.conds, t.expr(sg, cond))
		body, end := t.parseBody()
		n.bodies = append(n.bodies, body)
		if end == nil {
			t.e.fail(sg.pos, "template: unterminated %s", kw)
		}
		c := end.text
		if t.epp {
			if m := eppIf.FindStringSubmatch(c); m != nil && m[1] == "elsif" {
				sg, cond = end, m[2]
				continue
			}
			if eppElse.MatchString(c) {
				n.els = t.closeBlock(sg)
			}
			return n
		}
		if strings.HasPrefix(c, "elsif ") {
			sg, cond = end, strings.TrimPrefix(c, "elsif ")
			continue
		}
		if c == "else" {
			n.els = t.closeBlock(sg)
		}
		return n
	}
}

func (t *tparser) closeBlock(sg *tseg) []tnode {
	body, end := t.parseBody()
	if end == nil || (end.text != "end" && end.text != "}") {
		t.e.fail(sg.pos, "template: unterminated block")
	}
	return body
}

func (t *tparser) eachNode(sg *tseg, list, v1, v2 string) tnode {
	n := &tEach{list: t.expr(sg, list), vars: []string{v1}}
	if v2 != "" {
		n.vars = append(n.vars, v2)
	}
	old := map[string]bool{}
	for k, v := range t.loops {
		old[k] = v
	}
	for _, v := range n.vars {
		t.loops[v] = true
	}
	n.body = t.closeBlock(sg)
	t.loops = old
	return n
}

func (t *tparser) eppParams(sg *tseg, src string) []*syntax.Param {
	var out []*syntax.Param
	for _, part := range strings.Split(src, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, def, hasDef := strings.Cut(part, "=")
		fields := strings.Fields(name)
		if len(fields) == 0 || !strings.HasPrefix(fields[len(fields)-1], "$") {
			t.e.fail(sg.pos, "template: bad parameter %q", part)
		}
		p := &syntax.Param{P: sg.pos, Name: strings.TrimPrefix(fields[len(fields)-1], "$")}
		if hasDef {
			p.Default = t.expr(sg, strings.TrimSpace(def))
		}
		out = append(out, p)
	}
	return out
}

func (t *tparser) expr(sg *tseg, src string) syntax.Node {
	if !t.epp {
		src = t.rubyToPuppet(sg, src)
	}
	x, err := syntax.ParseExpr(sg.pos, src)
	if err != nil {
		panic(err)
	}
	return x
}

// rubyToPuppet rewrites a Ruby expression of the ERB subset into Puppet.
func (t *tparser) rubyToPuppet(sg *tseg, src string) string {
	var b strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if c == '"' && strings.Contains(src[i:min(j, len(src))], "#{") {
				panic(syntax.Unsupported(sg.pos, "Ruby string interpolation in a template"))
			}
			b.WriteString(src[i:min(j+1, len(src))])
			i = j + 1
		case strings.HasPrefix(src[i:], "&&"):
			b.WriteString(" and ")
			i += 2
		case strings.HasPrefix(src[i:], "||"):
			b.WriteString(" or ")
			i += 2
		case strings.HasPrefix(src[i:], "scope["):
			end := strings.IndexByte(src[i:], ']')
			if end < 0 {
				panic(syntax.Unsupported(sg.pos, "template expression '"+src+"'"))
			}
			name := strings.Trim(src[i+6:i+end], `'"`)
			b.WriteString("$" + strings.TrimPrefix(name, "::"))
			i += end + 1
		case c == '@' || isIdentStart(c):
			j := i + 1
			for j < len(src) && (isIdentStart(src[j]) || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			w := src[i:j]
			switch {
			case c == '@':
				b.WriteString("$" + w[1:])
			case w == "nil":
				b.WriteString("undef")
			case w == "true" || w == "false" || w == "and" || w == "or":
				b.WriteString(w)
			case w == "not":
				b.WriteString("!")
			case t.loops[w]:
				b.WriteString("$" + w)
			default:
				panic(syntax.Unsupported(sg.pos, "Ruby expression '"+src+"' in a template"))
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// renderTemplate renders an ERB (or EPP) template in scope s.
func (e *evaluator) renderTemplate(s *scope, p syntax.Pos, file, src string, epp bool, params *hash) string {
	segs, err := scanTemplate(file, src)
	if err != nil {
		panic(err)
	}
	t := &tparser{e: e, segs: segs, epp: epp, loops: map[string]bool{}}
	body, end := t.parseBody()
	if end != nil {
		e.fail(end.pos, "template: unexpected '%s'", end.text)
	}
	ts := newScope(s, s.dyn, s.container)
	if epp {
		ts = newScope(e.top, s.dyn, s.container)
		given := map[string]any{}
		if params != nil {
			for _, k := range params.keys {
				given[k] = params.m[k]
			}
		}
		for _, prm := range t.param {
			if v, ok := given[prm.Name]; ok {
				ts.vars[prm.Name] = v
			} else if prm.Default != nil {
				ts.vars[prm.Name] = e.expr(ts, prm.Default)
			} else {
				e.fail(p, "epp template %s expects a value for parameter '%s'", file, prm.Name)
			}
		}
		if t.param == nil {
			for k, v := range given {
				ts.vars[k] = v
			}
		}
	}
	var b strings.Builder
	e.renderNodes(ts, body, &b, epp)
	return b.String()
}

func (e *evaluator) renderNodes(s *scope, nodes []tnode, b *strings.Builder, epp bool) {
	for _, n := range nodes {
		switch x := n.(type) {
		case tText:
			b.WriteString(string(x))
		case *tOut:
			v := e.expr(s, x.x)
			if epp {
				b.WriteString(toString(v))
			} else {
				b.WriteString(rubyString(v))
			}
		case *tIf:
			done := false
			for i, c := range x.conds {
				if truthy(e.expr(s, c)) != x.not {
					e.renderNodes(s, x.bodies[i], b, epp)
					done = true
					break
				}
			}
			if !done {
				e.renderNodes(s, x.els, b, epp)
			}
		case *tEach:
			e.renderEach(s, x, b, epp)
		}
	}
}

func (e *evaluator) renderEach(s *scope, x *tEach, b *strings.Builder, epp bool) {
	v := e.expr(s, x.list)
	iter := func(a, c any) {
		ls := newScope(s, s.dyn, s.container)
		if len(x.vars) == 1 {
			ls.vars[x.vars[0]] = a
			if c != nil {
				ls.vars[x.vars[0]] = []any{a, c}
			}
		} else {
			ls.vars[x.vars[0]], ls.vars[x.vars[1]] = a, c
		}
		e.renderNodes(ls, x.body, b, epp)
	}
	switch l := v.(type) {
	case []any:
		for i, el := range l {
			if len(x.vars) == 2 {
				iter(int64(i), el)
			} else {
				iter(el, nil)
			}
		}
	case *hash:
		for _, k := range l.keys {
			iter(k, l.m[k])
		}
	case nil:
	default:
		iter(v, nil)
	}
}

// rubyString renders a value as Ruby's to_s would in an ERB output tag.
func rubyString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = rubyInspect(el)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *hash:
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = rubyInspect(k) + "=>" + rubyInspect(x.m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return toString(v)
}

func rubyInspect(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "nil"
	}
	return rubyString(v)
}
