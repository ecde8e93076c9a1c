package graph

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlExportPrefix marks a graph.yaml resource as exported: "@@name".
const yamlExportPrefix = "@@"

// A graph.yaml document may export resources by naming them "@@name" and
// collect them with a top-level list of {kind, pattern} entries. Upstream
// mgmt keeps these within the document: an exported resource is applied
// (under its name without "@@") when a collect entry takes its kind, and
// nothing crosses to other hosts. The decoder does the same, with one
// difference: an exported resource whose kind no entry collects would be
// silently dropped there; here it is an error, since it would be applied
// nowhere. A pattern is accepted and, as upstream, selects nothing: every
// exported resource of a collected kind is kept.

// collectKinds reads the collect list: the kinds it names, lower case.
func (c *yconv) collectKinds(n *yaml.Node) map[string]bool {
	kinds := map[string]bool{}
	if n.ShortTag() == "!!null" {
		return kinds
	}
	if n.Kind != yaml.SequenceNode {
		c.errorf(n, "collect: got %s, want sequence", yamlKind(n))
		return kinds
	}
	for _, item := range n.Content {
		item = deref(item)
		if !c.mapping(item, "collect entry") {
			continue
		}
		kind := ""
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			switch k.Value {
			case "kind":
				kind = c.str(v, "collect kind")
			case "pattern":
				c.str(v, "collect pattern")
			default:
				c.errorf(k, "collect: unknown field %q", k.Value)
			}
		}
		if kind == "" {
			c.errorf(item, "collect entry without a kind")
			continue
		}
		kinds[strings.ToLower(kind)] = true
	}
	return kinds
}

// collectExported strips "@@" from the names of exported resources and
// checks that the collect list takes each one's kind.
func (c *yconv) collectExported(rs []*Resource, kinds map[string]bool) {
	for _, r := range rs {
		name, ok := strings.CutPrefix(r.Name, yamlExportPrefix)
		if !ok {
			continue
		}
		switch {
		case name == "":
			c.errs.Add(r.At.String(), "%s resource %q: an exported resource needs a name after %s", r.Kind, r.Name, yamlExportPrefix)
		case !kinds[strings.ToLower(r.Kind)]:
			c.errs.Add(r.At.String(), "%s resource %q is exported but no collect entry takes kind %s, so it would be applied nowhere: add {kind: %s} to collect, or drop the %s", r.Kind, r.Name, r.Kind, r.Kind, yamlExportPrefix)
		}
		r.Name = name
	}
}
