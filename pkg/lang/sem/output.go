package sem

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// output collects the resources and edges of one evaluation pass.
type output struct {
	res   map[graph.Ref]*outRes
	edges []*outEdge
}

type outRes struct {
	r   *graph.Resource
	pos ast.Pos
}

type outEdge struct {
	e   graph.Edge
	pos ast.Pos
}

// walk walks every statement; a pending statement does not stop the
// others (so that all streams start), but makes the whole walk pending.
func (p *progIR) walk(ps *pass, rs *rscope) error {
	if ps.depth >= maxEvalDepth {
		return at(p.pos, errTooDeep)
	}
	ps.depth++
	defer func() { ps.depth-- }()
	pending := false
	for _, st := range p.stmts {
		if err := st.walk(ps, rs); err != nil {
			if err != errPending {
				return err
			}
			pending = true
		}
	}
	if pending {
		return errPending
	}
	return nil
}

// names evaluates a resource or edge name, a str or a []str, appending
// the names to buf[:0] (room for one saves an allocation for a str).
func names(p *pass, rs *rscope, n node, buf []string) ([]string, error) {
	v, err := p.eval(n, rs)
	if err != nil {
		return nil, err
	}
	out := buf[:0]
	switch v := v.(type) {
	case values.Str:
		return append(out, string(v)), nil
	case *values.List:
		for _, e := range v.V {
			out = append(out, string(e.(values.Str)))
		}
		return out, nil
	}
	return nil, fmt.Errorf("a resource name must be a str or a []str, got %s", v.Type())
}

func cond(p *pass, rs *rscope, c node) (bool, error) {
	if c == nil {
		return true, nil
	}
	v, err := p.eval(c, rs)
	if err != nil {
		return false, err
	}
	return bool(v.(values.Bool)), nil
}

// collected returns the resources a collect statement gets from the
// world: the exported resources, as graph-document JSON objects.
func (n *resIR) collected(p *pass, rs *rscope) ([]*graph.Resource, error) {
	v, err := p.eval(n.collect, rs)
	if err != nil {
		return nil, err
	}
	var out []*graph.Resource
	for _, row := range v.(*values.List).V {
		data, _ := row.(*values.Struct).Lookup("data")
		r := &graph.Resource{}
		if err := json.Unmarshal([]byte(data.(values.Str)), r); err != nil {
			return nil, at(n.pos, fmt.Errorf("collected resource: %v", err))
		}
		if r.Kind == "" {
			r.Kind = n.kind
		}
		out = append(out, r)
	}
	return out, nil
}

func (n *resIR) walk(p *pass, rs *rscope) error {
	if n.collect != nil {
		return n.walkCollect(p, rs)
	}
	var nb [1]string
	ns, err := names(p, rs, n.name, nb[:])
	if err != nil {
		return at(n.pos, err)
	}
	if len(ns) == 0 {
		return nil
	}
	if n.unknown != "" {
		return at(n.pos, fmt.Errorf("cannot create resource kind `%s` with name `%s`: %s", n.kind, ns[0], n.unknown))
	}
	params, err := n.params(p, rs)
	if err != nil {
		return err
	}
	meta, err := n.meta(p, rs)
	if err != nil {
		return err
	}
	for _, name := range ns {
		if name == "" {
			return at(n.pos, fmt.Errorf("resource %s has an empty name", n.kind))
		}
		r := &graph.Resource{Kind: n.kind, Name: name, Params: params, Meta: meta}
		if len(params) == 0 {
			r.Params = nil
		}
		if err := n.emit(p, rs, r); err != nil {
			return err
		}
	}
	return nil
}

// params evaluates the statement's fields whose condition holds.
func (n *resIR) params(p *pass, rs *rscope) (map[string]any, error) {
	params := make(map[string]any, len(n.fields))
	for _, f := range n.fields {
		ok, err := cond(p, rs, f.cond)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := p.eval(f.val, rs)
		if err != nil {
			return nil, err
		}
		params[f.key] = values.ToGo(v)
	}
	return params, nil
}

// emit adds r to the output, positioned at the statement, with the
// statement's edges.
func (n *resIR) emit(p *pass, rs *rscope, r *graph.Resource) error {
	r.Pos, r.Origin = n.pos.String(), "mcl"
	if err := p.out.addRes(r, n.pos); err != nil {
		return err
	}
	for _, e := range n.edges {
		if err := n.walkEdge(p, rs, e, r.Ref()); err != nil {
			return err
		}
	}
	return nil
}

// walkCollect adds the collected resources, with the statement's fields
// and metaparameters over theirs.
func (n *resIR) walkCollect(p *pass, rs *rscope) error {
	got, err := n.collected(p, rs)
	if err != nil {
		return err
	}
	if len(got) == 0 {
		return nil
	}
	params, err := n.params(p, rs)
	if err != nil {
		return err
	}
	meta, err := n.meta(p, rs)
	if err != nil {
		return err
	}
	for _, r := range got {
		if len(params) > 0 && r.Params == nil {
			r.Params = map[string]any{}
		}
		for k, v := range params {
			r.Params[k] = v
		}
		if meta != nil {
			r.Meta = meta
		}
		if err := n.emit(p, rs, r); err != nil {
			return err
		}
	}
	return nil
}

func (n *resIR) walkEdge(p *pass, rs *rscope, e *resEdgeIR, self graph.Ref) error {
	ok, err := cond(p, rs, e.cond)
	if err != nil || !ok {
		return err
	}
	var nb [1]string
	others, err := names(p, rs, e.name, nb[:])
	if err != nil {
		return at(e.pos, err)
	}
	for _, o := range others {
		other := graph.Ref{Kind: e.kind, Name: o}
		var ge graph.Edge
		switch e.prop {
		case "before":
			ge = graph.Edge{From: self, To: other}
		case "notify":
			ge = graph.Edge{From: self, To: other, Notify: true}
		case "depend":
			ge = graph.Edge{From: other, To: self}
		case "listen":
			ge = graph.Edge{From: other, To: self, Notify: true}
		}
		p.out.edges = append(p.out.edges, &outEdge{e: ge, pos: e.pos})
	}
	return nil
}

func (n *resIR) meta(p *pass, rs *rscope) (*graph.Meta, error) {
	if len(n.metas) == 0 {
		return nil, nil
	}
	m := &graph.Meta{}
	for _, mi := range n.metas {
		ok, err := cond(p, rs, mi.cond)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := p.eval(mi.val, rs)
		if err != nil {
			return nil, err
		}
		if mi.prop == "" {
			s := v.(*values.Struct)
			for i, f := range s.T.Fields {
				if err := setMeta(m, f.Name, s.V[i]); err != nil {
					return nil, at(mi.pos, err)
				}
			}
			continue
		}
		if err := setMeta(m, mi.prop, v); err != nil {
			return nil, at(mi.pos, err)
		}
	}
	if reflect.DeepEqual(m, &graph.Meta{}) {
		return nil, nil
	}
	return m, nil
}

func setMeta(m *graph.Meta, prop string, v values.Value) error {
	strs := func() []string {
		var out []string
		for _, e := range v.(*values.List).V {
			out = append(out, string(e.(values.Str)))
		}
		return out
	}
	switch prop {
	case "noop":
		m.Noop = bool(v.(values.Bool))
	case "retry":
		i := int64(v.(values.Int))
		if i < -1 || i > 32767 {
			return fmt.Errorf("Meta:retry %d out of range", i)
		}
		m.Retry = int16(i)
	case "retryreset":
		m.RetryReset = bool(v.(values.Bool))
	case "delay", "timeout":
		i := int64(v.(values.Int))
		if i < 0 {
			return fmt.Errorf("Meta:%s cannot be negative (%d)", prop, i)
		}
		if prop == "delay" {
			m.Delay = uint64(i)
		} else {
			m.Timeout = uint64(i)
		}
	case "poll":
		i := int64(v.(values.Int))
		if i < -1 || i > 1<<31-1 {
			return fmt.Errorf("Meta:poll %d out of range", i)
		}
		m.Poll = int32(i)
	case "limit":
		f := float64(v.(values.Float))
		m.Limit = &f
	case "burst":
		m.Burst = int(v.(values.Int))
	case "reset":
		m.Reset = bool(v.(values.Bool))
	case "sema":
		m.Sema = strs()
	case "rewatch":
		m.Rewatch = bool(v.(values.Bool))
	case "realize":
		m.Realize = bool(v.(values.Bool))
	case "dollar":
		m.Dollar = bool(v.(values.Bool))
	case "hidden":
		m.Hidden = bool(v.(values.Bool))
	case "export":
		m.Export = strs()
	case "reverse":
		m.Reverse = bool(v.(values.Bool))
	case "autoedge":
		b := bool(v.(values.Bool))
		m.AutoEdge = &b
	case "autogroup":
		b := bool(v.(values.Bool))
		m.AutoGroup = &b
	default:
		return fmt.Errorf("unknown metaparameter %q", prop)
	}
	return nil
}

func (o *output) addRes(r *graph.Resource, pos ast.Pos) error {
	old, dup := o.res[r.Ref()]
	if !dup {
		o.res[r.Ref()] = &outRes{r: r, pos: pos}
		return nil
	}
	m, ok := graph.MergeDuplicate(old.r, r)
	if !ok {
		return at(pos, fmt.Errorf("inequivalent duplicate resource `%s` found (first at %s)", r.Ref(), old.pos))
	}
	old.r = m
	return nil
}

func (n *edgeIR) walk(p *pass, rs *rscope) error {
	var prev []graph.Ref
	var nb [1]string
	var refs [2][1]graph.Ref // the sides' references, without allocating for single names
	for i, h := range n.halves {
		ns, err := names(p, rs, h.name, nb[:])
		if err != nil {
			return at(h.pos, err)
		}
		cur := refs[i%2][:0]
		for _, name := range ns {
			cur = append(cur, graph.Ref{Kind: h.kind, Name: name})
		}
		if i > 0 {
			for _, a := range prev {
				for _, b := range cur {
					e := graph.Edge{From: a, To: b}
					if h.field != "" {
						e.Send, e.Recv = n.halves[0].field, h.field
					}
					p.out.edges = append(p.out.edges, &outEdge{e: e, pos: n.pos})
				}
			}
		}
		prev = cur
	}
	return nil
}

func (n *ifStmtIR) walk(p *pass, rs *rscope) error {
	c, err := p.eval(n.cond, rs)
	if err != nil {
		return err
	}
	if c.(values.Bool) {
		return n.then.walk(p, newRScope(n.then.scope, rs, funcs.JoinKey(rs.key, "t")))
	}
	if n.els != nil {
		return n.els.walk(p, newRScope(n.els.scope, rs, funcs.JoinKey(rs.key, "e")))
	}
	return nil
}

func (n *forIR) walk(p *pass, rs *rscope) error {
	v, err := p.eval(n.list, rs)
	if err != nil {
		return err
	}
	iter := func(i int, a, b values.Value) error {
		key := funcs.JoinKey(rs.key, fmt.Sprintf("f%d.%d", n.id, i))
		ps := newRScope(n.pscope, rs, key)
		ps.cells[0] = cell{state: 2, v: a}
		ps.cells[1] = cell{state: 2, v: b}
		return n.body.walk(p, newRScope(n.body.scope, ps, key))
	}
	if n.kv {
		m := v.(*values.Map)
		for i := range m.Keys {
			if err := iter(i, m.Keys[i], m.Vals[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for i, e := range v.(*values.List).V {
		if err := iter(i, values.Int(i), e); err != nil {
			return err
		}
	}
	return nil
}

func (n *includeWalkIR) walk(p *pass, rs *rscope) error {
	if n.alias != nil {
		owner := rs.find(n.alias.scope)
		inst, err := p.alias(owner, n.alias)
		if err != nil {
			return err
		}
		return n.alias.include.body.walk(p, inst)
	}
	inst, err := p.instance(n.inc, rs)
	if err != nil {
		return err
	}
	return n.inc.body.walk(p, inst)
}

func (n *panicIR) walk(p *pass, rs *rscope) error {
	args, err := p.evalArgs(n.args, rs)
	if err != nil {
		return err
	}
	switch v := args[0].(type) {
	case values.Bool:
		if v {
			msg := "panic"
			if len(args) == 2 {
				msg = string(args[1].(values.Str))
			}
			return at(n.pos, fmt.Errorf("panic: %s", msg))
		}
	case values.Str:
		if v != "" {
			return at(n.pos, fmt.Errorf("panic: %s", string(v)))
		}
	}
	return nil
}

func (n *importIR) walk(p *pass, rs *rscope) error {
	if p.walked[n.mod] {
		return nil
	}
	p.walked[n.mod] = true
	return n.mod.prog.walk(p, p.moduleScope(n.mod))
}

// document builds the sorted graph document of the pass, checking edges.
func (o *output) document() (*graph.Document, error) {
	doc := &graph.Document{Mgmt: graph.Version, Graph: "main"}
	if len(o.res) > 0 {
		doc.Resources = make([]*graph.Resource, 0, len(o.res))
	}
	for _, r := range o.res {
		doc.Resources = append(doc.Resources, r.r)
	}
	graph.SortResources(doc.Resources)
	merged := make(map[graph.EdgeKey]*graph.Edge, len(o.edges))
	var store []graph.Edge // the edges of the document, in one allocation
	recvs := map[string]bool{}
	for _, e := range o.edges {
		if e.e.Recv != "" {
			k := e.e.To.String() + "." + e.e.Recv
			if recvs[k] && merged[e.e.Key()] == nil {
				return nil, at(e.pos, fmt.Errorf("resource: `%s` has duplicate receive on: `%s` param", e.e.To, e.e.Recv))
			}
			recvs[k] = true
		}
		for _, end := range []graph.Ref{e.e.From, e.e.To} {
			if _, ok := o.res[end]; !ok {
				return nil, at(e.pos, fmt.Errorf("edge cannot find resource kind: %s named: `%s`", end.Kind, end.Name))
			}
		}
		if e.e.Send != "" {
			if err := o.checkSendRecv(e); err != nil {
				return nil, err
			}
		}
		// Edges between the same two resources merge; the merged one
		// notifies if any of them does.
		k := e.e.Key()
		if old, ok := merged[k]; ok {
			old.Notify = old.Notify || e.e.Notify
			continue
		}
		if store == nil {
			store = make([]graph.Edge, 0, len(o.edges)) // never grown: the pointers stay
			doc.Edges = make([]*graph.Edge, 0, len(o.edges))
		}
		store = append(store, e.e)
		ec := &store[len(store)-1]
		merged[k] = ec
		doc.Edges = append(doc.Edges, ec)
	}
	graph.SortEdges(doc.Edges)
	return doc, nil
}

func (o *output) checkSendRecv(e *outEdge) error {
	from := o.res[e.e.From]
	if from.r.Meta != nil && from.r.Meta.Hidden {
		return at(e.pos, fmt.Errorf("cannot send from hidden resource: %s", e.e.From))
	}
	return nil
}

// checkSendRecvTypes checks a send/recv edge statement against the schemas.
func (c *checker) checkSendRecvTypes(n *edgeIR) {
	if len(n.halves) != 2 || n.halves[0].field == "" {
		return
	}
	from, to := n.halves[0], n.halves[1]
	fs, ok1 := lookupKind(from.kind)
	ts, ok2 := lookupKind(to.kind)
	if !ok1 || !ok2 {
		return
	}
	if fs.Sends == nil {
		c.typeErrf(n.pos, "cannot send from resource of kind: %s", from.kind)
		return
	}
	if !ts.Recv {
		c.typeErrf(n.pos, "cannot recv to resource of kind: %s", to.kind)
		return
	}
	st, ok := fs.Sends[from.field]
	if !ok {
		c.typeErrf(n.pos, "resource kind %s cannot send %q", from.kind, from.field)
		return
	}
	rt, ok := ts.Params[to.field]
	if !ok {
		c.typeErrf(n.pos, "resource kind %s has no parameter %q", to.kind, to.field)
		return
	}
	if graph.SendCompatible(st, rt) {
		return
	}
	a, err1 := types.Parse(st)
	b, err2 := types.Parse(rt)
	if err1 == nil && err2 == nil && !types.Equal(a, b) {
		c.typeErrf(n.pos, "cannot send %s (%s) to %s (%s)", from.field, a, to.field, strings.TrimSpace(b.String()))
	}
}
