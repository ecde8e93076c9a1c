package worldres

import (
	"context"
	"fmt"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// ScheduleRes makes this host volunteer for a namespace of the world's
// scheduler, with a strategy and a maximum number of chosen hosts; mcl's
// world.schedule reads who was chosen. By default the volunteer entry
// lives on the host's lease: it vanishes when the host dies, and is
// withdrawn when the resource leaves the graph. With ttl it has a lease
// of its own and stays that many seconds after the host dies or the
// resource leaves; with persist it stays until a schedule resource with
// withdraw removes it.
type ScheduleRes struct {
	traits.Base

	init *engine.Init
	w    worldapi.SchedulerWorld

	// Namespace defaults to the resource name; a collected one must equal
	// it.
	Namespace string `lang:"namespace" yaml:"namespace" collect:"name"`
	// Strategy is one of worldapi.Strategies (or "rr", upstream's name of
	// the default); empty means "first".
	Strategy string `lang:"strategy" yaml:"strategy"`
	// Max is the number of hosts to choose; 0 means all volunteers.
	Max int `lang:"max" yaml:"max"`
	// Persist keeps this host's entry when the host goes away or the
	// resource leaves the graph, until a withdrawal. Not with ttl.
	Persist bool `lang:"persist" yaml:"persist"`
	// TTL is how many seconds this host's entry outlives the host, or
	// the resource once it left the graph (unset: it goes with them).
	TTL *int `lang:"ttl" yaml:"ttl"`
	// Withdraw removes this host from the namespace (a persistent entry
	// included) instead of volunteering; not with strategy, max, persist
	// or ttl.
	Withdraw bool `lang:"withdraw" yaml:"withdraw"`

	added bool // this process made (or refreshed) the entry
}

// Default returns a schedule resource.
func (s *ScheduleRes) Default() engine.Res { return &ScheduleRes{} }

func (s *ScheduleRes) ns() string {
	if s.Namespace != "" {
		return s.Namespace
	}
	return s.Name()
}

func (s *ScheduleRes) opts() worldapi.SchedOpts {
	o := worldapi.SchedOpts{Strategy: s.Strategy, Max: s.Max, Persist: s.Persist}
	if o.Strategy == "rr" {
		o.Strategy = worldapi.StrategyFirst
	}
	if s.TTL != nil {
		o.TTL = *s.TTL
	}
	return o
}

// Validate checks the namespace, strategy, max, ttl and the combinations
// upstream refuses.
func (s *ScheduleRes) Validate() error {
	if s.ns() == "" {
		return fmt.Errorf("empty namespace")
	}
	if s.Withdraw && (s.Strategy != "" || s.Max != 0 || s.Persist || s.TTL != nil) {
		return fmt.Errorf("withdraw takes no strategy, max, persist or ttl")
	}
	if s.TTL != nil && *s.TTL <= 0 {
		return fmt.Errorf("ttl must be positive, got %d", *s.TTL)
	}
	return s.opts().Validate()
}

// Init finds the world.
func (s *ScheduleRes) Init(init *engine.Init) error {
	s.init = init
	w, ok := init.World.(worldapi.SchedulerWorld)
	if !ok || init.World == nil {
		return fmt.Errorf("schedule needs the world: run with --seeds, or let the tool start its embedded one")
	}
	s.w = w
	return nil
}

// Cleanup withdraws this host from the namespace, unless the entry is to
// outlive the resource (persist, ttl): it is then only no longer kept
// alive.
func (s *ScheduleRes) Cleanup() error {
	if s.w == nil || s.Withdraw {
		return nil
	}
	if s.Persist || s.TTL != nil {
		s.w.SchedulerRelease(s.ns())
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

// CheckApply volunteers with the wanted options, or withdraws. An entry
// with a ttl that an earlier process left is taken over (its lease is
// then kept alive by this one).
func (s *ScheduleRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	have, ok, err := s.w.SchedulerVolunteering(ctx, s.ns())
	if err != nil {
		return false, err
	}
	if s.Withdraw {
		if !ok {
			return true, nil
		}
		if !apply {
			return false, nil
		}
		return false, s.w.SchedulerWithdraw(ctx, s.ns())
	}
	if ok && have == s.opts() && (s.added || s.TTL == nil) {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	if err := s.w.SchedulerAdd(ctx, s.ns(), s.opts()); err != nil {
		return false, err
	}
	s.added = true
	return false, nil
}

// Cmp compares two schedule resources.
func (s *ScheduleRes) Cmp(r engine.Res) error {
	o, ok := r.(*ScheduleRes)
	if !ok {
		return fmt.Errorf("not a schedule resource")
	}
	if s.ns() != o.ns() || s.opts() != o.opts() || s.Withdraw != o.Withdraw {
		return fmt.Errorf("namespace, strategy, max, persist, ttl or withdraw differs")
	}
	return nil
}
