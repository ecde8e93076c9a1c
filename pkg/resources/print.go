package resources

import (
	"context"
	"fmt"
	"sync"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("print", func() engine.Res { return &PrintRes{} })
}

// PrintRes prints a message to the log: on its first CheckApply, whenever
// the message changes (it can be received), and on a refresh; with
// refresh_only, on a refresh only.
type PrintRes struct {
	traits.Base
	traits.Stateless
	traits.Refreshable
	traits.Recvable

	init *engine.Init

	// Msg is the message to print.
	Msg string `lang:"msg" yaml:"msg"`
	// RefreshOnly prints the message only when a notification arrives,
	// not at the start nor when the message changes.
	RefreshOnly bool `lang:"refresh_only" yaml:"refresh_only"`

	mu      sync.Mutex
	printed *string // the message last printed
}

// Default returns a print resource.
func (obj *PrintRes) Default() engine.Res { return &PrintRes{} }

// Validate accepts any message.
func (obj *PrintRes) Validate() error { return nil }

// Init keeps the handle.
func (obj *PrintRes) Init(init *engine.Init) error {
	obj.init = init
	return nil
}

// Cleanup does nothing.
func (obj *PrintRes) Cleanup() error { return nil }

// Watch has nothing to follow: printing leaves no state that could drift.
func (obj *PrintRes) Watch(ctx context.Context) error {
	obj.init.Running()
	<-ctx.Done()
	return nil
}

// CheckApply prints the message when it is due. Printing changes nothing
// on the system, so the state is always right.
func (obj *PrintRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init != nil && obj.init.Refresh()
	obj.mu.Lock()
	due := refresh || !obj.RefreshOnly && (obj.printed == nil || *obj.printed != obj.Msg)
	if due {
		m := obj.Msg
		obj.printed = &m
	}
	obj.mu.Unlock()
	if due && obj.init != nil {
		obj.init.Logf("msg: %s", obj.Msg)
	}
	return true, nil
}

// Cmp compares two print resources.
func (obj *PrintRes) Cmp(r engine.Res) error {
	res, ok := r.(*PrintRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.Msg != res.Msg {
		return fmt.Errorf("the msg differs")
	}
	if obj.RefreshOnly != res.RefreshOnly {
		return fmt.Errorf("refresh_only differs")
	}
	return nil
}
