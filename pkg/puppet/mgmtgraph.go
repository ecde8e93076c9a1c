package puppet

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// ImportMgmtgraph reads the YAML the reference translator (puppet mgmtgraph
// print) wrote and adapts it to our kinds: parameters a registered kind
// does not have (exec state and pollint, pippet pollint, ...) are dropped
// with a warning, numbers are coerced to the declared types, and the
// parallel edges the reference emits collapse to one.
func ImportMgmtgraph(r io.Reader, name string, opts Options) (*graph.Document, error) {
	docs, err := graph.ReadAll(r, name)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: want one graph, got %d", name, len(docs))
	}
	if opts.Schema == nil {
		opts.Schema = graph.LookupKind
	}
	doc := docs[0]
	doc.Mgmt = graph.Version
	for _, res := range doc.Resources {
		res.Origin = "puppet"
		s, ok := opts.Schema(res.Kind)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(res.Params))
		for k := range res.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			typ, ok := s.Params[k]
			if !ok {
				if opts.Log != nil {
					opts.Log(fmt.Sprintf("Warning: %s drops parameter '%s' (value: %s): kind %s has no such parameter", res.Ref(), k, inspect(res.Params[k]), res.Kind))
				}
				delete(res.Params, k)
				continue
			}
			res.Params[k] = coerce(normalizeNumber(res.Params[k]), typ)
		}
	}
	seen := map[[2]graph.Ref]*graph.Edge{}
	var edges []*graph.Edge
	for _, e := range doc.Edges {
		k := [2]graph.Ref{e.From, e.To}
		if old := seen[k]; old != nil {
			old.Notify = old.Notify || e.Notify
			continue
		}
		seen[k] = e
		edges = append(edges, e)
	}
	doc.Edges = edges
	Canonicalize(doc)
	return doc, nil
}

// normalizeNumber turns json.Number values into int64 or float64.
func normalizeNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}
