package graph

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// summary prints a graph as the reference's merged.txt files do: vertices
// sorted by (kind, name), edges as sorted "kind[name] -> kind[name]" strings.
func summary(d *Document) string {
	var vs, es []string
	c := Canonical(d)
	for _, r := range c.Resources {
		vs = append(vs, r.Ref().String())
	}
	for _, e := range d.Edges {
		es = append(es, e.From.String()+" -> "+e.To.String())
	}
	sort.Strings(es)
	var b strings.Builder
	b.WriteString("graph: " + d.Graph + "\nvertices:\n")
	for _, v := range vs {
		b.WriteString("  - " + v + "\n")
	}
	b.WriteString("edges:\n")
	for _, e := range es {
		b.WriteString("  - " + e + "\n")
	}
	return b.String()
}

func readInput(t *testing.T, file string) Input {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	docs, err := ReadAll(f, file)
	if err != nil {
		t.Fatal(err)
	}
	if err := docs[0].Validate(); err != nil {
		t.Fatal(err)
	}
	return Input{Name: file, Doc: docs[0]}
}

func TestMergeGolden(t *testing.T) {
	for _, ex := range []string{"ex2", "ex3"} {
		t.Run(ex, func(t *testing.T) {
			out, warns, err := Merge(MergeOptions{}, readInput(t, ex+".lang.yaml"), readInput(t, ex+".mgmtgraph.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			want, err := os.ReadFile("testdata/" + ex + ".merged.txt")
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(out); got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func mergeStrings(t *testing.T, opts MergeOptions, ins ...string) (*Document, []string, error) {
	t.Helper()
	var inputs []Input
	for i, in := range ins {
		name := string(rune('a'+i)) + ".json"
		docs, err := ReadAll(strings.NewReader(in), name)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Name: name, Doc: docs[0]})
	}
	return Merge(opts, inputs...)
}

const puppetSide = `graph: p
resources:
  noop:
  - name: admissible_Stage[main]
  - name: completed_Stage[main]
  - name: admissible_Class[Mgmt_x::Y]
  - name: completed_Class[Mgmt_x::Y]
  file:
  - name: /before
  - name: /after
edges:
- {from: {kind: noop, name: "admissible_Stage[main]"}, to: {kind: noop, name: "admissible_Class[Mgmt_x::Y]"}}
- {from: {kind: noop, name: "completed_Class[Mgmt_x::Y]"}, to: {kind: noop, name: "completed_Stage[main]"}}
- {from: {kind: noop, name: "admissible_Class[Mgmt_x::Y]"}, to: {kind: noop, name: "completed_Class[Mgmt_x::Y]"}}
- {from: {kind: file, name: /before}, to: {kind: noop, name: "admissible_Class[Mgmt_x::Y]"}}
- {from: {kind: noop, name: "completed_Class[Mgmt_x::Y]"}, to: {kind: file, name: /after}}
`

func TestMergeHandover(t *testing.T) {
	lang := doc(`"graph":"l","resources":[{"kind":"noop","name":"puppet_x::y","meta":{"retry":2},"pos":"m.mcl:1:1"},{"kind":"file","name":"/mine"}],` +
		`"edges":[{"from":{"kind":"noop","name":"puppet_x::y"},"to":{"kind":"file","name":"/mine"},"notify":true}]`)
	out, _, err := mergeStrings(t, MergeOptions{}, lang, puppetSide)
	if err != nil {
		t.Fatal(err)
	}
	want := `graph: l+p
vertices:
  - file[/after]
  - file[/before]
  - file[/mine]
  - noop[admissible_Stage[main]]
  - noop[completed_Stage[main]]
  - noop[x::y]
edges:
  - file[/before] -> noop[x::y]
  - noop[admissible_Stage[main]] -> noop[x::y]
  - noop[x::y] -> file[/after]
  - noop[x::y] -> file[/mine]
  - noop[x::y] -> noop[completed_Stage[main]]
`
	if got := summary(out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	x := NewIndex(out).Lookup(Ref{"noop", "x::y"})
	if x == nil || x.Meta == nil || x.Meta.Retry != 2 || x.Pos != "m.mcl:1:1" {
		t.Errorf("merged vertex lost the mcl noop's meta or pos: %+v", x)
	}
	for _, e := range out.Edges {
		if e.To.Name == "/mine" && !e.Notify {
			t.Errorf("mcl edge lost notify")
		}
	}
}

func TestMergeErrors(t *testing.T) {
	lang := func(names ...string) string {
		var rs []string
		for _, n := range names {
			rs = append(rs, `{"kind":"noop","name":"`+n+`"}`)
		}
		return doc(`"graph":"l","resources":[` + strings.Join(rs, ",") + `]`)
	}
	nonEmpty := strings.Replace(puppetSide, "- {from: {kind: file, name: /before}", "- {from: {kind: noop, name: \"admissible_Class[Mgmt_x::Y]\"}, to: {kind: file, name: /inside}}\n- {from: {kind: file, name: /before}", 1)
	nonEmpty = strings.Replace(nonEmpty, "  - name: /after\n", "  - name: /after\n  - name: /inside\n", 1)
	tests := []struct {
		name  string
		opts  MergeOptions
		ins   []string
		want  string
		warns string
	}{
		{"unmatched class", MergeOptions{}, []string{lang("other"), puppetSide}, "b.json:6:5: unmatched class mgmt_x::y: no noop[puppet_x::y] in any input (noop[admissible_Class[Mgmt_x::Y]] from b.json)", ""},
		{"unmatched noop", MergeOptions{}, []string{lang("puppet_x::y", "puppet_extra"), puppetSide}, "a.json:1:94: unmatched noop noop[puppet_extra]: no class mgmt_extra in any input (noop[puppet_extra] from a.json)", ""},
		{"allow unmatched", MergeOptions{AllowUnmatched: true}, []string{lang("puppet_extra"), puppetSide}, "", "unmatched class mgmt_x::y"},
		{"not empty", MergeOptions{}, []string{lang("puppet_x::y"), nonEmpty}, "class mgmt_x::y is not empty, start is followed by file[/inside] (from b.json)", ""},
		{"conflict", MergeOptions{}, []string{doc(`"graph":"a","resources":[{"kind":"file","name":"/f","params":{"mode":1},"pos":"a.mcl:1:2"}]`), doc(`"graph":"b","resources":[{"kind":"file","name":"/f","params":{"mode":2}}]`)},
			"b.json:1:57: resource file[/f] from b.json differs from the one from a.json at a.mcl:1:2", ""},
		{"identical", MergeOptions{}, []string{doc(`"graph":"a","resources":[{"kind":"file","name":"/f","params":{"mode":1}}]`), doc(`"graph":"b","resources":[{"kind":"file","name":"/f","params":{"mode":1}}]`)}, "", ""},
		{"clash", MergeOptions{}, []string{lang("puppet_x::y", "x::y"), puppetSide}, "merged vertex noop[x::y] of class mgmt_x::y clashes with noop[x::y] from a.json", ""},
		{"cycle across inputs", MergeOptions{}, []string{
			doc(`"graph":"a","resources":[{"kind":"n","name":"1"},{"kind":"n","name":"2"}],"edges":[{"from":{"kind":"n","name":"1"},"to":{"kind":"n","name":"2"}}]`),
			doc(`"graph":"b","resources":[{"kind":"n","name":"1"},{"kind":"n","name":"2"}],"edges":[{"from":{"kind":"n","name":"2"},"to":{"kind":"n","name":"1"}}]`)},
			"cycle: n[1] -> n[2] -> n[1]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns, err := mergeStrings(t, tt.opts, tt.ins...)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if w := strings.Join(warns, "\n"); tt.warns == "" && w != "" || !strings.Contains(w, tt.warns) {
				t.Errorf("warnings %q, want %q", w, tt.warns)
			}
		})
	}
}

func TestCapitalizeTitle(t *testing.T) {
	for in, want := range map[string]string{"mgmt_a::b": "Mgmt_a::B", "mgmt_x": "Mgmt_x", "": "", "a::::b": "A::::B"} {
		if got := CapitalizeTitle(in); got != want {
			t.Errorf("CapitalizeTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMergeRevalidates: a document changed in place after a successful
// Validate is validated again by Merge; the edge whose end was renamed
// away is refused, not merged with stale ids.
func TestMergeRevalidates(t *testing.T) {
	doc := &Document{Mgmt: Version, Graph: "g",
		Resources: []*Resource{{Kind: "noop", Name: "a"}, {Kind: "noop", Name: "b"}},
		Edges:     []*Edge{{From: Ref{Kind: "noop", Name: "a"}, To: Ref{Kind: "noop", Name: "b"}}},
	}
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	doc.Resources[1].Name = "c"
	if _, _, err := Merge(MergeOptions{}, Input{"in", doc}); err == nil || !strings.Contains(err.Error(), "noop[b]") {
		t.Fatalf("got %v, want an error about the edge to noop[b]", err)
	}
	doc.Resources[1] = &Resource{Kind: "noop", Name: "b"}
	doc.Edges = []*Edge{{From: Ref{Kind: "noop", Name: "b"}, To: Ref{Kind: "noop", Name: "a"}}}
	out, _, err := Merge(MergeOptions{}, Input{"in", doc})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Edges) != 1 || out.Edges[0].From.Name != "b" || out.Edges[0].To.Name != "a" {
		t.Fatalf("merged %d resources, edges %+v", len(out.Resources), out.Edges)
	}
}
