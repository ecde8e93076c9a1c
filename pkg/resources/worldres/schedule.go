package worldres

import (
	"context"
	"fmt"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/world"
)

// ScheduleRes makes this host volunteer for a namespace of the world's
// scheduler, with a strategy and a maximum number of chosen hosts; mcl's
// world.schedule reads who was chosen. The volunteer entry lives on the
// host's lease: it vanishes when the host dies, and is withdrawn when the
// resource leaves the graph.
type ScheduleRes struct {
	traits.Base

	init *engine.Init
	w    world.SchedulerWorld

	// Namespace defaults to the resource name; a collected one must equal
	// it.
	Namespace string `lang:"namespace" yaml:"namespace" collect:"name"`
	// Strategy is one of world.Strategies; empty means "first".
	Strategy string `lang:"strategy" yaml:"strategy"`
	// Max is the number of hosts to choose; 0 means all volunteers.
	Max int `lang:"max" yaml:"max"`
}

// Default returns a schedule resource.
func (s *ScheduleRes) Default() engine.Res { return &ScheduleRes{} }

func (s *ScheduleRes) ns() string {
	if s.Namespace != "" {
		return s.Namespace
	}
	return s.Name()
}

func (s *ScheduleRes) opts() world.SchedOpts {
	return world.SchedOpts{Strategy: s.Strategy, Max: s.Max}
}

// Validate checks the namespace, strategy and max.
func (s *ScheduleRes) Validate() error {
	if s.ns() == "" {
		return fmt.Errorf("empty namespace")
	}
	return s.opts().Validate()
}

// Init finds the world.
func (s *ScheduleRes) Init(init *engine.Init) error {
	s.init = init
	w, ok := init.World.(world.SchedulerWorld)
	if !ok || init.World == nil {
		return fmt.Errorf("schedule needs the world: run with --seeds, or let the tool start its embedded one")
	}
	s.w = w
	return nil
}

// Cleanup withdraws this host from the namespace.
func (s *ScheduleRes) Cleanup() error {
	if s.w == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.w.SchedulerWithdraw(ctx, s.ns())
}

// Watch follows the volunteers.
func (s *ScheduleRes) Watch(ctx context.Context) error {
	ch, err := s.w.ScheduleWatch(ctx, s.ns())
	if err != nil {
		return err
	}
	return follow(ctx, ch, s.init)
}

// CheckApply volunteers with the wanted options.
func (s *ScheduleRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	have, ok, err := s.w.SchedulerVolunteering(ctx, s.ns())
	if err != nil {
		return false, err
	}
	if ok && have == s.opts() {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	return false, s.w.SchedulerAdd(ctx, s.ns(), s.opts())
}

// Cmp compares two schedule resources.
func (s *ScheduleRes) Cmp(r engine.Res) error {
	o, ok := r.(*ScheduleRes)
	if !ok {
		return fmt.Errorf("not a schedule resource")
	}
	if s.ns() != o.ns() || s.opts() != o.opts() {
		return fmt.Errorf("namespace, strategy or max differs")
	}
	return nil
}
