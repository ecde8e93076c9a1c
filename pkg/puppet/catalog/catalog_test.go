package catalog

import (
	"strings"
	"testing"
)

func TestDecodeFormats(t *testing.T) {
	for name, src := range map[string]string{
		"format2": `{"name":"n","resources":[{"type":"Class","title":"main","kind":"unknown"},
			{"type":"file","title":"/x","parameters":{"ensure":"file","mode":420}}],
			"edges":[{"source":"Class[main]","target":"File[/x]"}]}`,
		"wrapped": `{"document_type":"Catalog","data":{"name":"n","resources":[{"type":"Class","title":"main"},
			{"type":"File","title":"/x","parameters":{"ensure":"file","mode":420}}],
			"edges":[{"source":"Class[main]","target":"File[/x]"}]}}`,
		"puppetdb": `{"certname":"n","resources":{"data":[{"type":"Class","title":"main"},
			{"type":"File","title":"/x","parameters":{"ensure":"file","mode":420}}]},
			"edges":{"data":[{"source":{"type":"Class","title":"main"},"target":{"type":"File","title":"/x"},"relationship":"contains"},
			{"source":{"type":"File","title":"/x"},"target":{"type":"Class","title":"main"},"relationship":"before"}]}}`,
	} {
		c, err := Decode(strings.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Name != "n" || len(c.Resources) != 2 || len(c.Edges) != 1 {
			t.Fatalf("%s: got %+v", name, c)
		}
		f := c.Resources[1]
		if f.Ref() != "File[/x]" || f.Params["mode"] != int64(420) || f.Kind != KindCompilable || f.IsContainer() {
			t.Errorf("%s: file = %+v", name, f)
		}
		if !c.Resources[0].IsContainer() || c.Edges[0] != (Edge{"Class[main]", "File[/x]"}) {
			t.Errorf("%s: class/edge = %+v %+v", name, c.Resources[0], c.Edges)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"{\n  \"resources\": [,]}", "catalog: 2:18: invalid character ','"},
		{`{"resources":[{"title":"x"}]}`, "resource 0 has no type"},
		{`{"resources":[],"edges":[{"source":1,"target":"File[x]"}]}`, "edge with a bad endpoint"},
	} {
		_, err := Decode(strings.NewReader(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.src, err, tc.want)
		}
	}
}

func TestCapitalizeType(t *testing.T) {
	for in, want := range map[string]string{"file": "File", "foo::bar": "Foo::Bar", "FOO::bAR": "Foo::Bar", "mgmt_x": "Mgmt_x"} {
		if got := CapitalizeType(in); got != want {
			t.Errorf("CapitalizeType(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(`{"name":"n","resources":[{"type":"File","title":"/x","parameters":{"a":[1,{"b":2.5}]}}],"edges":[]}`)
	f.Add(`{"data":{"resources":{"data":[]}}}`)
	f.Fuzz(func(t *testing.T, src string) {
		Decode(strings.NewReader(src)) // must not panic
	})
}
