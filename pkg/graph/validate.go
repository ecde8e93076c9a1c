package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks doc against the rules of wire format v1 and returns an
// ErrorList (nil when doc is valid). It collapses, in place, duplicate
// resources that are identical or that their kind lets merge (see
// MergeDuplicate), and edges given more than once (their notify flags are
// or-ed); everything else it reports:
//
//   - the mgmt tag, kind names (lower case letters, digits and '_', in
//     segments separated by ':', starting with a letter), empty names and
//     names starting with a $ without Meta:dollar;
//   - duplicate resources that differ (see MergeDuplicate), naming both
//     positions;
//   - parameters of a kind with a registered schema: unknown names and
//     values of the wrong type (an integer is fine for a float);
//   - metaparameters out of range (see Meta.Check);
//   - edges naming a missing resource, half send/recv pairs, and send/recv
//     pairs whose kinds cannot send or receive those values (see
//     SendCompatible);
//   - cycles (a resource depending on itself included), each as the whole
//     cycle in order.
//
// It is the one home of these rules: engine.Build runs it and builds the
// graph it runs from what it accepted, and graph-merge validates every
// input with it.
//
// An error document is valid when it has a message.
func (doc *Document) Validate() error {
	_, err := doc.ValidatePairs(nil)
	return err
}

// ValidatePairs is Validate, and on success also returns the ends of
// every edge of doc as it leaves it (duplicates collapsed): pairs[i] holds
// the indexes in doc.Resources of doc.Edges[i]'s from and to resources,
// so that a program building a graph from doc can link its vertices
// without looking each edge's references up again.
//
// checked, when not nil, names resources that CheckResource already
// accepted and that have not changed since: their checks alone (kind,
// name, metaparameters, parameters) are not run again, as they would
// report nothing. Everything else is checked as Validate checks it, and
// every error is the same.
//
// Nothing of a past validation is kept: a document's resources and edges
// may change in place between two calls. doc.EdgeEnds, when its producer
// set it, spares looking up the ends of the edges it names rightly; it is
// let go of when the validation removes resources or edges.
func (doc *Document) ValidatePairs(checked func(*Resource) bool) ([][2]int32, error) {
	var errs ErrorList
	docPos := doc.At.String()
	if doc.Mgmt != Version {
		errs.Add(docPos, "unknown mgmt tag %q, want %q", doc.Mgmt, Version)
		return nil, errs
	}
	if doc.Error != nil {
		if doc.Error.Message == "" {
			errs.Add(docPos, "error document without a message")
		}
		return nil, errs.Err()
	}
	nRes, nEdges := len(doc.Resources), len(doc.Edges)
	ids := doc.dedupResources(checked, &errs)
	pairs := doc.dedupEdges(ids, &errs)
	if len(doc.Resources) != nRes || len(doc.Edges) != nEdges {
		doc.EdgeEnds = nil // its indexes are those of the lists before
	}
	if len(errs) == 0 && hasCycle(len(doc.Resources), pairs) {
		errs = append(errs, cycleErrors(doc)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return pairs, nil
}

// cycleErrors reports every cycle of doc.
func cycleErrors(doc *Document) ErrorList {
	var errs ErrorList
	x := NewIndex(doc)
	for _, c := range x.Cycles() {
		errs.Add(x.Lookup(c[0]).Where(), "cycle: %s", CycleString(c))
	}
	return errs
}

// dedupResources checks every resource (but those checked reports, see
// ValidatePairs) and removes identical duplicates. It returns the index
// of the resources by ref.
//
// While the resources come in canonical order (strictly increasing refs,
// as encoders write them and producers sort them) a duplicate can only
// be the resource just before, and no map is made: the index is then the
// sorted list itself, and a map only if an edge needs a lookup (see
// resIndex). The first resource out of order starts the map with those
// before it.
func (doc *Document) dedupResources(checked func(*Resource) bool, errs *ErrorList) *resIndex {
	x := &resIndex{}
	out := doc.Resources[:0]
	kinds := map[string]*KindSchema{}
	sorted := true
	for i, r := range doc.Resources {
		if r == nil {
			errs.Add(doc.At.String(), "resources[%d] is null", i)
			continue
		}
		if checked == nil || !checked(r) {
			s, known := kinds[r.Kind]
			if !known {
				s, _ = LookupKind(r.Kind)
				kinds[r.Kind] = s
			}
			checkResource(r, s, errs)
		}
		ref := r.Ref()
		first, dup := int32(0), false
		if sorted {
			c := 1
			if len(out) > 0 {
				c = ref.Compare(out[len(out)-1].Ref())
			}
			switch {
			case c == 0:
				first, dup = int32(len(out)-1), true
			case c < 0:
				sorted = false
				x.ids = indexRefs(out, len(doc.Resources))
			}
		}
		if !sorted {
			first, dup = x.ids.get(ref)
		}
		if dup {
			if m, ok := MergeDuplicate(out[first], r); ok {
				out[first] = m
			} else {
				errs.Add(r.Where(), "duplicate resource %s differs from the one at %s", ref, orUnknown(out[first].Where()))
			}
			continue
		}
		if !sorted {
			x.ids.set(ref, int32(len(out)))
		}
		out = append(out, r)
	}
	clear(doc.Resources[len(out):])
	doc.Resources = out
	x.res = out
	return x
}

// A resIndex finds the index of a resource of a validated document, whose
// refs are unique, by its ref. Its map is made at the first lookup when
// dedupResources did not need one.
type resIndex struct {
	res []*Resource
	ids *refMap[int32]
}

// get returns the index of r.
func (x *resIndex) get(r Ref) (int32, bool) {
	if x.ids == nil {
		x.ids = indexRefs(x.res, len(x.res))
	}
	return x.ids.get(r)
}

// indexRefs returns the index in res of each of its resources by ref, in
// a map made for about n.
func indexRefs(res []*Resource, n int) *refMap[int32] {
	ids := newRefMapSize[int32](n)
	for i, r := range res {
		ids.set(r.Ref(), int32(i))
	}
	return ids
}

// ends returns the indexes of e's from and to resources, taking hint
// when it names them (see Document.EdgeEnds).
func (x *resIndex) ends(e *Edge, hint *[2]int32) (from, to int32, okFrom, okTo bool) {
	if hint != nil {
		f, t := hint[0], hint[1]
		n := int32(len(x.res))
		if f >= 0 && f < n && t >= 0 && t < n && x.res[f].Ref() == e.From && x.res[t].Ref() == e.To {
			return f, t, true, true
		}
	}
	from, okFrom = x.get(e.From)
	to, okTo = x.get(e.To)
	return from, to, okFrom, okTo
}

func orUnknown(pos string) string {
	if pos == "" {
		return "an unknown position"
	}
	return pos
}

// dedupEdges checks every edge and removes repeated ones (see
// dedupPairs). It returns the (from, to) ids of the kept edges.
func (doc *Document) dedupEdges(x *resIndex, errs *ErrorList) [][2]int32 {
	pairs := make([][2]int32, 0, len(doc.Edges))
	out := doc.Edges[:0]
	for i, e := range doc.Edges {
		if e == nil {
			errs.Add(doc.At.String(), "edges[%d] is null", i)
			continue
		}
		var hint *[2]int32
		if i < len(doc.EdgeEnds) {
			hint = &doc.EdgeEnds[i]
		}
		from, to, okFrom, okTo := x.ends(e, hint)
		if !okFrom || !okTo {
			for _, end := range []Ref{e.From, e.To} {
				if _, ok := x.get(end); !ok {
					errs.Add(e.At.String(), "edge %s -> %s: no resource %s", e.From, e.To, end)
				}
			}
			continue
		}
		if (e.Send == "") != (e.Recv == "") {
			errs.Add(e.At.String(), "edge %s -> %s: send and recv go together, got send %q and recv %q", e.From, e.To, e.Send, e.Recv)
			continue
		}
		if e.Send != "" {
			checkSendRecv(e, doc.Resources[from], doc.Resources[to], errs)
		}
		out = append(out, e)
		pairs = append(pairs, [2]int32{from, to})
	}
	clear(doc.Edges[len(out):])
	if ascending(pairs) {
		// in canonical order, without two edges between the same two
		// resources: nothing to merge
		doc.Edges = out
		return pairs
	}
	doc.Edges, pairs = dedupPairs(len(doc.Resources), out, pairs)
	return pairs
}

// ascending reports whether pairs are in strictly increasing order, by
// their first index, then their second.
func ascending(pairs [][2]int32) bool {
	for i := 1; i < len(pairs); i++ {
		p, q := pairs[i-1], pairs[i]
		if p[0] > q[0] || p[0] == q[0] && p[1] >= q[1] {
			return false
		}
	}
	return true
}

// dedupPairs removes repeated edges from edges, where edge i goes from
// vertex pairs[i][0] to pairs[i][1] of n vertices, keeping the first of
// each and its order. A repeat with notify set replaces the kept edge by a
// copy with notify set, so that edges shared with other documents never
// change. Both slices are compacted in place.
//
// Plain edges are deduplicated without hashing: they are bucketed by their
// from vertex (counting sort), and within a bucket a stamp per to vertex
// marks the first edge seen. Send/recv edges, rare, go through a map.
func dedupPairs(n int, edges []*Edge, pairs [][2]int32) ([]*Edge, [][2]int32) {
	keep := make([]bool, len(edges))
	start := make([]int32, n+1)
	var sendRecv map[EdgeKey]int
	for i, e := range edges {
		if e.Send == "" {
			keep[i] = true
			start[pairs[i][0]+1]++
			continue
		}
		if sendRecv == nil {
			sendRecv = map[EdgeKey]int{}
		}
		if first, dup := sendRecv[e.Key()]; dup {
			mergeNotify(edges, first, e)
			continue
		}
		sendRecv[e.Key()] = i
		keep[i] = true
	}
	for v := range n {
		start[v+1] += start[v]
	}
	bucket := make([]int32, start[n])
	fill := make([]int32, n)
	copy(fill, start[:n])
	for i, e := range edges {
		if e.Send == "" {
			f := pairs[i][0]
			bucket[fill[f]] = int32(i)
			fill[f]++
		}
	}
	stamp := fill // reuse: fill is no longer needed
	for i := range stamp {
		stamp[i] = -1
	}
	firstOf := make([]int32, n) // the first edge to each vertex, when stamped
	for v := range n {
		for _, ei := range bucket[start[v]:start[v+1]] {
			to := pairs[ei][1]
			if stamp[to] == int32(v) {
				keep[ei] = false
				mergeNotify(edges, int(firstOf[to]), edges[ei])
				continue
			}
			stamp[to] = int32(v)
			firstOf[to] = ei
		}
	}
	out, kept := edges[:0], pairs[:0]
	for i, e := range edges {
		if keep[i] {
			out = append(out, e)
			kept = append(kept, pairs[i])
		}
	}
	clear(edges[len(out):])
	return out, kept
}

// mergeNotify folds a repeated edge e into edges[first]: notify is or-ed,
// by copying the first edge rather than changing it.
func mergeNotify(edges []*Edge, first int, e *Edge) {
	if f := edges[first]; e.Notify && !f.Notify {
		c := *f
		c.Notify = true
		edges[first] = &c
	}
}

// hasCycle reports whether the graph of n vertices and the given edges
// has a cycle, by Kahn's algorithm: it has one iff some vertex is never
// freed of incoming edges.
func hasCycle(n int, pairs [][2]int32) bool {
	start := make([]int32, n+1)
	indeg := make([]int32, n)
	for _, p := range pairs {
		start[p[0]+1]++
		indeg[p[1]]++
	}
	for v := range n {
		start[v+1] += start[v]
	}
	succ := make([]int32, len(pairs))
	fill := make([]int32, n)
	copy(fill, start[:n])
	for _, p := range pairs {
		succ[fill[p[0]]] = p[1]
		fill[p[0]]++
	}
	queue := fill[:0] // reuse: fill is no longer needed
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, int32(v))
		}
	}
	done := 0
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		done++
		for _, w := range succ[start[v]:start[v+1]] {
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	return done < n
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
			errs.Add(pos, "edge %s: kind %s sends no key %q%s", e, from.Kind, e.Send, Suggest(e.Send, keysOf(fs.Sends)))
			return
		}
	}
	if okT {
		if !ts.Recv {
			errs.Add(pos, "edge %s: kind %s cannot receive values", e, to.Kind)
			return
		}
		if rt = ts.Params[e.Recv]; rt == "" {
			errs.Add(pos, "edge %s: kind %s has no parameter %q%s", e, to.Kind, e.Recv, Suggest(e.Recv, keysOf(ts.Params)))
			return
		}
	}
	if st != "" && rt != "" && !SendCompatible(st, rt) {
		errs.Add(pos, "edge %s: sends %s, but %s[%s] parameter %q is %s", e, st, to.Kind, to.Name, e.Recv, rt)
	}
}

// SendCompatible reports whether a value of the mcl type sent may go to a
// parameter of the mcl type recv over a send/recv edge: the same type, an
// int for a float, or a variant on either side (the value is then checked
// when it is received).
// The types are compared as the schemas spell them (canonically).
func SendCompatible(sent, recv string) bool {
	return sent == recv || sent == "int" && recv == "float" || sent == "variant" || recv == "variant"
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

// CheckResource reports the problems of r alone (its kind, name,
// metaparameters and parameters) as Validate reports them for each
// resource of a document, as an ErrorList, or nil.
func CheckResource(r *Resource) error {
	s, _ := LookupKind(r.Kind)
	var errs ErrorList
	checkResource(r, s, &errs)
	return errs.Err()
}

// checkResource checks one resource, against its kind's schema s if the
// kind has one (s may be nil). The position of a resource without pos is
// made into a string only for an error.
func checkResource(r *Resource, s *KindSchema, errs *ErrorList) {
	if !ValidKind(r.Kind) {
		errs.Add(r.Where(), "bad resource kind %q: want lower case letters, digits and '_', starting with a letter, with ':' between segments", r.Kind)
	}
	if r.Name == "" {
		errs.Add(r.Where(), "%s resource with an empty name", r.Kind)
	} else if !utf8.ValidString(r.Name) {
		errs.Add(r.Where(), "%s resource name %q is not valid UTF-8", r.Kind, r.Name)
	}
	if strings.HasPrefix(r.Name, "$") && (r.Meta == nil || !r.Meta.Dollar) {
		errs.Add(r.Where(), "%s: the resource name starts with a $ (set Meta:dollar to allow it)", r.Ref())
	}
	if r.Meta != nil {
		checkMeta(r, errs)
	}
	if s == nil {
		return
	}
	var bad []string
	for k, v := range r.Params {
		if t, known := s.paramType(k); !known || t != nil && !t.accepts(v) {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	for _, k := range bad {
		v := r.Params[k]
		typ, known := s.Params[k]
		if !known {
			errs.Add(r.Where(), "%s: unknown parameter %q%s", r.Ref(), k, Suggest(k, keysOf(s.Params)))
			continue
		}
		t, _ := parseMclType(typ)
		errs.Add(r.Where(), "%s: parameter %q: got %s, want %s", r.Ref(), k, valueType(v), t)
	}
}

func checkMeta(r *Resource, errs *ErrorList) {
	for _, msg := range r.Meta.problems() {
		errs.Add(r.Where(), "%s: %s", r.Ref(), msg)
	}
}

// Check reports the first problem of the metaparameters m, or nil: a
// retry or poll below -1, a limit that is negative or not a number, a
// finite limit without a burst, a negative burst, a malformed semaphore id.
// Validate reports all of them; this is the same rule for a Meta alone.
func (m *Meta) Check() error {
	if p := m.problems(); len(p) > 0 {
		return errors.New(p[0])
	}
	return nil
}

func (m *Meta) problems() []string {
	var out []string
	if m.Retry < -1 {
		out = append(out, fmt.Sprintf("meta retry %d: want -1 (forever) or more", m.Retry))
	}
	if m.Poll < -1 {
		out = append(out, fmt.Sprintf("meta poll %d: want -1 (check once), 0 (watch) or more seconds", m.Poll))
	}
	if m.Limit != nil {
		switch l := *m.Limit; {
		case math.IsNaN(l) || l < 0:
			out = append(out, fmt.Sprintf("meta limit %v: want 0 or more per second (leave it out for no limit)", l))
		case !math.IsInf(l, 1) && m.Burst == 0:
			out = append(out, fmt.Sprintf("meta limit %v: burst must be non-zero when limit is set", l))
		}
	}
	if m.Burst < 0 {
		out = append(out, fmt.Sprintf("meta burst %d: want 0 or more", m.Burst))
	}
	for _, s := range m.Sema {
		if _, _, err := ParseSema(s); err != nil {
			out = append(out, err.Error())
		}
	}
	return out
}

// ParseSema splits a semaphore id of the form "id" or "id:N" into the
// semaphore's key and its size N (1 when absent). Only the part after the
// last colon can be the size, and only when it is an integer, so an id
// may itself hold colons ("not:smart:4" is the id "not:smart" of size 4,
// "a:b" the id "a:b" of size 1, ":3" the empty id of size 3). The key is
// the whole string: "x:2" and "x:3" are two semaphores. An empty string,
// a bare integer, a NUL byte (the engine's global semaphore has one in its
// key) and a size below 1 are errors.
func ParseSema(s string) (key string, size int, err error) {
	if s == "" {
		return "", 0, fmt.Errorf("meta sema: empty semaphore id")
	}
	if _, err := strconv.Atoi(s); err == nil {
		return "", 0, fmt.Errorf("meta sema %q: a bare integer is not a semaphore id", s)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", 0, fmt.Errorf("meta sema %q: holds a NUL byte", s)
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 1, nil
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 1, nil // the colon is part of the id
	}
	if n < 1 {
		return "", 0, fmt.Errorf("meta sema %q: size must be a positive integer", s)
	}
	return s, n, nil
}

// EqualResource reports whether a and b are the same resource with the same
// parameters and metaparameters: the one rule for "identical duplicate"
// of every tool. Parameters are equal when their canonical JSON encodings
// are (so int64(1), float64(1) and json.Number("1") are one value, as they
// are on the wire); pos, origin and read positions do not count. A nil
// Meta equals the zero Meta, and an empty sema or export list a nil one.
func EqualResource(a, b *Resource) bool {
	return a.Kind == b.Kind && a.Name == b.Name && EqualParams(a.Params, b.Params) && equalMeta(a.Meta, b.Meta)
}

// EqualParams reports whether two parameter maps are equal: the same keys,
// and values with the same canonical JSON encoding.
func EqualParams(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !equalValue(v, w) {
			return false
		}
	}
	return true
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

// equalValue compares parameter values by their canonical JSON encoding,
// walking lists and maps, and encoding only what it cannot compare
// directly (numbers of different Go types, other Go types).
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		if y, ok := b.(json.Number); ok {
			return x == y
		}
	case []any:
		if y, ok := b.([]any); ok && (x == nil) == (y == nil) {
			return len(x) == len(y) && slices.EqualFunc(x, y, equalValue)
		}
	case map[string]any:
		if y, ok := b.(map[string]any); ok && (x == nil) == (y == nil) {
			return EqualParams(x, y)
		}
	}
	ea, errA := appendValue(nil, a)
	eb, errB := appendValue(nil, b)
	return errA == nil && errB == nil && string(ea) == string(eb)
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Suggest returns ` (did you mean "x"?)` for the candidate closest to name
// (ignoring case), if one is close enough, or "".
func Suggest(name string, candidates []string) string {
	best, bestD := "", len(name)/2+1
	for _, c := range candidates {
		if d := EditDistance(strings.ToLower(name), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// EditDistance returns the Levenshtein distance between a and b (bytes),
// used to suggest the closest known name in error messages.
func EditDistance(a, b string) int {
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
