package resources

import (
	"context"
	"fmt"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("noop", func() engine.Res { return &NoopRes{} })
}

// NoopRes does nothing: a placeholder vertex, and a hand-over point between
// graphs. Any two noops group into one vertex.
type NoopRes struct {
	traits.Base
	traits.Stateless
	traits.Groupable
	traits.Refreshable

	init *engine.Init

	// Comment is free text, shown nowhere but in the graph.
	Comment string `lang:"comment" yaml:"comment"`
}

// Default returns a noop resource.
func (obj *NoopRes) Default() engine.Res { return &NoopRes{} }

// Validate accepts any noop.
func (obj *NoopRes) Validate() error { return nil }

// Init keeps the handle.
func (obj *NoopRes) Init(init *engine.Init) error {
	obj.init = init
	return nil
}

// Cleanup does nothing.
func (obj *NoopRes) Cleanup() error { return nil }

// Watch has nothing to follow: a noop has no state that could drift.
func (obj *NoopRes) Watch(ctx context.Context) error {
	obj.init.Running()
	<-ctx.Done()
	return nil
}

// CheckApply finds the state right; a refresh is only logged.
func (obj *NoopRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	if obj.init != nil && obj.init.Refresh() {
		obj.init.Logf("received a refresh")
	}
	return true, nil
}

// Cmp compares two noops.
func (obj *NoopRes) Cmp(r engine.Res) error {
	res, ok := r.(*NoopRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.Comment != res.Comment {
		return fmt.Errorf("the comment differs")
	}
	return nil
}

// GroupCmp accepts any other noop.
func (obj *NoopRes) GroupCmp(r engine.Groupable) error {
	if _, ok := r.(*NoopRes); !ok {
		return fmt.Errorf("not a %T", obj)
	}
	return nil
}

// GroupRes adds r to the group.
func (obj *NoopRes) GroupRes(r engine.Groupable) error {
	if err := obj.GroupCmp(r); err != nil {
		return err
	}
	r.SetGrouped(true)
	obj.SetGroup(append(obj.GetGroup(), r))
	return nil
}
