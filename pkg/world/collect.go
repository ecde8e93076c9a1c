package world

import (
	"context"
	"sort"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// exports returns the client's tree of the exports (see tree), starting
// it on first use. It keeps the exported resources addressed to this host
// or to every host, decoded once, grouped by kind. Without it, every
// collecting host read the whole exports tree (one key per exporting host
// and receiver) each time any key changed, which costs on the order of
// hosts³ across a world where every host exports to every other one.
func (c *Client) exports() *tree[*Exported] {
	return startTree(c, &c.exp, exportsDir, "exports", c.parseExport)
}

// parseExport returns the entry of kv, grouped by kind, or false when it
// is not an exported resource addressed to this host or to every host.
func (c *Client) parseExport(kv *mvccpb.KeyValue) (string, *Exported, bool) {
	k := string(kv.Key)
	from, to, kind, name, ok := parseExportKey(strings.TrimPrefix(k, c.ns+exportsDir))
	if !ok || (to != c.hostname && to != ExportAll) {
		return "", nil, false
	}
	e := &Exported{From: from, To: to, Key: k, Res: &graph.Resource{Kind: kind, Name: name}}
	if r, err := decodeExported(kind, name, string(kv.Value)); err != nil {
		e.Err = err
	} else {
		e.Res = r
	}
	return kind, e, true
}

// collect returns the entries of kind ("" for any), one per exporting
// host, kind and name (the copy addressed to this host wins over the one
// to every host), sorted by kind, name and exporting host.
func collect(x *tree[*Exported], kind string) []*Exported {
	byID := map[string]*Exported{}
	x.view(func(_ map[string]string, groups map[string]map[string]*Exported) {
		for k, entries := range groups {
			if kind != "" && k != kind {
				continue
			}
			for _, e := range entries {
				id := e.From + "\x00" + e.Res.Kind + "\x00" + e.Res.Name
				if old, dup := byID[id]; dup && old.To != ExportAll {
					continue
				}
				byID[id] = e
			}
		}
	})
	out := make([]*Exported, 0, len(byID))
	for _, e := range byID {
		cp := *e
		out = append(out, &cp)
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
	return out
}

// ResCollect returns the resources exported to this host (or to every host)
// of the given kind ("" for any kind), sorted by kind, name and exporting
// host. Resources this host exported to itself are included. An entry the
// collecting host must not apply is returned with Err set (see Exported),
// so that the caller can report it; the others are unaffected by it.
//
// The result reflects every write committed before the call. It comes
// from the client's tree of the exports (see exports), which the first
// call fills with one read of the whole tree and a watch keeps up to
// date; the resources are shared with the tree and must not be modified.
func (c *Client) ResCollect(ctx context.Context, kind string) ([]*Exported, error) {
	x := c.exports()
	if err := x.await(ctx); err != nil {
		return nil, err
	}
	return collect(x, kind), nil
}

// ResWatch notifies when the resources exported to this host may have
// changed: nil once the exports have been read, and after every change of
// an entry addressed to this host or to every host (changes addressed to
// other hosts wake nobody here); an error when the watch broke (it is then
// read again and followed after a pause). The channel closes when ctx is
// done.
func (c *Client) ResWatch(ctx context.Context) <-chan error {
	return c.exports().subscribe(ctx, "", true)
}
