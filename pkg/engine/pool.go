package engine

import "sync"

// poolSize is how many goroutines the engine's task pool runs at most. The
// tasks (the start of a watch: Init, then Subscribe; the stop of a
// subscription) are short, and run by the thousand when a graph of many
// resources is loaded or shut down: a goroutine each would cost a stack
// each (a cold run of 100,000 files reached 17,000 goroutines at once),
// while a few goroutines do the same work one task after the other.
const poolSize = 16

// A pool runs queued tasks, in order, in at most size goroutines of the
// engine: a goroutine starts when a task is queued and fewer than size
// run, and ends when the queue is empty. A task must not wait for another
// task.
//
// The engine has two: its tasks (poolSize goroutines), and its CheckApply
// calls, as many goroutines as Config.Parallel, whose tasks are the runs
// themselves (a vrun each, no function made per CheckApply). The scheduler starts no
// more CheckApply calls than that at once, and counts one as over when it
// handles its end, which the call's goroutine reports just before it
// returns to the pool: a call queued while every goroutine is busy is
// taken by the first one done. A goroutine thus runs CheckApply after
// CheckApply while resources are being applied, its stack grown once,
// instead of a goroutine being made, and its stack grown again, for each
// (a cold run of 10,000 files spent about 7% of its processor time
// copying the stacks of new goroutines as they grew).
type pool[T any] struct {
	mu      sync.Mutex
	q       []T
	head    int
	workers int
	size    int
	do      func(T) // runs one task
}

// do queues f in the engine's task pool.
func (e *Engine) do(f func()) { runIn(e, &e.tasks, f) }

// callTask is the do of the task pool.
func callTask(f func()) { f() }

// runIn queues t in p, and starts a goroutine of e to run it when there
// is room for one.
func runIn[T any](e *Engine, p *pool[T], t T) {
	p.mu.Lock()
	p.q = append(p.q, t)
	start := p.workers < p.size
	if start {
		p.workers++
	}
	p.mu.Unlock()
	if start {
		e.goTrack(p.work)
	}
}

// work runs tasks until none is left.
func (p *pool[T]) work() {
	var zero T
	for {
		p.mu.Lock()
		if p.head == len(p.q) {
			p.q, p.head = p.q[:0], 0
			if cap(p.q) > idleQueue {
				p.q = nil // let go of the queue of a large graph's start
			}
			p.workers--
			p.mu.Unlock()
			return
		}
		t := p.q[p.head]
		p.q[p.head] = zero
		p.head++
		p.mu.Unlock()
		p.do(t)
	}
}
