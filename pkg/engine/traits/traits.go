// Package traits holds the embeddable structs that give resources the common
// parts of the engine's resource API.
package traits

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// Base gives a resource its kind, name and metaparameters.
type Base struct {
	kind string
	name string
	meta *engine.MetaParams
}

// Kind returns the resource kind.
func (b *Base) Kind() string { return b.kind }

// Name returns the resource name.
func (b *Base) Name() string { return b.name }

// SetKind sets the resource kind.
func (b *Base) SetKind(k string) { b.kind = k }

// SetName sets the resource name.
func (b *Base) SetName(n string) { b.name = n }

// MetaParams returns the metaparameters, never nil.
func (b *Base) MetaParams() *engine.MetaParams {
	if b.meta == nil {
		b.meta = &engine.MetaParams{}
	}
	return b.meta
}

// SetMetaParams sets the metaparameters.
func (b *Base) SetMetaParams(m *engine.MetaParams) { b.meta = m }

// String returns kind[name].
func (b *Base) String() string { return b.kind + "[" + b.name + "]" }

// Refreshable marks a resource that acts on refresh notifications.
type Refreshable struct{}

// Refreshable reports true.
func (Refreshable) Refreshable() bool { return true }

// Stateless is embedded by resources that leave no state that could
// drift (noop, msg, print, exit): they are Subscribers whose subscription
// follows nothing, so that an idle graph holds no goroutine for them. Their
// Watch, which the engine uses with Meta:poll, reports running and waits.
type Stateless struct{}

// Subscribe follows nothing: no event ever comes.
func (Stateless) Subscribe(fail func(error)) (stop func(), err error) { return func() {}, nil }

// Edgeable is embedded by resources that take part in automatic edges.
type Edgeable struct{}

// Groupable keeps the group of a resource that other resources were merged
// into.
type Groupable struct {
	grouped bool
	group   []engine.Groupable
}

// IsGrouped reports whether the resource was merged into another one.
func (g *Groupable) IsGrouped() bool { return g.grouped }

// SetGrouped marks the resource as merged into another one.
func (g *Groupable) SetGrouped(b bool) { g.grouped = b }

// GetGroup returns the resources merged into this one.
func (g *Groupable) GetGroup() []engine.Groupable { return g.group }

// GroupRes adds r to the group of the receiver. A resource that already
// has a group of its own cannot be grouped again.
func (g *Groupable) GroupRes(r engine.Groupable) error {
	if len(r.GetGroup()) > 0 {
		return fmt.Errorf("%s already has a group", r)
	}
	r.SetGrouped(true)
	g.group = append(g.group, r)
	return nil
}

// SetGroup replaces the resources merged into this one.
func (g *Groupable) SetGroup(rs []engine.Groupable) { g.group = rs }

// Sendable stores the values a resource sent in its last CheckApply.
type Sendable struct {
	mu   sync.Mutex
	sent any
}

// Send stores st as the values sent.
func (s *Sendable) Send(st any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = st
	return nil
}

// Sent returns the values last sent, or nil.
func (s *Sendable) Sent() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// Recvable stores the received values of a resource. It is one word
// (most resources of a graph receive nothing): the values are swapped
// whole, through a pointer to them.
type Recvable struct {
	recv atomic.Pointer[map[string]*engine.Send]
}

// SetRecv sets the received values.
func (r *Recvable) SetRecv(m map[string]*engine.Send) {
	if m == nil {
		r.recv.Store(nil)
		return
	}
	r.recv.Store(&m)
}

// Recv returns the received values.
func (r *Recvable) Recv() map[string]*engine.Send {
	if p := r.recv.Load(); p != nil {
		return *p
	}
	return nil
}
