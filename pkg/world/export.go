package world

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

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
		cp.Meta = exportedMeta(r.Meta)
		b, err := json.Marshal(&cp)
		if err != nil {
			return fmt.Errorf("exporting %s: %v", r.Ref(), err)
		}
		for _, to := range r.Meta.Export {
			if err := checkHost(to); err != nil {
				return fmt.Errorf("exporting %s: %v", r.Ref(), err)
			}
			want[c.exportKey(c.hostname, to, r.Kind, r.Name)] = string(b)
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

// exportedMeta returns the metaparameters of an exported copy: m without
// Export and Hidden (hidden with export means "run it there, not here":
// the collecting hosts get it visible), nil when nothing else is set.
func exportedMeta(m *graph.Meta) *graph.Meta {
	if m == nil {
		return nil
	}
	meta := *m
	meta.Export, meta.Hidden = nil, false
	if reflect.DeepEqual(meta, graph.Meta{}) {
		return nil
	}
	return &meta
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
	return c.GetPrefix(ctx, c.ns+exportsDir+c.hostname+"/")
}

// ResCollect returns the resources exported to this host (or to every host)
// of the given kind ("" for any kind), sorted by kind, name and exporting
// host. Resources this host exported to itself are included. An entry the
// collecting host must not apply is returned with Err set (see Exported),
// so that the caller can report it; the others are unaffected by it.
func (c *Client) ResCollect(ctx context.Context, kind string) ([]*Exported, error) {
	all, err := c.GetPrefix(ctx, c.ns+exportsDir)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Exported{}
	for k, v := range all {
		from, to, k2, name, ok := parseExportKey(strings.TrimPrefix(k, c.ns+exportsDir))
		if !ok || (to != c.hostname && to != ExportAll) || (kind != "" && k2 != kind) {
			continue
		}
		// Exported both to us and to "*": the copy addressed to us wins.
		id := from + "\x00" + k2 + "\x00" + name
		if old, dup := byID[id]; dup && old.To != ExportAll {
			continue
		}
		e := &Exported{From: from, To: to, Key: k, Res: &graph.Resource{Kind: k2, Name: name}}
		if r, err := decodeExported(k2, name, v); err != nil {
			e.Err = err
		} else {
			e.Res = r
		}
		byID[id] = e
	}
	out := slices.Collect(maps.Values(byID))
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

// decodeExported decodes the value of an exported resource whose key
// names kind and name. The value must agree with the key: a kind or name
// of its own, when present, must be the key's (the collecting host selects
// by the key). The result must pass graph.CheckCollected.
func decodeExported(kind, name, v string) (*graph.Resource, error) {
	var r graph.Resource
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("undecodable value: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("undecodable value: data after the resource")
	}
	if r.Kind != "" && r.Kind != kind {
		return nil, fmt.Errorf("the value names kind %q, the key %q", r.Kind, kind)
	}
	if r.Name != "" && r.Name != name {
		return nil, fmt.Errorf("the value names %q, the key %q", r.Name, name)
	}
	r.Kind, r.Name = kind, name
	// A value written by other means than ResExport may carry them: a
	// collected copy exported again would go on under this host's name.
	r.Meta = exportedMeta(r.Meta)
	if err := graph.CheckCollected(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ResWatch notifies when the set of exported resources may have changed.
func (c *Client) ResWatch(ctx context.Context) <-chan error {
	return c.watch(ctx, c.ns+exportsDir, true)
}
