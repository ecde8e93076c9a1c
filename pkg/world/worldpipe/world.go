package worldpipe

import (
	"context"
	"errors"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// The World methods: each is one request to the child.

func (c *Client) StrGet(ctx context.Context, key string) (string, bool, error) {
	r, err := c.do(ctx, request{Op: opStrGet, Key: key})
	return r.Str, r.OK, err
}

func (c *Client) StrSet(ctx context.Context, key, value string) error {
	_, err := c.do(ctx, request{Op: opStrSet, Key: key, Value: value})
	return err
}

func (c *Client) StrDel(ctx context.Context, key string) error {
	_, err := c.do(ctx, request{Op: opStrDel, Key: key})
	return err
}

func (c *Client) StrWatch(ctx context.Context, key string) (<-chan error, error) {
	return c.watch(ctx, request{Op: opStrWatch, Key: key})
}

func (c *Client) StrMapGet(ctx context.Context, namespace string) (map[string]string, error) {
	r, err := c.do(ctx, request{Op: opStrMapGet, Key: namespace})
	if err == nil && r.Map == nil {
		r.Map = map[string]string{}
	}
	return r.Map, err
}

func (c *Client) StrMapGetHost(ctx context.Context, namespace string) (string, bool, error) {
	r, err := c.do(ctx, request{Op: opStrMapGetHost, Key: namespace})
	return r.Str, r.OK, err
}

func (c *Client) StrMapSet(ctx context.Context, namespace, value string) error {
	_, err := c.do(ctx, request{Op: opStrMapSet, Key: namespace, Value: value})
	return err
}

func (c *Client) StrMapDel(ctx context.Context, namespace string) error {
	_, err := c.do(ctx, request{Op: opStrMapDel, Key: namespace})
	return err
}

func (c *Client) StrMapWatch(ctx context.Context, namespace string) (<-chan error, error) {
	return c.watch(ctx, request{Op: opStrMapWatch, Key: namespace})
}

// ResExport does nothing while the world is unused and rs exports
// nothing, so graphs without exports never start a child.
func (c *Client) ResExport(ctx context.Context, rs []*graph.Resource) error {
	if !c.Started() && !worldapi.AnyExported(rs) {
		return nil
	}
	_, err := c.do(ctx, request{Op: opResExport, Res: rs})
	return err
}

func (c *Client) ResCollect(ctx context.Context, kind string) ([]*worldapi.Exported, error) {
	r, err := c.do(ctx, request{Op: opResCollect, Key: kind})
	if err != nil {
		return nil, err
	}
	out := make([]*worldapi.Exported, len(r.Exported))
	for i, x := range r.Exported {
		out[i] = &worldapi.Exported{From: x.From, To: x.To, Key: x.Key, Res: x.Res}
		if x.Err != "" {
			out[i].Err = errors.New(x.Err)
		}
	}
	return out, nil
}

func (c *Client) ResWatch(ctx context.Context) <-chan error {
	return c.mustWatch(ctx, request{Op: opResWatch})
}

func (c *Client) SchedulerAdd(ctx context.Context, ns string, opts worldapi.SchedOpts) error {
	_, err := c.do(ctx, request{Op: opSchedAdd, Key: ns, Sched: &opts})
	return err
}

func (c *Client) SchedulerWithdraw(ctx context.Context, ns string) error {
	_, err := c.do(ctx, request{Op: opSchedWithdraw, Key: ns})
	return err
}

// SchedulerRelease releases the entry of ns when a child runs; without
// one there is nothing to keep alive.
func (c *Client) SchedulerRelease(ns string) {
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.call(ctx, request{Op: opSchedRelease, Key: ns})
}

func (c *Client) SchedulerVolunteering(ctx context.Context, ns string) (worldapi.SchedOpts, bool, error) {
	r, err := c.do(ctx, request{Op: opSchedVolunt, Key: ns})
	if r.Sched == nil {
		return worldapi.SchedOpts{}, r.OK, err
	}
	return *r.Sched, r.OK, err
}

func (c *Client) Schedule(ctx context.Context, ns string) ([]string, error) {
	r, err := c.do(ctx, request{Op: opSchedule, Key: ns})
	return r.List, err
}

func (c *Client) ScheduleWatch(ctx context.Context, ns string) (<-chan error, error) {
	return c.watch(ctx, request{Op: opScheduleWatch, Key: ns})
}

func (c *Client) SetConverged(ctx context.Context, converged bool) error {
	_, err := c.do(ctx, request{Op: opSetConverged, Bool: converged})
	return err
}

func (c *Client) Converged(ctx context.Context) (map[string]bool, error) {
	r, err := c.do(ctx, request{Op: opConverged})
	if err == nil && r.Bools == nil {
		r.Bools = map[string]bool{}
	}
	return r.Bools, err
}

func (c *Client) ConvergedState(ctx context.Context) (worldapi.ConvergedState, error) {
	r, err := c.do(ctx, request{Op: opConvState})
	if r.Conv == nil {
		return worldapi.ConvergedState{}, err
	}
	return *r.Conv, err
}

func (c *Client) ConvergedWatch(ctx context.Context) <-chan error {
	return c.mustWatch(ctx, request{Op: opConvWatch})
}

var _ worldapi.World = (*Client)(nil)
