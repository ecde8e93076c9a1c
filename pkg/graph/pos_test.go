package graph

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorShape: one positioned error prints as POS: STAGE error: MSG,
// becomes the payload of an error document with its stage, and a list
// prints one error a line up to MaxListed.
func TestErrorShape(t *testing.T) {
	e := Errorf("m.mcl:3:4", StageType, "got %s, want %s", "int", "str")
	if got, want := e.Error(), "m.mcl:3:4: type error: got int, want str"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if d := e.Doc(); d.Message != "type error: got int, want str" || d.Pos != "m.mcl:3:4" {
		t.Errorf("Doc() = %+v", d)
	}
	if got := (&PosError{Msg: "a\x1bb"}).Error(); got != `a\x1bb` {
		t.Errorf("unprintable message: %q", got)
	}
	var l ErrorList
	l.Add("a:1:1", "one")
	l = append(l, Errorf("a:2:1", StageScope, "two"))
	staged := WithStage(l, StageRuntime)
	if got, want := staged.Error(), "a:1:1: runtime error: one\na:2:1: scope error: two"; got != want {
		t.Errorf("WithStage: %q, want %q", got, want)
	}
	if l[0].Stage != "" {
		t.Errorf("WithStage changed its argument")
	}
	if got := WithStage(errors.New("plain"), StageRuntime).Error(); got != "runtime error: plain" {
		t.Errorf("WithStage of a plain error: %q", got)
	}
	if d := ErrorDoc(staged); d.Message != "runtime error: one (and 1 more errors)" || d.Pos != "a:1:1" {
		t.Errorf("ErrorDoc = %+v", d)
	}
	if _, ok := AsList(errors.New("read")); ok {
		t.Errorf("AsList took a read error for a positioned one")
	}
	for i := 0; i < MaxListed+5; i++ {
		l.Add("", "e%d", i)
	}
	lines := strings.Split(l.Error(), "\n")
	if len(lines) != MaxListed+1 || lines[MaxListed] != "... and 7 more errors" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestParsePosition(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Position
		ok   bool
	}{
		{"main.mcl:4:1", Position{"main.mcl", 4, 1}, true},
		{"a:b.mcl:4:12", Position{"a:b.mcl", 4, 12}, true},
		{"-:7", Position{"-", 7, 0}, true},
		{"3:9", Position{"", 3, 9}, true},
		{"main.mcl", Position{}, false},
		{"", Position{}, false},
		{"x:0:0", Position{}, false},
	} {
		got, ok := ParsePosition(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParsePosition(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.in {
			t.Errorf("ParsePosition(%q).String() = %q", tc.in, got.String())
		}
	}
}
