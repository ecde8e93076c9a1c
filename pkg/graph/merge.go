package graph

import (
	"fmt"
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
// The result is named after the inputs' graph names joined by "+", and is
// validated (a merge can close a cycle). Warnings are returned apart from
// the error.
func Merge(opts MergeOptions, inputs ...Input) (*Document, []string, error) {
	m := &merger{opts: opts, at: map[Ref]int{}, res: map[Ref]*Resource{}}
	var names []string
	for i, in := range inputs {
		if in.Doc == nil {
			m.errs.Add("", "input %s has no graph", in.Name)
			continue
		}
		if in.Doc.IsError() {
			m.errs.Add(in.Doc.Error.Pos, "input %s: %s", in.Name, in.Doc.Error.Message)
			continue
		}
		if in.Doc.Graph != "" {
			names = append(names, in.Doc.Graph)
		}
		m.union(i, inputs)
	}
	if len(m.errs) > 0 {
		return nil, nil, m.errs
	}
	m.handover(inputs)
	if len(m.errs) > 0 {
		return nil, m.warnings, m.errs
	}
	out := &Document{Mgmt: Version, Graph: strings.Join(names, "+"), Resources: m.order, Edges: m.edges}
	if err := out.Validate(); err != nil {
		return nil, m.warnings, err
	}
	return out, m.warnings, nil
}

type merger struct {
	opts     MergeOptions
	res      map[Ref]*Resource
	at       map[Ref]int // input index of each resource
	order    []*Resource
	edges    []*Edge
	errs     ErrorList
	warnings []string
}

func (m *merger) union(i int, inputs []Input) {
	in := inputs[i]
	for _, r := range in.Doc.Resources {
		if r == nil {
			continue
		}
		ref := r.Ref()
		if first, dup := m.res[ref]; dup {
			if !EqualResource(first, r) {
				m.errs.Add(r.Where(), "resource %s from %s differs from the one from %s at %s",
					ref, in.Name, inputs[m.at[ref]].Name, orUnknown(first.Where()))
			}
			continue
		}
		m.res[ref] = r
		m.at[ref] = i
		m.order = append(m.order, r)
	}
	for _, e := range in.Doc.Edges {
		if e != nil {
			c := *e
			m.edges = append(m.edges, &c)
		}
	}
}

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
	cap := CapitalizeTitle(PuppetMergePrefix)
	for _, p := range []string{admissiblePrefix, completedPrefix} {
		if t, found := strings.CutPrefix(r.Name, p); found && strings.HasPrefix(t, cap) {
			return strings.TrimSuffix(t, "]"), p == admissiblePrefix, true
		}
	}
	return "", false, false
}

type whitPair struct {
	title     string
	adm, comp *Resource
	target    *Resource
}

// handover merges the hand-over vertices of the union.
func (m *merger) handover(inputs []Input) {
	targets := map[string]*Resource{} // capitalised class title -> mcl noop
	pairs := map[string]*whitPair{}
	var pairOrder []*whitPair
	for _, r := range m.order {
		if r.Kind == "noop" && strings.HasPrefix(r.Name, MclMergePrefix) {
			key := CapitalizeTitle(PuppetMergePrefix + strings.TrimPrefix(r.Name, MclMergePrefix))
			if other, dup := targets[key]; dup {
				m.errs.Add(r.Where(), "noops %s and %s both match class %s", other.Ref(), r.Ref(), strings.ToLower(key))
				continue
			}
			targets[key] = r
			continue
		}
		title, adm, ok := whitTitle(r)
		if !ok {
			continue
		}
		key := CapitalizeTitle(title)
		p := pairs[key]
		if p == nil {
			p = &whitPair{title: title}
			pairs[key] = p
			pairOrder = append(pairOrder, p)
		}
		if adm {
			p.adm = r
		} else {
			p.comp = r
		}
	}
	rename := map[Ref]Ref{}
	merged := map[Ref]bool{} // the mcl noops that become merged vertices
	for _, p := range pairOrder {
		key := CapitalizeTitle(p.title)
		p.target = targets[key]
		if m.checkPair(p, inputs) {
			to := Ref{Kind: "noop", Name: strings.TrimPrefix(p.target.Name, MclMergePrefix)}
			rename[p.target.Ref()] = to
			rename[p.adm.Ref()] = to
			rename[p.comp.Ref()] = to
			merged[p.target.Ref()] = true
		}
		delete(targets, key)
	}
	for _, r := range m.order {
		if t, ok := targets[CapitalizeTitle(PuppetMergePrefix+strings.TrimPrefix(r.Name, MclMergePrefix))]; ok && t == r {
			m.unmatched(r, inputs, "noop %s has no partner: no class %s%s in any input",
				r.Ref(), PuppetMergePrefix, strings.TrimPrefix(r.Name, MclMergePrefix))
		}
	}
	if len(m.errs) > 0 || len(rename) == 0 {
		return
	}
	m.apply(rename, merged, inputs)
}

func (m *merger) unmatched(r *Resource, inputs []Input, format string, args ...any) {
	msg := fmt.Sprintf(format, args...) + " (from " + inputs[m.at[r.Ref()]].Name + ")"
	if m.opts.AllowUnmatched {
		m.warnings = append(m.warnings, (&PosError{Pos: r.Where(), Msg: msg}).Error())
		return
	}
	m.errs.Add(r.Where(), "%s", msg)
}

// checkPair reports whether a class can merge with its noop.
func (m *merger) checkPair(p *whitPair, inputs []Input) bool {
	class := strings.ToLower(p.title)
	if p.adm == nil || p.comp == nil {
		have, miss := p.adm, completedPrefix
		if have == nil {
			have, miss = p.comp, admissiblePrefix
		}
		m.errs.Add(have.Where(), "class %s: %s has no partner noop[%s%s]] (from %s)", class, have.Ref(), miss, p.title, inputs[m.at[have.Ref()]].Name)
		return false
	}
	if p.target == nil {
		m.unmatched(p.adm, inputs, "unmatched class %s: no noop[%s%s] in any input",
			class, MclMergePrefix, strings.TrimPrefix(class, PuppetMergePrefix))
		return false
	}
	admRef, compRef := p.adm.Ref(), p.comp.Ref()
	for _, e := range m.edges {
		if e.From == admRef && e.To != compRef {
			m.errs.Add(p.adm.Where(), "class %s is not empty, start is followed by %s (from %s)", class, e.To, inputs[m.at[admRef]].Name)
			return false
		}
		if e.To == compRef && e.From != admRef {
			m.errs.Add(p.comp.Where(), "class %s is not empty, end is preceded by %s (from %s)", class, e.From, inputs[m.at[compRef]].Name)
			return false
		}
	}
	name := strings.TrimPrefix(p.target.Name, MclMergePrefix)
	if other, clash := m.res[Ref{Kind: "noop", Name: name}]; clash {
		m.errs.Add(other.Where(), "merged vertex noop[%s] of class %s clashes with noop[%s] from %s", name, class, name, inputs[m.at[other.Ref()]].Name)
		return false
	}
	return true
}

// apply renames merged noops, drops the whits and rewrites the edges.
func (m *merger) apply(rename map[Ref]Ref, merged map[Ref]bool, inputs []Input) {
	out := m.order[:0]
	for _, r := range m.order {
		to, ok := rename[r.Ref()]
		if !ok {
			out = append(out, r)
			continue
		}
		if merged[r.Ref()] {
			c := *r
			c.Name = to.Name
			out = append(out, &c)
		}
	}
	m.order = out
	edges := m.edges[:0]
	for _, e := range m.edges {
		from, okF := rename[e.From]
		to, okT := rename[e.To]
		if !okF && !okT {
			edges = append(edges, e)
			continue
		}
		origFrom, origTo := e.From, e.To
		if okF {
			e.From = from
		}
		if okT {
			e.To = to
		}
		if e.From == e.To && !(merged[origFrom] && merged[origTo]) {
			continue // the edge between the whits of a class
		}
		edges = append(edges, e)
	}
	m.edges = edges
}
