package world

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

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
// exported, as the cluster holds them after every write committed before
// the call: from the client's tree of its own exports, read once and then
// followed (see tree), so that exporting a new graph reads no key that is
// already known, and a key changed or removed by other means (an
// operator's mgmt-cluster del) is still seen and written again.
func (c *Client) exportedByMe(ctx context.Context) (map[string]string, error) {
	x := startTree(c, &c.own, exportsDir+c.hostname+"/", "own-exports", func(kv *mvccpb.KeyValue) (string, string, bool) {
		return "", string(kv.Value), true
	})
	if err := x.await(ctx); err != nil {
		return nil, err
	}
	out := map[string]string{}
	x.view(func(_ map[string]string, groups map[string]map[string]string) {
		for k, v := range groups[""] {
			out[k] = v
		}
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
