package engine

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// Reversals: while a Reversible resource with Meta:reverse is in the graph,
// the engine saves, after each CheckApply that applied, the resource its
// Reversed method returns, as a graph document resource under
// PREFIX/reverse/. When a graph arrives without that resource (in this run
// or after a restart), the saved resource joins the graph as a reversal
// vertex. After its first CheckApply that applied without error, the
// reversal is done: the saved resource and the resource's ReverseVarDir
// are deleted, and the vertex leaves the graph (it would otherwise enforce
// the old state over later edits).

// ReverseVarDir is the VarDir sub path where a Reversible resource keeps
// what its reversal needs (a file's original content, say). The saved
// reversal runs under the same kind and name, so it finds it there. The
// engine removes the directory once the reversal is done, and when the
// resource runs without Meta:reverse, so that what it holds never outlives
// the reversal it serves: a later reversal never restores a stale state.
const ReverseVarDir = "reverse"

func (e *Engine) reverseDir() string {
	if e.cfg.Prefix == "" {
		return ""
	}
	return filepath.Join(e.cfg.Prefix, "reverse")
}

func (e *Engine) reversePath(kind, name string) string {
	d := e.reverseDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, url.PathEscape(kind)+"["+url.PathEscape(name)+"].json")
}

// saveReversal records the reversed resource of vs under the prefix.
func (s *sched) saveReversal(vs *vstate) {
	rv, ok := vs.v.Res.(Reversible)
	if !ok {
		return
	}
	path := s.e.reversePath(vs.v.kind(), vs.v.name())
	if path == "" {
		return
	}
	rev, err := rv.Reversed()
	if err != nil {
		s.e.errorf("%s", errorAt(vs, "reverse: %v", err))
		return
	}
	if rev == nil {
		if vs.x != nil && vs.x.revSaved != nil {
			os.Remove(path)
			vs.x.revSaved = nil
		}
		return
	}
	params, err := EncodeParams(rev)
	if err != nil {
		s.e.errorf("%s", errorAt(vs, "reverse: %v", err))
		return
	}
	rr := graph.Resource{Kind: rev.Kind(), Name: rev.Name(), Params: params, Pos: vs.v.pos()}
	if rr.Kind == "" {
		rr.Kind = vs.v.kind()
	}
	if rr.Name == "" {
		rr.Name = vs.v.name()
	}
	b, err := json.Marshal(rr)
	if err != nil {
		s.e.errorf("%s", errorAt(vs, "reverse: %v", err))
		return
	}
	if vs.x != nil && bytes.Equal(b, vs.x.revSaved) {
		return
	}
	s.e.rev.wroteSaved(path)
	if err := writeAtomic(path, b); err != nil {
		s.e.errorf("%s", errorAt(vs, "reverse: saving state: %v", err))
		return
	}
	vs.extra().revSaved = b
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// reversals returns the reversal vertices the next graph needs: a saved
// reversal whose resource is not in next joins it (a running reversal
// vertex of the same key is kept).
func (s *sched) reversals(next map[string]*vstate) []*vstate {
	for _, old := range s.order {
		if next[old.v.key] == nil && old.meta().Reverse && old.revPath() == "" && old.launched && !old.running {
			s.saveReversal(old)
		}
	}
	dir := s.e.reverseDir()
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		s.e.rev.listedSaved(nil, err)
		return nil
	}
	paths := make([]string, len(ents))
	for i, ent := range ents {
		paths[i] = filepath.Join(dir, ent.Name())
	}
	s.e.rev.listedSaved(paths, nil)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var out []*vstate
	for _, ent := range ents {
		if ent.IsDir() || !strings.HasSuffix(ent.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, ent.Name())
		vs := s.loadReversal(path, next)
		if vs != nil {
			out = append(out, vs)
		}
	}
	return out
}

// reverseLate gives vs, a vertex with Meta:reverse that left the graph
// while its CheckApply ran, the reversal a swap gives a vertex that left
// it between two of them: the swap could not save its reversal then, the
// state it undoes being made by the CheckApply still running (the first
// CheckApply of a file resource removed at once would otherwise leave its
// change in place for good). Once that CheckApply applied, its reversal
// is saved and joins the running graph, to start once vs has stopped,
// unless the graph holds the resource again, or its reversal already.
func (s *sched) reverseLate(vs *vstate) {
	key := vs.v.key
	if s.find(key) != nil {
		return
	}
	s.saveReversal(vs)
	path := s.e.reversePath(vs.v.kind(), vs.v.name())
	if path == "" {
		return
	}
	if _, err := os.Stat(path); err != nil {
		return // nothing to reverse (Reversed returned none)
	}
	rv := s.loadReversal(path, map[string]*vstate{})
	if rv == nil {
		return
	}
	i, _ := slices.BinarySearchFunc(s.order, rv, byPlace)
	// A new array: Init.Graph may read the one before (graphRes).
	s.order = slices.Insert(slices.Clone(s.order), i, rv)
	s.rankFrom(i)
	s.nres++
	s.e.graphRes.Store(&graphRes{order: s.order})
	if _, busy := s.stopping[key]; busy {
		s.pending[key] = rv
		return
	}
	s.launch(rv)
}

func (s *sched) loadReversal(path string, next map[string]*vstate) *vstate {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rr graph.Resource
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&rr); err != nil {
		s.e.errorf("reverse: %s: %v", path, err)
		return nil
	}
	key := rr.Kind + "[" + rr.Name + "]"
	if cur := next[key]; cur != nil {
		if !cur.meta().Reverse {
			os.Remove(path) // the resource is back without reverse: forget it
		}
		return nil
	}
	if old := s.find(key); old != nil && old.revPath() == path {
		next[key] = old
		return nil
	}
	rr.Meta = nil
	src := new(source)
	setSource(src, &rr, nil)
	v, err := newVertex(&rr, src, BuildOptions{}, new(digester))
	if err != nil {
		s.e.errorf("reverse: %s: %v", path, err)
		return nil
	}
	v.adjacency = nil // it runs as a compacted graph's vertices do
	vs := s.newVState(v)
	vs.extra().reversal = path
	s.e.logf("%s: reversing (the resource left the graph)", key)
	return vs
}

// reversalDone forgets a saved reversal once it has been applied, with
// the state it used, and takes its vertex out of the running graph.
func (s *sched) reversalDone(vs *vstate) {
	if err := os.Remove(vs.revPath()); err != nil && !os.IsNotExist(err) {
		s.e.errorf("%s", errorAt(vs, "reverse: %v", err))
	}
	s.forgetReverseState(vs)
	s.e.logf("%s: reversal done", vs.v.key)
	s.retire(vs)
}

// forgetReverseState removes the ReverseVarDir of the resource of vs, and
// its saved reversal unless vs is that reversal. What the engine's revIndex
// rules out is not touched.
func (s *sched) forgetReverseState(vs *vstate) {
	prefix := s.e.cfg.Prefix
	if prefix == "" {
		return
	}
	if vs.revPath() == "" {
		path := func() string { return s.e.reversePath(vs.v.kind(), vs.v.name()) }
		if s.e.rev.savedMayExist(path) {
			if err := os.Remove(path()); err != nil && !os.IsNotExist(err) {
				s.e.errorf("%s", errorAt(vs, "reverse: %v", err))
			}
		}
	}
	if !s.e.rev.varDirMayExist(prefix, vs.v.kind(), vs.v.name()) {
		return
	}
	if err := os.RemoveAll(s.e.varDirPath(vs, ReverseVarDir)); err != nil {
		s.e.errorf("%s", errorAt(vs, "reverse: %v", err))
	}
}
