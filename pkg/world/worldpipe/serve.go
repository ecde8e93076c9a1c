package worldpipe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// A Backend is the world the child serves (pkg/world's Lazy).
type Backend interface {
	worldapi.World
	// Metrics returns the metrics of the world's own member, in
	// Prometheus's text format, when the child runs one (the private
	// world), and nothing otherwise.
	Metrics() ([]byte, error)
	Close() error
}

// ServeConfig says how Serve opens the world and words its errors.
type ServeConfig struct {
	// Open opens (without connecting) the world cfg describes.
	Open func(Config) (Backend, error)
	// Transient reports whether the world recovers from err by itself.
	Transient func(error) bool
}

// Serve answers the requests read from in on out until in ends, then
// cancels what still runs, closes the world and returns. It returns an
// error only for a request it cannot read: the pipe then carries
// something else than the protocol.
func Serve(in io.Reader, out io.Writer, cfg ServeConfig) error {
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{cfg: cfg, enc: json.NewEncoder(out), calls: map[uint64]context.CancelFunc{}, stop: cancel}
	defer func() {
		cancel()
		s.wg.Wait()
		if s.w != nil {
			s.w.Close()
		}
	}()
	dec := json.NewDecoder(in)
	dec.UseNumber()
	for {
		var r request
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("reading a request: %v", err)
		}
		switch {
		case r.Op == opCancel:
			s.cancel(r.ID)
		case s.w == nil:
			s.open(r)
		default:
			s.start(ctx, r)
		}
	}
}

// server is the state of one Serve.
type server struct {
	cfg  ServeConfig
	w    Backend
	stop context.CancelFunc // ends every call, when the parent is gone

	wmu sync.Mutex
	enc *json.Encoder

	mu    sync.Mutex
	calls map[uint64]context.CancelFunc
	wg    sync.WaitGroup
}

// send writes one reply. A write that fails means the parent is gone:
// everything stops.
func (s *server) send(r reply) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.enc.Encode(r); err != nil {
		s.stop()
	}
}

func (s *server) fail(id uint64, err error) {
	s.send(reply{ID: id, Err: toWire(err, s.cfg.Transient)})
}

// open opens the world of the first request.
func (s *server) open(r request) {
	switch {
	case r.Op != opOpen:
		s.fail(r.ID, fmt.Errorf("world client: %q before open", r.Op))
	case r.Proto != Version:
		s.fail(r.ID, fmt.Errorf("world client: protocol %q, this one speaks %s (mgmt-apply and mgmt-cluster of different versions?)", r.Proto, Version))
	case r.Open == nil:
		s.fail(r.ID, fmt.Errorf("world client: open without a configuration"))
	default:
		w, err := s.cfg.Open(*r.Open)
		if err != nil {
			s.fail(r.ID, err)
			return
		}
		s.w = w
		s.send(reply{ID: r.ID, Opened: Version})
	}
}

// start runs call or watch r in a goroutine of its own, under a context
// a cancel request ends.
func (s *server) start(ctx context.Context, r request) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.calls[r.ID] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.cancel(r.ID)
		if isWatch(r.Op) {
			s.watch(ctx, r)
			return
		}
		rep, err := s.call(ctx, r)
		rep.ID, rep.Err = r.ID, toWire(err, s.cfg.Transient)
		s.send(rep)
	}()
}

// cancel ends call or watch id, if it still runs.
func (s *server) cancel(id uint64) {
	s.mu.Lock()
	c := s.calls[id]
	delete(s.calls, id)
	s.mu.Unlock()
	if c != nil {
		c()
	}
}

func isWatch(op string) bool {
	switch op {
	case opStrWatch, opStrMapWatch, opResWatch, opScheduleWatch, opConvWatch:
		return true
	}
	return false
}

// watch starts watch r, answers whether it started, forwards its
// notifications and says when it ended (with ctx).
func (s *server) watch(ctx context.Context, r request) {
	var ch <-chan error
	var err error
	switch r.Op {
	case opStrWatch:
		ch, err = s.w.StrWatch(ctx, r.Key)
	case opStrMapWatch:
		ch, err = s.w.StrMapWatch(ctx, r.Key)
	case opResWatch:
		ch = s.w.ResWatch(ctx)
	case opScheduleWatch:
		ch, err = s.w.ScheduleWatch(ctx, r.Key)
	case opConvWatch:
		ch = s.w.ConvergedWatch(ctx)
	}
	if err != nil {
		s.fail(r.ID, err)
		return
	}
	s.send(reply{ID: r.ID})
	for e := range ch {
		s.send(reply{ID: r.ID, Event: true, Err: toWire(e, s.cfg.Transient)})
	}
	s.send(reply{ID: r.ID, End: true})
}

// call runs call r and returns its result.
func (s *server) call(ctx context.Context, r request) (reply, error) {
	var rep reply
	var err error
	w := s.w
	switch r.Op {
	case opStrGet:
		rep.Str, rep.OK, err = w.StrGet(ctx, r.Key)
	case opStrSet:
		err = w.StrSet(ctx, r.Key, r.Value)
	case opStrDel:
		err = w.StrDel(ctx, r.Key)
	case opStrMapGet:
		rep.Map, err = w.StrMapGet(ctx, r.Key)
	case opStrMapGetHost:
		rep.Str, rep.OK, err = w.StrMapGetHost(ctx, r.Key)
	case opStrMapSet:
		err = w.StrMapSet(ctx, r.Key, r.Value)
	case opStrMapDel:
		err = w.StrMapDel(ctx, r.Key)
	case opResExport:
		err = w.ResExport(ctx, r.Res)
	case opResCollect:
		var xs []*worldapi.Exported
		xs, err = w.ResCollect(ctx, r.Key)
		rep.Exported = exportedToWire(xs)
	default:
		return s.callMore(ctx, r)
	}
	return rep, err
}

// callMore runs the calls of the scheduler, the converged state and the
// metrics.
func (s *server) callMore(ctx context.Context, r request) (reply, error) {
	var rep reply
	var err error
	w := s.w
	switch r.Op {
	case opSchedAdd:
		if r.Sched == nil {
			return rep, fmt.Errorf("world client: %s without options", r.Op)
		}
		err = w.SchedulerAdd(ctx, r.Key, *r.Sched)
	case opSchedWithdraw:
		err = w.SchedulerWithdraw(ctx, r.Key)
	case opSchedRelease:
		w.SchedulerRelease(r.Key)
	case opSchedVolunt:
		var o worldapi.SchedOpts
		o, rep.OK, err = w.SchedulerVolunteering(ctx, r.Key)
		rep.Sched = &o
	case opSchedule:
		rep.List, err = w.Schedule(ctx, r.Key)
	case opSetConverged:
		err = w.SetConverged(ctx, r.Bool)
	case opConverged:
		rep.Bools, err = w.Converged(ctx)
	case opConvState:
		var st worldapi.ConvergedState
		st, err = w.ConvergedState(ctx)
		rep.Conv = &st
	case opMetrics:
		var b []byte
		b, err = w.Metrics()
		if err == nil && len(b) > MaxMetrics {
			err = fmt.Errorf("world client: %d bytes of metrics, over the limit of %d", len(b), MaxMetrics)
			b = nil
		}
		rep.Text = string(b)
	default:
		err = fmt.Errorf("world client: unknown operation %q", r.Op)
	}
	return rep, err
}

func exportedToWire(xs []*worldapi.Exported) []wireExported {
	out := make([]wireExported, len(xs))
	for i, x := range xs {
		out[i] = wireExported{From: x.From, To: x.To, Key: x.Key, Res: x.Res}
		if x.Err != nil {
			out[i].Err = x.Err.Error()
		}
	}
	return out
}
