//go:build augeas

package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

func TestAugeasRegistered(t *testing.T) {
	s, ok := graph.LookupKind("augeas")
	if !ok || s.Params["sets"] != "[]struct{path str; value str}" {
		t.Fatalf("augeas kind: %v %+v", ok, s)
	}
}

func TestAugeasShellvarsAndDrift(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "defaults")
	mustWrite(t, conf, "# managed by hand\nFOO=1\nBAR=\"two words\"\n")
	if err := os.Chmod(conf, 0o640); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	r := setup(t, h, "augeas", conf, &AugeasRes{Lens: "Shellvars.lns",
		Sets: []AugeasSet{{Path: "FOO", Value: "42"}, {Path: "NEW", Value: "yes"}}}).(*AugeasRes)
	startWatch(t, h, r)
	checkApply(t, r, false, false)
	if got := mustRead(t, conf); !strings.Contains(got, "FOO=1\n") {
		t.Fatalf("noop changed the file:\n%s", got)
	}
	checkApply(t, r, true, false)
	want := "# managed by hand\nFOO=42\nBAR=\"two words\"\nNEW=yes\n"
	if got := mustRead(t, conf); got != want {
		t.Fatalf("file\n%s\nwant\n%s", got, want)
	}
	if perm := permOf(t, conf); perm != 0o640 {
		t.Fatalf("mode %04o after the save", perm)
	}
	checkApply(t, r, true, true)
	expectEvent(t, h, "file edited by hand", func() { mustWrite(t, conf, "FOO=7\nBAR=\"two words\"\n") })
	checkApply(t, r, true, false)
	if got := mustRead(t, conf); got != "FOO=42\nBAR=\"two words\"\nNEW=yes\n" {
		t.Fatalf("drift not repaired:\n%s", got)
	}
}

func TestAugeasErrors(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad")
	mustWrite(t, conf, "this is = not \"shell\n")
	for _, c := range []struct {
		r   *AugeasRes
		err string
	}{
		{&AugeasRes{File: conf, Lens: "Shellvars.lns", Sets: []AugeasSet{{"A", "1"}}}, "cannot read it"},
		{&AugeasRes{File: conf, Lens: "NoSuchLens.lns", Sets: []AugeasSet{{"A", "1"}}}, "lens"},
		{&AugeasRes{File: filepath.Join(dir, "missing"), Lens: "Shellvars.lns", Sets: []AugeasSet{{"A", "1"}}}, "not a regular file"},
	} {
		r := setup(t, newHarness(t), "augeas", "a", c.r)
		if _, err := r.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: got %v, want an error with %q", c.r, err, c.err)
		}
	}
	for _, r := range []*AugeasRes{
		{File: "rel", Lens: "Shellvars.lns", Sets: []AugeasSet{{"A", "1"}}},
		{File: "/etc/x", Lens: "Shellvars", Sets: []AugeasSet{{"A", "1"}}},
		{File: "/etc/x", Lens: "Shellvars.lns"},
		{File: "/etc/x", Lens: "Shellvars.lns", Sets: []AugeasSet{{"../../etc/shadow", "1"}}},
	} {
		r.SetKind("augeas")
		r.SetName("a")
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}
