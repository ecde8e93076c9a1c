package engine

import "sync"

// poolSize is how many goroutines the engine's task pool runs at most. The
// tasks (the start of a watch: Init, then Subscribe; the stop of a
// subscription) are short, and run by the thousand when a graph of many
// resources is loaded or shut down: a goroutine each would cost a stack
// each (a cold run of 100,000 files reached 17,000 goroutines at once),
// while a few goroutines do the same work one task after the other.
const poolSize = 16

// A pool runs queued tasks, in order, in at most poolSize goroutines of
// the engine: a goroutine starts when a task is queued and fewer than
// poolSize run, and ends when the queue is empty. A task must not wait for
// another task.
type pool struct {
	mu      sync.Mutex
	q       []func()
	head    int
	workers int
}

// do queues f, and starts a goroutine to run it when there is room for
// one.
func (e *Engine) do(f func()) {
	p := &e.tasks
	p.mu.Lock()
	p.q = append(p.q, f)
	start := p.workers < poolSize
	if start {
		p.workers++
	}
	p.mu.Unlock()
	if start {
		e.goTrack(p.work)
	}
}

// work runs tasks until none is left.
func (p *pool) work() {
	for {
		p.mu.Lock()
		if p.head == len(p.q) {
			p.q, p.head = p.q[:0], 0
			if cap(p.q) > 1024 {
				p.q = nil // let go of the queue of a large graph's start
			}
			p.workers--
			p.mu.Unlock()
			return
		}
		f := p.q[p.head]
		p.q[p.head] = nil
		p.head++
		p.mu.Unlock()
		f()
	}
}
