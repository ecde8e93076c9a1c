// Package worldapi is what resources and functions see of the shared
// world: the interfaces a world offers them and the values those carry.
// It imports no etcd, gRPC or protobuf package, so that a resource kind
// that uses the world (the kv and schedule kinds, json_edit) does not link
// them into every program that runs resources: pkg/world implements these
// interfaces over etcd, and a tool passes its world to the engine (whose
// Init.World, a Handle, only promises a Hostname).
package worldapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// A Handle is the world as the stages pass it along: the engine to
// resources (engine.Init.World), the compiler to functions
// (funcs.Env.World). It promises only the host's name; every interface
// below is a Handle, and a user asserts the narrowest one it needs (and
// says so when the world given lacks it), so tests can give it a smaller
// fake and the tools a world.Client.
type Handle interface {
	// Hostname is this host's name in the world.
	Hostname() string
}

// The interfaces below are the parts of the world that resources and
// functions use.

// StrWorld holds plain strings (the kv resource, world.getval).
type StrWorld interface {
	Handle
	StrGet(ctx context.Context, key string) (string, bool, error)
	StrSet(ctx context.Context, key, value string) error
	StrDel(ctx context.Context, key string) error
	StrWatch(ctx context.Context, key string) (<-chan error, error)
}

// StrMapWorld holds per-host strings (kv with mapped, world.kvlookup).
type StrMapWorld interface {
	Handle
	StrMapGet(ctx context.Context, namespace string) (map[string]string, error)
	StrMapGetHost(ctx context.Context, namespace string) (string, bool, error)
	StrMapSet(ctx context.Context, namespace, value string) error
	StrMapDel(ctx context.Context, namespace string) error
	StrMapWatch(ctx context.Context, namespace string) (<-chan error, error)
}

// ResWorld publishes and collects exported resources.
type ResWorld interface {
	Handle
	ResExport(ctx context.Context, rs []*graph.Resource) error
	ResCollect(ctx context.Context, kind string) ([]*Exported, error)
	ResWatch(ctx context.Context) <-chan error
}

// SchedulerWorld lets hosts volunteer for namespaces and read the result.
type SchedulerWorld interface {
	Handle
	SchedulerAdd(ctx context.Context, ns string, opts SchedOpts) error
	SchedulerWithdraw(ctx context.Context, ns string) error
	SchedulerRelease(ns string)
	SchedulerVolunteering(ctx context.Context, ns string) (SchedOpts, bool, error)
	Schedule(ctx context.Context, ns string) ([]string, error)
	ScheduleWatch(ctx context.Context, ns string) (<-chan error, error)
}

// ConvergedWorld shares each host's converged state.
type ConvergedWorld interface {
	Handle
	SetConverged(ctx context.Context, converged bool) error
	// Converged returns every recorded state, by host.
	Converged(ctx context.Context) (map[string]bool, error)
	// ConvergedState sums them up; after a notification of
	// ConvergedWatch it reflects at least the change notified.
	ConvergedState(ctx context.Context) (ConvergedState, error)
	ConvergedWatch(ctx context.Context) <-chan error
}

// World is everything a world.Client offers to resources and functions.
type World interface {
	StrWorld
	StrMapWorld
	ResWorld
	SchedulerWorld
	ConvergedWorld
}

// Scheduling strategies.
const (
	// StrategyFirst keeps the hosts that volunteered first: a chosen host
	// stays chosen while it volunteers. It is the default.
	StrategyFirst = "first"
	// StrategyAlpha chooses hosts in alphabetical order.
	StrategyAlpha = "alpha"
	// StrategyHash chooses hosts by a hash of namespace and hostname, which
	// spreads different namespaces over different hosts.
	StrategyHash = "hash"
)

// Strategies lists the valid strategy names.
var Strategies = []string{StrategyFirst, StrategyAlpha, StrategyHash}

// SchedOpts are a volunteer's wishes for a namespace. When volunteers
// disagree, the strategy and max of the earliest volunteer win; TTL and
// Persist are each volunteer's own: how long its entry outlives it.
type SchedOpts struct {
	Strategy string `json:"strategy,omitempty"`
	Max      int    `json:"max,omitempty"` // 0 means no limit
	// TTL, in seconds, gives the entry a lease of its own, refreshed
	// while this client runs: the entry stays that long after the host
	// goes away or releases it (SchedulerRelease). 0: the entry is on the
	// host's lease and goes with the host.
	TTL int `json:"ttl,omitempty"`
	// Persist keeps the entry on no lease at all: it stays until a
	// withdrawal.
	Persist bool `json:"persist,omitempty"`
}

// Validate reports an unknown strategy, a negative max or TTL, and a TTL
// with Persist.
func (o SchedOpts) Validate() error {
	if o.Max < 0 {
		return fmt.Errorf("max must not be negative, got %d", o.Max)
	}
	if o.TTL < 0 {
		return fmt.Errorf("ttl must not be negative, got %d", o.TTL)
	}
	if o.Persist && o.TTL > 0 {
		return fmt.Errorf("persist and ttl do not go together: a persistent entry never expires")
	}
	if o.Strategy == "" {
		return nil
	}
	for _, s := range Strategies {
		if o.Strategy == s {
			return nil
		}
	}
	return fmt.Errorf("unknown strategy %q, want one of %s", o.Strategy, strings.Join(Strategies, ", "))
}

// An Exported is a resource some host published to the world.
type Exported struct {
	From string          // the exporting host
	To   string          // the host it was exported to, or "*"
	Key  string          // the etcd key it was read from
	Res  *graph.Resource // the resource, its Export and Hidden metaparameters cleared
	// Err, when set, says why the collecting host must not apply Res:
	// the value does not decode, names another kind or name than its
	// key, or breaks its kind's graph.CollectRules. Res then holds
	// only the kind and name of the key.
	Err error
}

// ExportAll is the Meta:export host that means every host.
const ExportAll = "*"

// CheckHost reports whether h can be a hostname in the world: not empty,
// no slash or NUL, not "." or "..".
func CheckHost(h string) error {
	if h == "" {
		return fmt.Errorf("empty hostname")
	}
	if strings.ContainsAny(h, "/\x00") || h == "." || h == ".." {
		return fmt.Errorf("invalid hostname %q", h)
	}
	return nil
}

// AnyExported reports whether some resource of rs carries Meta:export.
func AnyExported(rs []*graph.Resource) bool {
	for _, r := range rs {
		if r.Meta != nil && len(r.Meta.Export) > 0 {
			return true
		}
	}
	return false
}
