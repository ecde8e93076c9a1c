package world

import (
	"context"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// The interfaces below are the parts of the world that resources and
// functions use. A resource asserts the narrowest one it needs on the
// engine's Init.World (which only promises Hostname), so tests can give it
// a smaller fake and the engine a Client.

// StrWorld holds plain strings (the kv resource, world.getval).
type StrWorld interface {
	Hostname() string
	StrGet(ctx context.Context, key string) (string, bool, error)
	StrSet(ctx context.Context, key, value string) error
	StrDel(ctx context.Context, key string) error
	StrWatch(ctx context.Context, key string) (<-chan error, error)
}

// StrMapWorld holds per-host strings (kv with mapped, world.kvlookup).
type StrMapWorld interface {
	Hostname() string
	StrMapGet(ctx context.Context, namespace string) (map[string]string, error)
	StrMapGetHost(ctx context.Context, namespace string) (string, bool, error)
	StrMapSet(ctx context.Context, namespace, value string) error
	StrMapDel(ctx context.Context, namespace string) error
	StrMapWatch(ctx context.Context, namespace string) (<-chan error, error)
}

// ResWorld publishes and collects exported resources.
type ResWorld interface {
	Hostname() string
	ResExport(ctx context.Context, rs []*graph.Resource) error
	ResCollect(ctx context.Context, kind string) ([]*Exported, error)
	ResWatch(ctx context.Context) <-chan error
}

// SchedulerWorld lets hosts volunteer for namespaces and read the result.
type SchedulerWorld interface {
	Hostname() string
	SchedulerAdd(ctx context.Context, ns string, opts SchedOpts) error
	SchedulerWithdraw(ctx context.Context, ns string) error
	SchedulerRelease(ns string)
	SchedulerVolunteering(ctx context.Context, ns string) (SchedOpts, bool, error)
	Schedule(ctx context.Context, ns string) ([]string, error)
	ScheduleWatch(ctx context.Context, ns string) (<-chan error, error)
}

// ConvergedWorld shares each host's converged state.
type ConvergedWorld interface {
	Hostname() string
	SetConverged(ctx context.Context, converged bool) error
	Converged(ctx context.Context) (map[string]bool, error)
	ConvergedWatch(ctx context.Context) <-chan error
}

// World is everything a Client offers to resources and functions.
type World interface {
	StrWorld
	StrMapWorld
	ResWorld
	SchedulerWorld
	ConvergedWorld
}

var _ World = (*Client)(nil)
