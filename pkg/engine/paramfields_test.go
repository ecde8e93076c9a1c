package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// flatParams and inlineParams declare the same parameters, the second
// with most of them behind inline fields (a pointer, and a pointer within
// a struct held by value).
type flatParams struct {
	Path  string         `lang:"path" yaml:"path"`
	Mode  string         `lang:"mode" yaml:"mode"`
	Src   string         `lang:"source" yaml:"src"`
	Deep  bool           `lang:"deep"`
	Sel   *string        `lang:"selinux"`
	Frags []string       `lang:"fragments"`
	Tags  map[string]int `lang:"tags"`
	Inner struct {
		A int64 `lang:"a"`
	} `lang:"inner"`
	Last int `lang:"last"`
}

type inlineParams struct {
	Path  string      `lang:"path" yaml:"path"`
	Rare  *rareParams `lang:",inline"`
	Last  int         `lang:"last"`
	Extra struct {
		More *moreParams `lang:",inline"`
	} `lang:",inline"`
}

type rareParams struct {
	Mode string  `lang:"mode" yaml:"mode"`
	Src  string  `lang:"source" yaml:"src"`
	Deep bool    `lang:"deep"`
	Sel  *string `lang:"selinux"`
}

type moreParams struct {
	Frags []string       `lang:"fragments"`
	Tags  map[string]int `lang:"tags"`
	Inner struct {
		A int64 `lang:"a"`
	} `lang:"inner"`
}

func names(t *testing.T, v any) []string {
	t.Helper()
	fields, err := engine.ParamFields(reflect.TypeOf(v))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fields {
		out = append(out, f.Name)
	}
	return out
}

func TestParamFieldsInline(t *testing.T) {
	got := strings.Join(names(t, &inlineParams{}), " ")
	if want := "path mode source deep selinux last fragments tags inner"; got != want {
		t.Errorf("params %q, want %q", got, want)
	}
	fields, _ := engine.ParamFields(reflect.TypeOf(inlineParams{}))
	if fields[1].Owner != reflect.TypeOf(rareParams{}) || fields[1].Field.Name != "Mode" {
		t.Errorf("mode: owner %v, field %s", fields[1].Owner, fields[1].Field.Name)
	}
	a, err := engine.LangFields(reflect.TypeOf(flatParams{}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.LangFields(reflect.TypeOf(inlineParams{}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("types %v, want %v", b, a)
	}
	ta, _ := engine.MclType(reflect.TypeOf(struct {
		X string `lang:"x"`
		Y *int   `lang:"y"`
	}{}))
	tb, _ := engine.MclType(reflect.TypeOf(struct {
		X string `lang:"x"`
		I *struct {
			Y *int `lang:"y"`
		} `lang:",inline"`
	}{}))
	if ta != tb || ta != "struct{x str; y int}" {
		t.Errorf("mcl types %q and %q", ta, tb)
	}
}

// TestDecodeInline: a document decodes into the inline fields as into
// flat ones, with the same errors, and a struct behind an inline pointer
// is made only for a value other than its zero value.
func TestDecodeInline(t *testing.T) {
	sel := ""
	for _, tc := range []struct {
		params string
		err    string
	}{
		{`{}`, ""},
		{`{"path":"/a","last":3}`, ""},
		{`{"mode":""}`, ""},
		{`{"deep":false,"fragments":null,"tags":null}`, ""},
		{`{"mode":"0644"}`, ""},
		{`{"src":"/s"}`, ""},
		{`{"selinux":""}`, ""},
		{`{"fragments":["a","b"],"inner":{"a":1}}`, ""},
		{`{"tags":{"x":1},"selinux":"u:r:t:s0","deep":true}`, ""},
		{`{"mode":3}`, `parameter "mode": got int, want str`},
		{`{"fragments":[1]}`, `parameter "fragments": element 0: got int, want str`},
		{`{"sourc":"x"}`, `unknown parameter "sourc" (did you mean "source"?)`},
	} {
		m, ok := jsonObject([]byte(tc.params))
		if !ok {
			t.Fatalf("%s: not a JSON object", tc.params)
		}
		d := decodeBoth(t, m)
		if d.errF != tc.err || d.errI != tc.err {
			t.Errorf("%s: errors %q and %q, want %q", tc.params, d.errF, d.errI, tc.err)
			continue
		}
		if tc.err != "" {
			continue
		}
		if !reflect.DeepEqual(d.encF, d.encI) {
			t.Errorf("%s: encoded %v, want %v", tc.params, d.encI, d.encF)
		}
		flat, in := d.flat, d.in
		rareSet := flat.Mode != "" || flat.Src != "" || flat.Deep || flat.Sel != nil
		if (in.Rare != nil) != rareSet {
			t.Errorf("%s: rare struct made: %v, want %v", tc.params, in.Rare != nil, rareSet)
		}
		moreSet := len(flat.Frags) > 0 || flat.Tags != nil || flat.Inner.A != 0
		if (in.Extra.More != nil) != moreSet {
			t.Errorf("%s: more struct made: %v, want %v", tc.params, in.Extra.More != nil, moreSet)
		}
	}
	in := inlineParams{Rare: &rareParams{Sel: &sel}}
	if e, _ := engine.EncodeParams(in); !reflect.DeepEqual(e, map[string]any{"path": "", "last": 0, "mode": "", "source": "", "deep": false, "selinux": &sel, "inner": flatParams{}.Inner}) {
		t.Errorf("encoded %#v", e)
	}
}

func msg(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestParamFieldsMisuse(t *testing.T) {
	type self struct {
		X    string `lang:"x"`
		Self *self  `lang:",inline"`
	}
	for _, tc := range []struct {
		v   any
		err string
	}{
		{struct {
			N int `lang:",inline"`
		}{}, "field N: an inline field holds a struct or a pointer to one, not a int"},
		{struct {
			n *rareParams `lang:",inline"`
		}{}, "field n: an inline field must be exported"},
		{struct {
			x string `lang:"x"`
		}{}, "field x: a lang tag on an unexported field"},
		{struct {
			Mode string      `lang:"mode"`
			R    *rareParams `lang:",inline"`
		}{}, "fields Mode and Mode are both parameter mode"},
		{struct {
			X string `collect:"local"`
		}{}, "field X: a collect tag needs a lang tag"},
		{self{}, "engine_test.self holds itself inline"},
		{3, "got int, want a struct"},
	} {
		_, err := engine.ParamFields(reflect.TypeOf(tc.v))
		if msg(err) != tc.err {
			t.Errorf("%T: error %q, want %q", tc.v, msg(err), tc.err)
		}
	}
}
