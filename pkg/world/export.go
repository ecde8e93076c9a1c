package world

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// An Exported is a resource some host published to the world.
type Exported struct {
	From string          // the exporting host
	To   string          // the host it was exported to, or "*"
	Res  *graph.Resource // the resource, its Export and Hidden metaparameters cleared
}

// ExportAll is the Meta:export host that means every host.
const ExportAll = "*"

// ResExport makes the set of resources exported by this host exactly the
// resources of rs whose Meta.Export is not empty: new or changed ones are
// written, ones no longer exported are removed. The engine calls it with
// each new graph (and with nil on shutdown, to withdraw everything).
func (c *Client) ResExport(ctx context.Context, rs []*graph.Resource) error {
	want := map[string]string{}
	for _, r := range rs {
		if r.Meta == nil || len(r.Meta.Export) == 0 {
			continue
		}
		if r.Kind == "" || strings.Contains(r.Kind, "/") || r.Name == "" {
			return fmt.Errorf("cannot export %s: invalid kind or name", r.Ref())
		}
		cp := *r
		meta := *r.Meta
		// Hidden with export means "run it there, not here": the
		// collecting hosts get it visible.
		meta.Export, meta.Hidden = nil, false
		cp.Meta = &meta
		if reflect.DeepEqual(meta, graph.Meta{}) {
			cp.Meta = nil
		}
		b, err := json.Marshal(&cp)
		if err != nil {
			return fmt.Errorf("exporting %s: %v", r.Ref(), err)
		}
		for _, to := range r.Meta.Export {
			if err := checkHost(to); err != nil {
				return fmt.Errorf("exporting %s: %v", r.Ref(), err)
			}
			want[c.exportKey(to, c.hostname, r.Kind, r.Name)] = string(b)
		}
	}
	have, err := c.exportedByMe(ctx)
	if err != nil {
		return err
	}
	var ops []clientv3.Op
	for k := range have {
		if _, ok := want[k]; !ok {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	for k, v := range want {
		if have[k] != v {
			ops = append(ops, clientv3.OpPut(k, v))
		}
	}
	return c.commit(ctx, ops)
}

// commit applies ops in transactions of at most 100 operations (etcd's
// default limit is 128).
func (c *Client) commit(ctx context.Context, ops []clientv3.Op) error {
	for len(ops) > 0 {
		n := min(len(ops), 100)
		octx, cancel := opContext(ctx)
		_, err := c.cli.Txn(octx).Then(ops[:n]...).Commit()
		cancel()
		if err != nil {
			return err
		}
		ops = ops[n:]
	}
	return nil
}

// exportedByMe returns the keys (and values) of the resources this host
// exported.
func (c *Client) exportedByMe(ctx context.Context) (map[string]string, error) {
	all, err := c.GetPrefix(ctx, c.ns+exportedDir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range all {
		_, from, _, _, ok := parseExportKey(strings.TrimPrefix(k, c.ns+exportedDir))
		if ok && from == c.hostname {
			out[k] = v
		}
	}
	return out, nil
}

// ResCollect returns the resources exported to this host (or to every host)
// of the given kind ("" for any kind), sorted by kind, name and exporting
// host. Resources this host exported to itself are included.
func (c *Client) ResCollect(ctx context.Context, kind string) ([]*Exported, error) {
	all, err := c.GetPrefix(ctx, c.ns+exportedDir)
	if err != nil {
		return nil, err
	}
	var out []*Exported
	seen := map[string]bool{}
	for k, v := range all {
		to, from, k2, name, ok := parseExportKey(strings.TrimPrefix(k, c.ns+exportedDir))
		if !ok || (to != c.hostname && to != ExportAll) || (kind != "" && k2 != kind) {
			continue
		}
		id := from + "\x00" + k2 + "\x00" + name
		if seen[id] {
			continue // exported both to us and to "*"
		}
		var r graph.Resource
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("exported resource %s: %v", k, err)
		}
		r.Kind, r.Name = k2, name
		seen[id] = true
		out = append(out, &Exported{From: from, To: to, Res: &r})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Res.Kind != b.Res.Kind {
			return a.Res.Kind < b.Res.Kind
		}
		if a.Res.Name != b.Res.Name {
			return a.Res.Name < b.Res.Name
		}
		return a.From < b.From
	})
	return out, nil
}

// ResWatch notifies when the set of exported resources may have changed.
func (c *Client) ResWatch(ctx context.Context) <-chan error {
	return c.watch(ctx, c.ns+exportedDir, true)
}
