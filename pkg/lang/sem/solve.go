package sem

import (
	"container/heap"
	"errors"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// solve runs the deferred constraints in rounds, in the order they were
// made, until a round decides none of them; then the first one left runs
// in final mode (it picks a default or reports the ambiguity) and the
// rounds start again, until none is left.
//
// A constraint that deferred decides the same way again until a variable
// in its types is bound, and the variables a constraint binds are in its
// types (constraint.on). So a round runs only the constraints whose
// variables were bound since they last ran, in their order: what every
// constraint would decide is the same as if all of them ran, and the work
// is proportional to the bindings instead of the pending constraints times
// the rounds (a program of many constraints that each need a default
// would otherwise be quadratic).
func (c *checker) solve() {
	if len(c.cons) == 0 {
		return
	}
	s := &solver{c: c, watchers: map[*types.Type][]*pendingCons{}, seen: map[*types.Type]bool{}}
	for i, k := range c.cons {
		p := &pendingCons{k: k, seq: i}
		s.items = append(s.items, p)
		s.cur.push(p)
	}
	c.cons = nil
	left := len(s.items)
	for left > 0 {
		for {
			decided := s.round()
			left -= decided
			if decided == 0 || left == 0 {
				break
			}
			s.cur, s.next = s.next, s.cur[:0]
			heap.Init(&s.cur)
			for _, p := range s.cur {
				p.queued, p.later = true, false
			}
		}
		if left == 0 {
			return
		}
		for s.items[s.first].done {
			s.first++
		}
		p := s.items[s.first]
		s.run(p, true)
		left--
		// The next round runs what the final run woke and what waited
		// for the next round.
		for _, q := range s.next {
			if q.later && !q.done {
				q.later = false
				s.cur.push(q)
			}
		}
		s.next = s.next[:0]
	}
}

// A pendingCons is a deferred constraint in solve; seq is its place in
// the order.
type pendingCons struct {
	k      *constraint
	seq    int
	done   bool
	queued bool // in the current round
	later  bool // in the next round
}

type solver struct {
	c     *checker
	items []*pendingCons // in order
	first int            // items before it are done
	// cur is the current round (by seq), next the next one.
	cur  consQueue
	next []*pendingCons
	// at is the seq of the constraint running, -1 between rounds.
	at int
	// watchers are the constraints to run again when a variable is
	// bound; seen is scratch for freeVars.
	watchers map[*types.Type][]*pendingCons
	seen     map[*types.Type]bool
}

// round runs the queued constraints in order and returns how many it
// decided.
func (s *solver) round() int {
	decided := 0
	for len(s.cur) > 0 {
		p := heap.Pop(&s.cur).(*pendingCons)
		p.queued = false
		if p.done {
			continue
		}
		if s.run(p, false) {
			decided++
		}
	}
	s.at = -1
	return decided
}

// run runs p and wakes the constraints waiting on the variables it bound;
// it reports whether p is decided.
func (s *solver) run(p *pendingCons, final bool) bool {
	s.at = p.seq
	vars := s.freeVars(p.k.on)
	err := p.k.run(final)
	for _, v := range vars {
		if v.Prune() != v {
			s.wake(v)
		}
	}
	if err != nil && !final && errors.Is(err, funcs.ErrDefer) {
		for _, v := range s.freeVars(p.k.on) {
			s.watchers[v] = append(s.watchers[v], p)
		}
		return false
	}
	p.done = true
	if err != nil {
		s.c.typeErrf(p.k.pos, "%v", err)
	}
	return true
}

// wake queues the constraints waiting on v: in the current round those
// after the one running, in the next round the others.
func (s *solver) wake(v *types.Type) {
	for _, q := range s.watchers[v] {
		switch {
		case q.done, q.queued:
		case s.at >= 0 && q.seq > s.at:
			s.cur.push(q)
		case !q.later:
			q.later = true
			s.next = append(s.next, q)
		}
	}
	delete(s.watchers, v)
}

// freeVars returns the free variables in ts, each once.
func (s *solver) freeVars(ts []*types.Type) []*types.Type {
	clear(s.seen)
	var out []*types.Type
	stack := append([]*types.Type(nil), ts...)
	for len(stack) > 0 {
		t := stack[len(stack)-1].Prune()
		stack = stack[:len(stack)-1]
		if t == nil || s.seen[t] {
			continue
		}
		s.seen[t] = true
		switch t.Kind {
		case types.KindVar:
			out = append(out, t)
		case types.KindList:
			stack = append(stack, t.Elem)
		case types.KindMap:
			stack = append(stack, t.Key, t.Val)
		case types.KindStruct, types.KindFunc:
			for _, f := range t.Fields {
				stack = append(stack, f.Type)
			}
			if t.Out != nil {
				stack = append(stack, t.Out)
			}
		}
	}
	return out
}

// consQueue is a heap of constraints by seq.
type consQueue []*pendingCons

func (q consQueue) Len() int           { return len(q) }
func (q consQueue) Less(i, j int) bool { return q[i].seq < q[j].seq }
func (q consQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *consQueue) Push(x any)        { *q = append(*q, x.(*pendingCons)) }
func (q *consQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

func (q *consQueue) push(p *pendingCons) {
	p.queued = true
	heap.Push(q, p)
}
