package graph

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefixes of the incremental-Puppet hand-over names.
const (
	// MclMergePrefix starts the name of an mcl noop to merge with a Puppet
	// class: noop "puppet_X" merges with class mgmt_X.
	MclMergePrefix = "puppet_"
	// PuppetMergePrefix starts the name of a Puppet class to merge.
	PuppetMergePrefix = "mgmt_"

	admissiblePrefix = "admissible_Class["
	completedPrefix  = "completed_Class["
)

// An Input is one graph given to Merge, with the name of the stream it came
// from (used in messages).
type Input struct {
	Name string
	Doc  *Document
}

// MergeOptions tune Merge.
type MergeOptions struct {
	// AllowUnmatched turns a mgmt_<X> class without a puppet_<X> noop, and a
	// puppet_<X> noop without a class, into warnings; the unmatched
	// vertices are kept as they are.
	AllowUnmatched bool
}

// Merge unions graphs and merges the incremental-Puppet hand-over vertices.
//
// Union: resources and edges of every input; identical duplicate resources
// collapse, conflicting ones are an error naming both inputs and
// positions; repeated edges collapse (notify is or-ed).
//
// Hand-over: a noop named puppet_<X> (from any input) merges with the
// Puppet class mgmt_<X>, which arrives as the noops
// admissible_Class[Mgmt_<X>] and completed_Class[Mgmt_<X>] (Puppet
// capitalises each "::" segment of the title; matching compares that
// form). The merged vertex is one noop named <X> with the mcl noop's
// params, meta, pos and origin. It takes over every edge of the mcl noop,
// every incoming edge of the admissible whit and every outgoing edge of the
// completed whit; the edge between the two whits disappears. It is an
// error for the class to be non-empty (anything ordered between its two
// whits); it is an error, or with AllowUnmatched a warning, for a class or
// a noop to have no partner. Nothing else is dropped.
//
// Inputs are validated first (in place, see Validate), always: nothing of
// an earlier Validate is trusted, since a document may have changed since.
// The result is named after the inputs' graph names joined by "+"; it is
// checked for repeated edges and cycles (a merge can close one). Warnings
// are returned apart from the error.
func Merge(opts MergeOptions, inputs ...Input) (*Document, []string, error) {
	n := 0
	for _, in := range inputs {
		if in.Doc != nil {
			n += len(in.Doc.Resources)
		}
	}
	m := &merger{opts: opts, inputs: inputs, ids: newRefMapSize[int32](n), at: make([]int32, 0, n), order: make([]*Resource, 0, n)}
	var names []string
	for i, in := range inputs {
		switch {
		case in.Doc == nil:
			m.errs.Add("", "input %s has no graph", in.Name)
			continue
		case in.Doc.IsError():
			m.errs.Add(in.Doc.Error.Pos, "input %s: %s", in.Name, in.Doc.Error.Message)
			continue
		}
		pairs, err := in.Doc.ValidatePairs(nil)
		if err != nil {
			if l, ok := err.(ErrorList); ok {
				m.errs = append(m.errs, l...)
			} else {
				m.errs.Add("", "input %s: %v", in.Name, err)
			}
			continue
		}
		if in.Doc.Graph != "" {
			names = append(names, in.Doc.Graph)
		}
		m.union(i, pairs)
	}
	if len(m.errs) > 0 {
		return nil, nil, m.errs
	}
	m.handover()
	if len(m.errs) > 0 {
		return nil, m.warnings, m.errs
	}
	out := &Document{Mgmt: Version, Graph: strings.Join(names, "+")}
	out.Resources, out.Edges, m.pairs = m.apply()
	out.Edges, m.pairs = dedupPairs(len(out.Resources), out.Edges, m.pairs)
	if hasCycle(len(out.Resources), m.pairs) {
		return nil, m.warnings, cycleErrors(out)
	}
	return out, m.warnings, nil
}

// merger holds the union of the inputs: resources get ids (their index in
// order), and edges are kept with the ids of their ends, so that the
// hand-over and the final checks work on integers.
type merger struct {
	opts   MergeOptions
	inputs []Input
	ids    *refMap[int32]
	order  []*Resource
	at     []int32 // input index of each resource
	edges  []*Edge
	pairs  [][2]int32 // ids of the ends of each edge

	// The hand-over: merged noop id -> its class; whit id -> merged noop id.
	targets map[int32]*whitPair
	whitTo  map[int32]int32

	errs     ErrorList
	warnings []string
}

// union adds input i, whose edge ends have the (input-local) ids pairs.
func (m *merger) union(i int, pairs [][2]int32) {
	in := m.inputs[i]
	local := make([]int32, len(in.Doc.Resources))
	for li, r := range in.Doc.Resources {
		ref := r.Ref()
		if id, dup := m.ids.get(ref); dup {
			if merged, ok := MergeDuplicate(m.order[id], r); ok {
				m.order[id] = merged
			} else {
				m.errs.Add(r.Where(), "resource %s from %s differs from the one from %s at %s",
					ref, in.Name, m.inputs[m.at[id]].Name, orUnknown(m.order[id].Where()))
			}
			local[li] = id
			continue
		}
		local[li] = int32(len(m.order))
		m.ids.set(ref, local[li])
		m.order = append(m.order, r)
		m.at = append(m.at, int32(i))
	}
	for ei, e := range in.Doc.Edges {
		p := pairs[ei]
		m.edges = append(m.edges, e)
		m.pairs = append(m.pairs, [2]int32{local[p[0]], local[p[1]]})
	}
}

// inputOf returns the name of the input resource id came from.
func (m *merger) inputOf(id int32) string { return m.inputs[m.at[id]].Name }

// CapitalizeTitle spells a Puppet class title the way Puppet writes it in
// a reference: each "::" segment starts with an upper case letter.
func CapitalizeTitle(title string) string {
	segs := strings.Split(title, "::")
	for i, s := range segs {
		r, n := utf8.DecodeRuneInString(s)
		if n > 0 {
			segs[i] = string(unicode.ToUpper(r)) + s[n:]
		}
	}
	return strings.Join(segs, "::")
}

// whitTitle returns the class title of a hand-over whit and whether the
// whit is the admissible one; ok is false for any other resource.
func whitTitle(r *Resource) (title string, admissible, ok bool) {
	if r.Kind != "noop" || !strings.HasSuffix(r.Name, "]") {
		return "", false, false
	}
	prefix := CapitalizeTitle(PuppetMergePrefix)
	for _, p := range []string{admissiblePrefix, completedPrefix} {
		if t, found := strings.CutPrefix(r.Name, p); found && strings.HasPrefix(t, prefix) {
			return strings.TrimSuffix(t, "]"), p == admissiblePrefix, true
		}
	}
	return "", false, false
}

// A whitPair is a Puppet class to merge: its two whits and its mcl noop
// (ids, -1 when missing).
type whitPair struct {
	title             string
	adm, comp, target int32
}

// handover finds the classes and noops to merge and checks them.
func (m *merger) handover() {
	targets := map[string]int32{} // capitalised class title -> mcl noop
	pairs := map[string]*whitPair{}
	var pairOrder []*whitPair
	for id, r := range m.order {
		if r.Kind != "noop" {
			continue
		}
		if x, ok := strings.CutPrefix(r.Name, MclMergePrefix); ok {
			key := CapitalizeTitle(PuppetMergePrefix + x)
			if other, dup := targets[key]; dup {
				m.errs.Add(r.Where(), "noops %s and %s both match class %s", m.order[other].Ref(), r.Ref(), strings.ToLower(key))
				continue
			}
			targets[key] = int32(id)
			continue
		}
		title, adm, ok := whitTitle(r)
		if !ok {
			continue
		}
		key := CapitalizeTitle(title)
		p := pairs[key]
		if p == nil {
			p = &whitPair{title: title, adm: -1, comp: -1, target: -1}
			pairs[key] = p
			pairOrder = append(pairOrder, p)
		}
		if adm {
			p.adm = int32(id)
		} else {
			p.comp = int32(id)
		}
	}
	if len(pairOrder) == 0 && len(targets) == 0 {
		return
	}
	m.targets, m.whitTo = map[int32]*whitPair{}, map[int32]int32{}
	for _, p := range pairOrder {
		key := CapitalizeTitle(p.title)
		if t, ok := targets[key]; ok {
			p.target = t
			delete(targets, key)
		}
		if m.checkPair(p) {
			m.targets[p.target] = p
			m.whitTo[p.adm] = p.target
			m.whitTo[p.comp] = p.target
		}
	}
	m.checkEmpty()
	var left []int32
	for _, id := range targets {
		left = append(left, id)
	}
	slices.Sort(left)
	for _, id := range left {
		x := strings.TrimPrefix(m.order[id].Name, MclMergePrefix)
		m.unmatched(id, "unmatched noop %s: no class %s%s in any input", m.order[id].Ref(), PuppetMergePrefix, x)
	}
}

func (m *merger) unmatched(id int32, format string, args ...any) {
	msg := fmt.Sprintf(format, args...) + " (" + m.order[id].Ref().String() + " from " + m.inputOf(id) + ")"
	pos := m.order[id].Where()
	if m.opts.AllowUnmatched {
		m.warnings = append(m.warnings, (&PosError{Pos: pos, Msg: msg}).Error())
		return
	}
	m.errs.Add(pos, "%s", msg)
}

// checkPair reports whether a class has both whits and a noop to merge
// with, and that the merged name is free.
func (m *merger) checkPair(p *whitPair) bool {
	class := strings.ToLower(p.title)
	if p.adm < 0 || p.comp < 0 {
		have, miss := p.adm, completedPrefix
		if have < 0 {
			have, miss = p.comp, admissiblePrefix
		}
		m.errs.Add(m.order[have].Where(), "class %s: %s has no partner noop[%s%s]] (from %s)", class, m.order[have].Ref(), miss, p.title, m.inputOf(have))
		return false
	}
	if p.target < 0 {
		m.unmatched(p.adm, "unmatched class %s: no noop[%s%s] in any input",
			class, MclMergePrefix, strings.TrimPrefix(class, PuppetMergePrefix))
		return false
	}
	name := strings.TrimPrefix(m.order[p.target].Name, MclMergePrefix)
	if id, clash := m.ids.get(Ref{Kind: "noop", Name: name}); clash {
		m.errs.Add(m.order[id].Where(), "merged vertex noop[%s] of class %s clashes with noop[%s] from %s", name, class, name, m.inputOf(id))
		return false
	}
	return true
}

// checkEmpty reports classes to merge that are not empty: something is
// ordered after the admissible whit or before the completed whit.
func (m *merger) checkEmpty() {
	bad := map[*whitPair]bool{}
	for i, p := range m.pairs {
		if t, ok := m.whitTo[p[0]]; ok {
			if w := m.targets[t]; p[0] == w.adm && p[1] != w.comp && !bad[w] {
				bad[w] = true
				m.errs.Add(m.order[w.adm].Where(), "class %s is not empty, start is followed by %s (from %s)",
					strings.ToLower(w.title), m.edges[i].To, m.inputOf(w.adm))
			}
		}
		if t, ok := m.whitTo[p[1]]; ok {
			if w := m.targets[t]; p[1] == w.comp && p[0] != w.adm && !bad[w] {
				bad[w] = true
				m.errs.Add(m.order[w.comp].Where(), "class %s is not empty, end is preceded by %s (from %s)",
					strings.ToLower(w.title), m.edges[i].From, m.inputOf(w.comp))
			}
		}
	}
}

// apply builds the merged resources and edges: each mcl noop to merge is
// renamed (a copy), whits disappear into it, and edges are redirected; the
// edge between the two whits of a class is dropped.
func (m *merger) apply() ([]*Resource, []*Edge, [][2]int32) {
	if len(m.targets) == 0 {
		return m.order, m.edges, m.pairs
	}
	newID := make([]int32, len(m.order))
	out := make([]*Resource, 0, len(m.order))
	for id, r := range m.order {
		if _, whit := m.whitTo[int32(id)]; whit {
			continue
		}
		if _, ok := m.targets[int32(id)]; ok {
			c := *r
			c.Name = strings.TrimPrefix(r.Name, MclMergePrefix)
			r = &c
		}
		newID[id] = int32(len(out))
		out = append(out, r)
	}
	for whit, target := range m.whitTo {
		newID[whit] = newID[target]
	}
	moved := func(id int32) bool {
		_, w := m.whitTo[id]
		_, t := m.targets[id]
		return w || t
	}
	edges := m.edges[:0:0]
	pairs := m.pairs[:0:0]
	for i, e := range m.edges {
		p := m.pairs[i]
		f, t := newID[p[0]], newID[p[1]]
		if mf, mt := moved(p[0]), moved(p[1]); mf || mt {
			_, tf := m.targets[p[0]]
			_, tt := m.targets[p[1]]
			if f == t && !(tf && tt) {
				continue // the edge between the whits of a class
			}
			c := *e
			c.From, c.To = out[f].Ref(), out[t].Ref()
			e = &c
		}
		edges = append(edges, e)
		pairs = append(pairs, [2]int32{f, t})
	}
	return out, edges, pairs
}
