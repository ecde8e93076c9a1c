package graph

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks doc against the rules of wire format v1 and returns an
// ErrorList (nil when doc is valid). It collapses, in place, duplicate
// resources that are identical and edges given more than once (their
// notify flags are or-ed); everything else it reports:
//
//   - the mgmt tag, kind names (lower case letters, digits and '_', in
//     segments separated by ':', starting with a letter) and empty names;
//   - duplicate resources that differ, naming both positions;
//   - parameters of a kind with a registered schema: unknown names and
//     values of the wrong type (an integer is fine for a float);
//   - metaparameters out of range;
//   - edges naming a missing resource, and half send/recv pairs;
//   - cycles, each as the whole cycle in order.
//
// An error document is valid when it has a message.
func (doc *Document) Validate() error {
	var errs ErrorList
	docPos := doc.At.String()
	if doc.Mgmt != Version {
		errs.Add(docPos, "unknown mgmt tag %q, want %q", doc.Mgmt, Version)
		return errs
	}
	if doc.Error != nil {
		if doc.Error.Message == "" {
			errs.Add(docPos, "error document without a message")
		}
		return errs.Err()
	}
	ids := doc.dedupResources(&errs)
	doc.dedupEdges(ids, &errs)
	if len(errs) == 0 {
		x := NewIndex(doc)
		if _, cycles := x.TopoOrder(); cycles != nil {
			for _, c := range cycles {
				errs.Add(x.Lookup(c[0]).Where(), "cycle: %s", CycleString(c))
			}
		}
	}
	return errs.Err()
}

// dedupResources checks every resource and removes identical duplicates.
// It returns the set of refs.
func (doc *Document) dedupResources(errs *ErrorList) map[Ref]*Resource {
	seen := make(map[Ref]*Resource, len(doc.Resources))
	out := doc.Resources[:0]
	for i, r := range doc.Resources {
		if r == nil {
			errs.Add(doc.At.String(), "resources[%d] is null", i)
			continue
		}
		checkResource(r, errs)
		if first, dup := seen[r.Ref()]; dup {
			if !EqualResource(first, r) {
				errs.Add(r.Where(), "duplicate resource %s differs from the one at %s", r.Ref(), orUnknown(first.Where()))
			}
			continue
		}
		seen[r.Ref()] = r
		out = append(out, r)
	}
	clear(doc.Resources[len(out):])
	doc.Resources = out
	return seen
}

func orUnknown(pos string) string {
	if pos == "" {
		return "an unknown position"
	}
	return pos
}

// dedupEdges checks every edge and removes repeated ones.
func (doc *Document) dedupEdges(res map[Ref]*Resource, errs *ErrorList) {
	seen := make(map[EdgeKey]*Edge, len(doc.Edges))
	out := doc.Edges[:0]
	for i, e := range doc.Edges {
		if e == nil {
			errs.Add(doc.At.String(), "edges[%d] is null", i)
			continue
		}
		pos := e.At.String()
		from, okFrom := res[e.From]
		to, okTo := res[e.To]
		if !okFrom {
			errs.Add(pos, "edge %s -> %s: no resource %s", e.From, e.To, e.From)
		}
		if !okTo {
			errs.Add(pos, "edge %s -> %s: no resource %s", e.From, e.To, e.To)
		}
		if (e.Send == "") != (e.Recv == "") {
			errs.Add(pos, "edge %s -> %s: send and recv go together, got send %q and recv %q", e.From, e.To, e.Send, e.Recv)
		} else if e.Send != "" && okFrom && okTo {
			checkSendRecv(e, from, to, errs)
		}
		if first, dup := seen[e.Key()]; dup {
			first.Notify = first.Notify || e.Notify
			continue
		}
		seen[e.Key()] = e
		out = append(out, e)
	}
	clear(doc.Edges[len(out):])
	doc.Edges = out
}

// checkSendRecv checks a send/recv edge against the schemas of both ends.
func checkSendRecv(e *Edge, from, to *Resource, errs *ErrorList) {
	pos := e.At.String()
	fs, okF := LookupKind(from.Kind)
	ts, okT := LookupKind(to.Kind)
	var st, rt string
	if okF {
		if fs.Sends == nil {
			errs.Add(pos, "edge %s: kind %s cannot send values", e, from.Kind)
			return
		}
		if st = fs.Sends[e.Send]; st == "" {
			errs.Add(pos, "edge %s: kind %s sends no key %q%s", e, from.Kind, e.Send, suggest(e.Send, keysOf(fs.Sends)))
			return
		}
	}
	if okT {
		if !ts.Recv {
			errs.Add(pos, "edge %s: kind %s cannot receive values", e, to.Kind)
			return
		}
		if rt = ts.Params[e.Recv]; rt == "" {
			errs.Add(pos, "edge %s: kind %s has no parameter %q%s", e, to.Kind, e.Recv, suggest(e.Recv, keysOf(ts.Params)))
			return
		}
	}
	if st != "" && rt != "" && st != rt && !(st == "int" && rt == "float") {
		errs.Add(pos, "edge %s: sends %s, but %s[%s] parameter %q is %s", e, st, to.Kind, to.Name, e.Recv, rt)
	}
}

// ValidKind reports whether kind follows the naming rule: segments of lower
// case letters, digits and '_', each starting with a letter, separated by ':'.
func ValidKind(kind string) bool {
	if kind == "" {
		return false
	}
	start := true
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		switch {
		case c >= 'a' && c <= 'z':
		case (c >= '0' && c <= '9' || c == '_') && !start:
		case c == ':' && !start && i+1 < len(kind):
			start = true
			continue
		default:
			return false
		}
		start = false
	}
	return true
}

func checkResource(r *Resource, errs *ErrorList) {
	pos := r.Where()
	if !ValidKind(r.Kind) {
		errs.Add(pos, "bad resource kind %q: want lower case letters, digits and '_', starting with a letter, with ':' between segments", r.Kind)
	}
	if r.Name == "" {
		errs.Add(pos, "%s resource with an empty name", r.Kind)
	} else if !utf8.ValidString(r.Name) {
		errs.Add(pos, "%s resource name %q is not valid UTF-8", r.Kind, r.Name)
	}
	if r.Meta != nil {
		checkMeta(r, errs)
	}
	s, ok := LookupKind(r.Kind)
	if !ok {
		return
	}
	for _, k := range sortedKeys(r.Params) {
		v := r.Params[k]
		typ, known := s.Params[k]
		if !known {
			errs.Add(pos, "%s: unknown parameter %q%s", r.Ref(), k, suggest(k, keysOf(s.Params)))
			continue
		}
		t, err := parseMclType(typ)
		if err != nil {
			continue
		}
		if !t.accepts(v) {
			errs.Add(pos, "%s: parameter %q: got %s, want %s", r.Ref(), k, valueType(v), t)
		}
	}
}

func checkMeta(r *Resource, errs *ErrorList) {
	m, pos := r.Meta, r.Where()
	if m.Retry < -1 {
		errs.Add(pos, "%s: meta retry %d: want -1 (forever) or more", r.Ref(), m.Retry)
	}
	if m.Poll < 0 {
		errs.Add(pos, "%s: meta poll %d: want 0 or more seconds", r.Ref(), m.Poll)
	}
	if m.Limit != nil && *m.Limit < 0 {
		errs.Add(pos, "%s: meta limit %v: want 0 or more", r.Ref(), *m.Limit)
	}
	if m.Burst < 0 {
		errs.Add(pos, "%s: meta burst %d: want 0 or more", r.Ref(), m.Burst)
	}
	for _, s := range m.Sema {
		id, size, found := strings.Cut(s, ":")
		if id == "" {
			errs.Add(pos, "%s: meta sema %q: empty id", r.Ref(), s)
			continue
		}
		if n, err := strconv.Atoi(size); found && (err != nil || n < 1) {
			errs.Add(pos, "%s: meta sema %q: size must be a positive integer", r.Ref(), s)
		}
	}
}

// EqualResource reports whether a and b are the same resource with the same
// parameters and metaparameters; pos, origin and read positions do not
// count. A nil Meta equals the zero Meta.
func EqualResource(a, b *Resource) bool {
	if a.Kind != b.Kind || a.Name != b.Name || len(a.Params) != len(b.Params) {
		return false
	}
	for k, v := range a.Params {
		w, ok := b.Params[k]
		if !ok || !equalValue(v, w) {
			return false
		}
	}
	return equalMeta(a.Meta, b.Meta)
}

func equalMeta(a, b *Meta) bool {
	var zero Meta
	if a == nil {
		a = &zero
	}
	if b == nil {
		b = &zero
	}
	x, y := *a, *b
	for _, m := range []*Meta{&x, &y} {
		if len(m.Sema) == 0 {
			m.Sema = nil
		}
		if len(m.Export) == 0 {
			m.Export = nil
		}
	}
	return reflect.DeepEqual(x, y)
}

// equalValue compares parameter values; numbers compare by their text.
func equalValue(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case json.Number:
		b, ok := b.(json.Number)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	}
	return reflect.DeepEqual(a, b)
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// suggest returns ` (did you mean "x"?)` for the closest candidate, if one
// is close enough.
func suggest(name string, candidates []string) string {
	best, bestD := "", len(name)/2+1
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
