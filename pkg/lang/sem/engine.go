package sem

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// The reactive engine. Each evaluation pass walks the checked program from
// the top, computing only the values it needs (binds are memoized per
// activation). Streaming function calls are identified by their instance
// key (call site plus the chain of activations that led there): the first
// pass that reaches one starts its goroutine, later passes read its latest
// value, a change of arguments restarts it, and a complete pass that no
// longer reaches it stops it. A pass that meets a stream without a value
// yet is pending; otherwise it yields a graph document. Every new stream
// value triggers a new pass, so the output follows the streams; documents
// are written only when they differ from the previous one.

type pass struct {
	eng     *Engine
	ctx     context.Context
	global  *rscope
	modules map[*module]*rscope
	walked  map[*module]bool
	out     *output
	gen     uint64
	depth   int // recursion of eval and walk, see maxEvalDepth
}

type passKey struct{}

func passOf(ctx context.Context) *pass {
	p, _ := ctx.Value(passKey{}).(*pass)
	return p
}

func (p *pass) ctxFor(key string) context.Context { return funcs.SetKey(p.ctx, key) }

func (p *pass) env(m *module) *funcs.Env { return p.eng.prog.envOf(m) }

type streamInst struct {
	args    []values.Value
	updates chan []values.Value
	cancel  context.CancelFunc
	val     values.Value
	has     bool
	err     error // the stream ended with it
	cur     error // a catchable error standing for the current value
	closed  bool
	gen     uint64
}

// Engine runs a checked Program.
type Engine struct {
	prog    *Program
	mu      sync.Mutex
	streams map[string]*streamInst
	notify  chan struct{}
	gen     uint64
	base    context.Context
	last    *graph.Document // the last document emitted
	wg      sync.WaitGroup  // the stream goroutines, joined by Run
	seq     int64
}

// NewEngine returns an engine for prog.
func NewEngine(prog *Program) *Engine {
	return &Engine{prog: prog, streams: map[string]*streamInst{}, notify: make(chan struct{}, 1)}
}

func (e *Engine) poke() {
	select {
	case e.notify <- struct{}{}:
	default:
	}
}

func argsEqual(a, b []values.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !values.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func (p *pass) stream(key string, n *builtinIR, call *funcs.Call) (values.Value, error) {
	e := p.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	inst := e.streams[key]
	if inst != nil && !argsEqual(inst.args, call.Args) {
		if n.f.Follow {
			inst.args = call.Args
			select { // the latest arguments replace unread ones
			case <-inst.updates:
			default:
			}
			inst.updates <- call.Args
		} else {
			inst.cancel()
			inst = nil
		}
	}
	if inst == nil {
		ctx, cancel := context.WithCancel(e.base)
		inst = &streamInst{args: call.Args, cancel: cancel, updates: make(chan []values.Value, 1)}
		call.Updates = inst.updates
		e.streams[key] = inst
		emit := func(v values.Value) {
			e.mu.Lock()
			if ctx.Err() != nil || inst.has && inst.cur == nil && values.Equal(inst.val, v) {
				e.mu.Unlock()
				return
			}
			inst.val, inst.cur, inst.has = v, nil, true
			e.mu.Unlock()
			e.poke()
		}
		call.EmitErr = func(err error) {
			err = at(n.pos, err)
			e.mu.Lock()
			switch {
			case ctx.Err() != nil, inst.cur != nil && inst.cur.Error() == err.Error():
				e.mu.Unlock()
				return
			case funcs.IsCatchable(err):
				inst.val, inst.cur, inst.has = nil, err, true
			case inst.err == nil:
				inst.err = err
			}
			e.mu.Unlock()
			e.poke()
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			err := safeStream(n.f.Stream, ctx, call, emit)
			e.mu.Lock()
			inst.closed = true
			if err != nil && ctx.Err() == nil {
				inst.err = at(n.pos, err)
			}
			e.mu.Unlock()
			e.poke()
		}()
	}
	inst.gen = p.gen
	switch {
	case inst.err != nil:
		return nil, inst.err
	case inst.cur != nil:
		return nil, inst.cur
	case !inst.has:
		if inst.closed {
			return nil, fmt.Errorf("%s closed without producing a value", n.name)
		}
		return nil, errPending
	}
	return inst.val, nil
}

// safeStream runs a stream, turning a panic of its implementation into an
// error of the program.
func safeStream(s funcs.StreamImpl, ctx context.Context, c *funcs.Call, emit func(values.Value)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in a streaming function: %v", r)
		}
	}()
	return s(ctx, c, emit)
}

// evaluate runs one pass. A panic (a bug in a function implementation or
// in the evaluator) becomes a runtime error rather than a crash.
func (e *Engine) evaluate() (doc *graph.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return e.evaluatePass()
}

func (e *Engine) evaluatePass() (*graph.Document, error) {
	e.gen++
	p := &pass{eng: e, modules: map[*module]*rscope{}, walked: map[*module]bool{}, out: &output{res: map[graph.Ref]*outRes{}}, gen: e.gen}
	p.ctx = context.WithValue(e.base, passKey{}, p)
	p.global = newRScope(e.prog.global, nil, "")
	main := e.prog.main
	p.walked[main] = true
	err := main.prog.walk(p, p.moduleScope(main))
	if err != nil {
		return nil, err
	}
	doc, err := p.out.document()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	for k, inst := range e.streams {
		if inst.gen != e.gen {
			inst.cancel()
			delete(e.streams, k)
		}
	}
	e.mu.Unlock()
	return doc, nil
}

func (e *Engine) live() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, inst := range e.streams {
		if !inst.closed {
			return true
		}
	}
	return false
}

// Run evaluates the program and calls emit with each new graph document.
// With once it returns after the first document; otherwise it returns when
// no stream can produce anything more, or when ctx is done. Runtime errors
// are returned as *graph.PosError. Every stream it started has ended when
// it returns: they are cancelled, then waited for.
func (e *Engine) Run(ctx context.Context, once bool, emit func(*graph.Document) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer e.wg.Wait()
	defer cancel()
	e.base = ctx
	for {
		// Drain a pending notification: this pass sees every value so far.
		select {
		case <-e.notify:
		default:
		}
		doc, err := e.evaluate()
		switch {
		case err == nil:
			if !graph.SameGraph(e.last, doc) {
				e.last = doc
				e.seq++
				doc.Seq = e.seq
				if err := emit(doc); err != nil {
					return err
				}
			}
			if once {
				return nil
			}
		case errors.Is(err, errPending):
		default:
			return e.prog.runtimeErr(err)
		}
		if !e.live() {
			if err != nil {
				return e.prog.runtimeErr(fmt.Errorf("the program waits for values that no stream will produce"))
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-e.notify:
		}
	}
}
