package engine

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// swap replaces the running graph with g: vertices equal to a running one
// (same kind and name, Cmp and metaparameters equal, same group) keep
// running untouched; the others are stopped, and the new ones started once
// their predecessor of the same key has fully stopped, so one resource
// never runs two CheckApply calls at once.
func (s *sched) swap(g *Graph) {
	next := make(map[string]*vstate, len(g.Vertices))
	// The vertex states in the order of g.Vertices, which Build sorts by
	// kind and name (compareVertices), the order of s.order: only the
	// reversals, if any, need a sort. (A sort of a graph's vertices, even
	// one that finds them in order, reads every key, each a read of
	// memory of its own: about 40 ms for 100,000 files, before any of
	// them could start.) A new array: the one of the graph before may
	// still be read by Init.Graph (graphRes).
	order := make([]*vstate, 0, len(g.Vertices))
	var added, changed, kept, removed int
	var fresh []*vstate
	for _, v := range g.Vertices {
		old := s.find(v.key)
		if old != nil && old.revPath() == "" && sameVertex(old, v) {
			old.v.src = v.src
			next[v.key] = old
			order = append(order, old)
			kept++
			continue
		}
		vs := s.newVState(v)
		if old != nil {
			changed++
			if !v.Res.MetaParams().Reset {
				vs.retries = old.retries
			}
		} else {
			added++
		}
		next[v.key] = vs
		order = append(order, vs)
		fresh = append(fresh, vs)
	}
	revs := s.reversals(next)
	for _, vs := range revs {
		next[vs.v.key] = vs
		fresh = append(fresh, vs)
	}
	if len(revs) > 0 {
		for _, vs := range revs {
			if next[vs.v.key] == vs {
				order = append(order, vs)
			}
		}
		slices.SortFunc(order, byPlace)
	}
	for _, old := range s.order {
		key := old.v.key
		if next[key] == old {
			continue
		}
		if next[key] == nil && old.revPath() == "" {
			removed++
		}
		s.stop(old)
	}
	s.order = order
	s.nres = 0
	for _, vs := range order {
		s.nres += 1 + len(vs.v.Members())
	}
	s.rankFrom(0)
	s.e.graphRes.Store(&graphRes{order: s.order})
	s.wire(g, next)
	for _, vs := range fresh {
		if _, busy := s.stopping[vs.v.key]; busy {
			s.pending[vs.v.key] = vs
			continue
		}
		s.launch(vs)
	}
	s.reblock()
	s.loaded = true
	s.seq = g.Seq
	s.loadedAt = time.Now()
	s.reported = false
	s.e.loadedOnce.Store(true)
	name := ""
	if g.Name != "" {
		name = fmt.Sprintf(" %q", g.Name)
	}
	s.e.logf("graph%s seq %d: %d added, %d removed, %d changed, %d unchanged",
		name, g.Seq, added, removed, changed, kept)
	s.e.cfg.Metrics.graphLoaded(s.order)
	s.armRecheck()
}

// byPlace orders vertex states as Build orders the vertices of a graph:
// by kind, then name (compareVertices).
func byPlace(a, b *vstate) int { return compareVertices(a.v, b.v) }

// byRank orders the vertex states of the running graph as byPlace does,
// from their places in s.order: a batch of work is sorted without
// comparing names, which share long prefixes (the paths of many files)
// and are each a read of memory of their own.
func byRank(a, b *vstate) int { return cmp.Compare(a.rank, b.rank) }

// rankFrom sets the rank of the vertex states of s.order from index i on.
func (s *sched) rankFrom(i int) {
	for ; i < len(s.order); i++ {
		s.order[i].rank = int32(i)
	}
}

// keyParts splits a vertex key, kind[name], at the first '[', where its
// kind ends.
func keyParts(key string) (kind, name string) {
	i := strings.IndexByte(key, '[')
	if i < 0 || !strings.HasSuffix(key, "]") {
		return key, ""
	}
	return key[:i], key[i+1 : len(key)-1]
}

// comparePlace compares the place of v in s.order with that of the
// resource kind[name], as compareVertices does.
func comparePlace(v *Vertex, kind, name string) int {
	if c := strings.Compare(v.kind(), kind); c != 0 {
		return c
	}
	return strings.Compare(v.name(), name)
}

// find returns the running vertex of key, or nil. The vertices are found
// in s.order, sorted by kind and name, rather than in a map of their keys
// that a large graph would hold for its few look-ups outside a swap.
func (s *sched) find(key string) *vstate {
	kind, name := keyParts(key)
	i, ok := slices.BinarySearchFunc(s.order, key, func(vs *vstate, _ string) int {
		return comparePlace(vs.v, kind, name)
	})
	if !ok || s.order[i].v.key != key {
		return nil
	}
	return s.order[i]
}

// A graphRes is a graph as Init.Graph sees it: its vertices, and the
// resources they run for, listed on the first call.
type graphRes struct {
	order []*vstate // never changed: a swap or a retire makes a new array
	once  sync.Once
	res   []Res
}

// resources returns the resources of the vertices of g, the members of
// groups included.
func (g *graphRes) resources() []Res {
	g.once.Do(func() {
		n := 0
		for _, vs := range g.order {
			n += 1 + len(vs.v.Members())
		}
		g.res = make([]Res, 0, n)
		for _, vs := range g.order {
			g.res = append(g.res, vs.v.Res)
			for _, m := range vs.v.Members() {
				g.res = append(g.res, m.Res)
			}
		}
	})
	return g.res
}

// sameVertex reports whether the running vs can stand for the new v.
func sameVertex(vs *vstate, v *Vertex) bool {
	if vs.watchErr && v.Res.MetaParams().Rewatch {
		return false
	}
	if !metaEqual(vs.meta(), v.Res.MetaParams()) || len(vs.v.Members()) != len(v.Members()) {
		return false
	}
	if !sameRes(vs.v, v) {
		return false
	}
	for i, m := range v.Members() {
		if !sameRes(vs.v.Members()[i], m) {
			return false
		}
	}
	return true
}

func sameRes(a, b *Vertex) bool {
	if a.key != b.key {
		return false
	}
	if a.params.ok && a.params == b.params {
		return true // the same parameters, as reflect.DeepEqual finds them
	}
	return a.Res.Cmp(b.Res) == nil
}

func (s *sched) newVState(v *Vertex) *vstate {
	meta := v.Res.MetaParams()
	vs := &vstate{e: s.e, v: v, mp: meta, retries: meta.Retry}
	if lim := limiter(meta); lim != nil {
		vs.extra().lim = lim
	}
	type semaID struct {
		key  string
		size int
	}
	var ids []semaID
	for _, id := range sortedSet(meta.Sema) {
		key, size, err := ParseSema(id)
		if err != nil {
			continue // ValidateMeta already refused it
		}
		ids = append(ids, semaID{key, size})
	}
	if s.e.cfg.Sema > 0 {
		// The global semaphore's key holds a NUL byte, which no
		// semaphore of a resource can: it is shared with none of them.
		ids = append(ids, semaID{"\x00global", s.e.cfg.Sema})
	}
	for _, id := range ids {
		name, size := id.key, id.size
		sem := s.semas[name]
		if sem == nil {
			sem = &semaphore{size: size}
			s.semas[name] = sem
		}
		vs.extra().semas = append(vs.extra().semas, sem)
	}
	vs.busy = !meta.Hidden
	if vs.busy {
		s.busy++
	}
	return vs
}

// wire rebuilds the run-time edges from g, whose vertices run as the
// vertex states of their keys in byKey. A kept vertex whose incoming edges
// changed is marked dirty, so it runs with its new inputs.
//
// The edges of a graph are one array, and the lists of the edges of its
// vertices (ins, then outs) parts of another, each sized from the
// vertices' degrees: a graph holds no list grown by appending, and makes
// two allocations for its edges rather than three per edge.
func (s *sched) wire(g *Graph, byKey map[string]*vstate) {
	oldIn := map[*vstate]string{}
	for i, vs := range s.order {
		if vs.launched {
			oldIn[vs] = inSignature(vs)
		}
		vs.edges, vs.nin = nil, 0
		vs.scan = int32(i) // its index in s.order while the edges are wired
	}
	edges := make([]redge, 0, len(g.Edges))
	degree := make([]int32, 2*len(s.order)) // in, out
	for _, e := range g.Edges {
		from, to := byKey[e.From.key], byKey[e.To.key]
		if from == nil || to == nil {
			continue
		}
		re := redge{from: from, to: to}
		if e.Notify || e.Send != "" || e.Recv != "" {
			re.x = &redgeX{send: e.Send, recv: e.Recv, notify: e.Notify}
		}
		edges = append(edges, re)
		degree[2*to.scan]++
		degree[2*from.scan+1]++
	}
	lists := make([]*redge, 2*len(edges))
	off := 0
	for i, vs := range s.order {
		nin, nout := degree[2*i], degree[2*i+1]
		if n := int(nin + nout); n > 0 {
			vs.edges = lists[off : off+n : off+n]
			off += n
		}
		vs.nin = nin
		degree[2*i], degree[2*i+1] = 0, nin // where its next in and out edges go
	}
	for i := range edges {
		re := &edges[i]
		in, out := 2*re.to.scan, 2*re.from.scan+1
		re.to.edges[degree[in]] = re
		degree[in]++
		re.from.edges[degree[out]] = re
		degree[out]++
	}
	for _, vs := range s.order {
		vs.scan = 0
	}
	for vs, sig := range oldIn {
		if inSignature(vs) != sig && !vs.meta().Hidden {
			vs.mark(whyEdges, nil)
			s.update(vs)
			s.enqueue(vs)
		}
	}
}

func inSignature(vs *vstate) string {
	var parts []string
	for _, e := range vs.ins() {
		parts = append(parts, fmt.Sprintf("%s|%v|%s|%s", e.from.v.key, e.notify(), e.send(), e.recv()))
	}
	sort.Strings(parts)
	return fmt.Sprint(parts)
}

// reblock recomputes which vertices a failed dependency blocks.
func (s *sched) reblock() {
	for _, vs := range s.order {
		if vs.blocked {
			s.setBlocked(vs, false)
			s.update(vs)
			s.enqueue(vs)
		}
	}
	for _, vs := range s.order {
		if vs.failed {
			s.block(vs)
		}
	}
}

// launch starts the watch goroutine of vs: Init, then Watch (or polling),
// with retries.
func (s *sched) launch(vs *vstate) {
	vs.launched = true
	if _, ok := vs.v.Res.(Reversible); ok && !vs.meta().Reverse && vs.revPath() == "" {
		// Its predecessor has stopped: what it saved for a reversal
		// describes a state that this resource no longer undoes.
		s.forgetReverseState(vs)
	}
	if vs.meta().Hidden {
		return
	}
	s.fx.watch(vs)
}

// stop removes vs from the running graph: its Watch is cancelled and, once
// no CheckApply of it runs, it is finalized (realize, Cleanup).
func (s *sched) stop(vs *vstate) {
	vs.removed = true
	s.changedGoes(vs.v)
	for _, m := range vs.v.Members() {
		s.changedGoes(m)
	}
	s.update(vs)
	s.setOutcome(vs, false, false)
	s.setBlocked(vs, false)
	if vs.failed {
		s.failed--
		s.e.cfg.Metrics.failure(vs, -1)
	}
	if !vs.launched {
		delete(s.pending, vs.v.key)
		return
	}
	s.e.cancelWatch(vs)
	s.stopping[vs.v.key] = vs
	if !vs.running {
		s.finalize(vs)
	}
}

// retire takes vs out of the running graph outside a swap (a reversal
// that is done) and stops it.
func (s *sched) retire(vs *vstate) {
	if i := slices.Index(s.order, vs); i >= 0 {
		// A new array: Init.Graph may read the one before (graphRes).
		s.order = slices.Delete(slices.Clone(s.order), i, i+1)
		s.rankFrom(i)
	}
	s.nres -= 1 + len(vs.v.Members())
	for _, e := range vs.edges {
		if e.from != vs {
			e.from.dropEdges(vs)
		}
		if e.to != vs {
			e.to.dropEdges(vs)
		}
	}
	vs.edges, vs.nin = nil, 0
	s.stop(vs)
}

// dropEdges takes the edges from or to o out of those of vs, which keep
// their order.
func (vs *vstate) dropEdges(o *vstate) {
	keep, nin := vs.edges[:0], int32(0)
	for i, e := range vs.edges {
		if e.from == o || e.to == o {
			continue
		}
		keep = append(keep, e)
		if int32(i) < vs.nin {
			nin++
		}
	}
	clear(vs.edges[len(keep):])
	vs.edges, vs.nin = keep, nin
}

// finalize waits, in a goroutine, for the Watch of a removed vertex to end,
// runs its CheckApply once if Meta:realize asks for it and it never ran,
// calls Cleanup and reports msgStopped.
func (s *sched) finalize(vs *vstate) {
	realize := vs.meta().Realize && !vs.applied && !vs.failed && !vs.meta().Hidden
	s.fx.finalize(vs, realize, !(s.e.cfg.Noop || vs.meta().Noop))
}

func (s *sched) stopped(vs *vstate) {
	if s.stopping[vs.v.key] == vs {
		delete(s.stopping, vs.v.key)
	}
	if p := s.pending[vs.v.key]; p != nil {
		delete(s.pending, vs.v.key)
		s.launch(p)
	}
}

// shutdown stops everything: the run context is already cancelled, so
// every Watch and CheckApply is ending. Cleanup runs once each Watch ended.
func (s *sched) shutdown() {
	var vss []*vstate
	for _, vs := range s.order {
		if vs.launched && !vs.meta().Hidden {
			vss = append(vss, vs)
		}
	}
	e := s.e
	for _, vs := range s.order {
		if e.cfg.ExitAfterRun {
			e.dropWatch(vs)
		} else {
			e.cancelWatch(vs)
		}
	}
	e.goTrack(func() {
		e.applyWG.Wait()
		for _, vs := range vss {
			<-vs.watchDone()
			if vs.initOK {
				if err := safely(vs.v.Res.Cleanup); err != nil {
					e.errorf("%s", errorAt(vs, "cleanup: %v", err))
				}
			}
		}
	})
}

// markChanged marks v, the vertex of vs or one of its members, as changed,
// and counts its resource unless it changed before, in this vertex or in
// one no longer running.
func (s *sched) markChanged(vs *vstate, v *Vertex) {
	if v.changed {
		return
	}
	v.changed = true
	if _, gone := s.changedGone[v.key]; !gone {
		s.nchanged++
	}
	if vs.removed {
		// A CheckApply that was running when the vertex was stopped.
		s.changedGoes(v)
	}
}

// changedGoes remembers the key of v, a vertex that stops running, if its
// resource changed.
func (s *sched) changedGoes(v *Vertex) {
	if v.changed {
		s.changedGone[v.key] = struct{}{}
	}
}
