package puppet

import (
	"encoding/json"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// A PuppetEnv says how the Puppet that runs pippet resources starts: with
// the module path, environment and puppet.conf the catalog was compiled
// with, so that module types (concat_file, file_line, cron, ...) load and
// puppet:///modules sources resolve. Empty fields mean Puppet's own
// configuration.
type PuppetEnv struct {
	ModulePath  []string
	Environment string
	Conf        string
}

// A companion is a resource Puppet needs in the same catalog as a pippet
// resource, applied in noop mode next to it: the concat_fragments a
// concat_file collects, the files managed below a recursive (purged)
// directory, the resources a resources { purge => true } keeps.
type companion struct {
	Type   string         `json:"type"`
	Title  string         `json:"title"`
	Params map[string]any `json:"params"`
	// res is the companion's own resource; shared is set for a fragment
	// that more than one concat_file collects.
	res    *catalog.Resource
	shared bool
}

// companions maps a vertex to the companions its pippet resource carries.
type companions map[*Vertex][]companion

// pippet is the catch-all translation: the resource is handed to Puppet.
func pippet(v *Vertex, opts Options, with []companion) *graph.Resource {
	p := map[string]any{}
	for k, val := range v.Res.Params {
		switch k {
		case "name", "before", "require", "notify", "subscribe":
			continue
		}
		p[k] = val
	}
	if nv := Namevar(v.Type); nv != "name" && p[nv] == nil {
		p[nv] = v.Name
	}
	js, _ := json.Marshal(p)
	params := map[string]any{
		"type":   v.Type,
		"title":  v.Res.Title,
		"params": string(js),
	}
	if len(opts.Puppet.ModulePath) > 0 {
		params["modulepath"] = strings.Join(opts.Puppet.ModulePath, ":")
	}
	if opts.Puppet.Environment != "" {
		params["environment"] = opts.Puppet.Environment
	}
	if opts.Puppet.Conf != "" {
		params["puppetconf"] = opts.Puppet.Conf
	}
	if len(with) > 0 {
		cj, _ := json.Marshal(with)
		params["companions"] = string(cj)
	}
	if len(v.Res.Sensitive) > 0 {
		params["sensitive"] = toAnyList(v.Res.Sensitive)
	}
	return &graph.Resource{
		Kind:   "pippet",
		Name:   rubyCapitalize(v.Type) + "[" + v.Name + "]",
		Params: params,
		Origin: "puppet",
		Pos:    v.Res.Pos(),
	}
}

// findCompanions finds the companions of every resource that needs some.
func findCompanions(g *RelGraph) companions {
	out := companions{}
	byType := map[string][]*Vertex{}
	for _, v := range g.Vertices {
		if v.Res != nil {
			byType[v.Type] = append(byType[v.Type], v)
		}
	}
	concatCompanions(out, byType)
	fileCompanions(out, byType["file"])
	for _, v := range byType["resources"] {
		if !truthyParam(v.Res.Params["purge"]) {
			continue
		}
		for _, w := range byType[strings.ToLower(v.Name)] {
			out[v] = append(out[v], companion{Type: w.Type, Title: w.Res.Title, Params: companionParams(w)})
		}
	}
	return out
}

// concatCompanions gives each concat_file the fragments it collects: by
// target (its path or title) or by its tag, when both have one; in the
// order of the graph's vertices.
func concatCompanions(out companions, byType map[string][]*Vertex) {
	frags := byType["concat_fragment"]
	byTarget, byTag := map[string][]int{}, map[string][]int{}
	for i, fr := range frags {
		if target, ok := fr.Res.Params["target"].(string); ok {
			byTarget[target] = append(byTarget[target], i)
		}
		if tag, ok := fr.Res.Params["tag"].(string); ok {
			byTag[tag] = append(byTag[tag], i)
		}
	}
	collected := map[*catalog.Resource]int{}
	for _, f := range byType["concat_file"] {
		idx := slices.Concat(byTarget[f.Name], byTarget[f.Res.Title])
		if tag, ok := f.Res.Params["tag"].(string); ok {
			idx = append(idx, byTag[tag]...)
		}
		slices.Sort(idx)
		for _, i := range slices.Compact(idx) {
			fr := frags[i]
			out[f] = append(out[f], companion{Type: "concat_fragment", Title: fr.Res.Title, Params: companionParams(fr), res: fr.Res})
			collected[fr.Res]++
		}
	}
	for _, f := range byType["concat_file"] {
		for i, c := range out[f] {
			out[f][i].shared = collected[c.res] > 1
		}
	}
}

// fileCompanions gives each recursive file the files managed below it
// (bare: only their presence matters), so that Puppet neither generates
// nor purges what other resources manage.
func fileCompanions(out companions, files []*Vertex) {
	var recursing []*Vertex
	for _, v := range files {
		if r := v.Res.Params["recurse"]; r != nil && r != false && r != "false" {
			recursing = append(recursing, v)
		}
	}
	if len(recursing) == 0 {
		return // the files need not be sorted
	}
	sorted := append([]*Vertex(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, v := range recursing {
		prefix := strings.TrimSuffix(v.Name, "/") + "/"
		i := sort.Search(len(sorted), func(i int) bool { return sorted[i].Name >= prefix })
		for ; i < len(sorted) && strings.HasPrefix(sorted[i].Name, prefix); i++ {
			w := sorted[i]
			out[v] = append(out[v], companion{Type: "file", Title: path.Clean(w.Name), Params: map[string]any{}})
		}
	}
}

// companionParams are the parameters of a companion: all but the
// relationships, which belong to the graph.
func companionParams(v *Vertex) map[string]any {
	p := map[string]any{}
	for k, val := range v.Res.Params {
		switch k {
		case "before", "require", "notify", "subscribe":
			continue
		}
		p[k] = val
	}
	return p
}
