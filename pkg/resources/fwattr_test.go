package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeFwattrs writes a stand-in sysfs tree with one firmware-attributes
// driver holding the given attributes (name -> metadata file -> content)
// and returns its root.
func fakeFwattrs(t *testing.T, driver string, attrs map[string]map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, files := range attrs {
		dir := filepath.Join(root, fwattrClass, driver, "attributes", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, c := range files {
			mustWrite(t, filepath.Join(dir, f), c)
		}
	}
	return root
}

func newFwattr(t *testing.T, h *harness, name string, r *FwattrRes) *FwattrRes {
	t.Helper()
	return setup(t, h, "fwattr", name, r).(*FwattrRes)
}

func TestFwattrEnumerationWithAliasAndDrift(t *testing.T) {
	root := fakeFwattrs(t, "thinklmi", map[string]map[string]string{
		"SecureBoot": {"type": "enumeration\n", "possible_values": "Enable;Disable\n", "current_value": "Disable\n"},
	})
	h := newHarness(t)
	r := newFwattr(t, h, "SecureBoot", &FwattrRes{Value: "Enabled", Check: true, Root: root})
	file := filepath.Join(root, fwattrClass, "thinklmi/attributes/SecureBoot/current_value")
	startWatch(t, h, r)
	checkApply(t, r, false, false)
	if got := mustRead(t, file); got != "Disable\n" {
		t.Fatalf("noop wrote %q", got)
	}
	checkApply(t, r, true, false)
	if got := mustRead(t, file); got != "Enable\n" {
		t.Fatalf("current_value %q, want the alias Enable", got)
	}
	checkApply(t, r, false, true)
	expectEvent(t, h, "current_value changed by hand", func() { mustWrite(t, file, "Disable\n") })
	checkApply(t, r, true, false)
	if got := mustRead(t, file); got != "Enable\n" {
		t.Fatalf("drift not repaired: %q", got)
	}

	strict := newFwattr(t, newHarness(t), "SecureBoot", &FwattrRes{Value: "Enabled", Check: true, Strict: true, Root: root})
	if _, err := strict.CheckApply(t.Context(), false); err == nil || !strings.Contains(err.Error(), "possible values") {
		t.Fatalf("strict: got %v, want an error naming the possible values", err)
	}
}

func TestFwattrIntegerAndString(t *testing.T) {
	root := fakeFwattrs(t, "dell-wmi-sysman", map[string]map[string]string{
		"Brightness": {"type": "integer\n", "min_value": "10\n", "max_value": "100\n", "scalar_increment": "5\n",
			"current_value": "50\n"},
		"AssetTag": {"type": "string\n", "min_length": "1\n", "max_length": "8\n", "current_value": "old\n"},
	})
	for _, c := range []struct {
		key, value, err string
	}{
		{"Brightness", "101", "out of"},
		{"Brightness", "12", "multiple of 5"},
		{"Brightness", "x", "not an integer"},
		{"AssetTag", "much-too-long", "bytes"},
	} {
		r := newFwattr(t, newHarness(t), c.key, &FwattrRes{Value: c.value, Check: true, Root: root})
		if _, err := r.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s = %s: got %v, want an error with %q", c.key, c.value, err, c.err)
		}
	}
	r := newFwattr(t, newHarness(t), "b", &FwattrRes{Key: "Brightness", Value: "75", Check: true, Root: root})
	checkApply(t, r, true, false)
	checkApply(t, r, true, true)
	unchecked := newFwattr(t, newHarness(t), "AssetTag", &FwattrRes{Value: "much-too-long", Root: root})
	checkApply(t, unchecked, true, false)
	if got := mustRead(t, filepath.Join(root, fwattrClass, "dell-wmi-sysman/attributes/AssetTag/current_value")); got != "much-too-long\n" {
		t.Fatalf("check=false: %q", got)
	}
}

func TestFwattrDriversAndSkip(t *testing.T) {
	root := fakeFwattrs(t, "a", map[string]map[string]string{"K": {"current_value": "1\n"}})
	if err := os.MkdirAll(filepath.Join(root, fwattrClass, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newFwattr(t, newHarness(t), "K", &FwattrRes{Value: "2", Check: true, Root: root})
	if _, err := r.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "2 drivers") {
		t.Fatalf("two drivers: got %v", err)
	}
	named := newFwattr(t, newHarness(t), "K", &FwattrRes{Driver: "a", Value: "2", Check: true, Root: root})
	checkApply(t, named, true, false)

	h := newHarness(t)
	skip := newFwattr(t, h, "Missing", &FwattrRes{Value: "1", Skip: true, Check: true, Root: t.TempDir()})
	startWatch(t, h, skip)
	checkApply(t, skip, true, true)
	if !strings.Contains(h.logged(), "skipped") {
		t.Fatalf("no warning: %q", h.logged())
	}
	noskip := newFwattr(t, newHarness(t), "Missing", &FwattrRes{Value: "1", Check: true, Root: t.TempDir()})
	if _, err := noskip.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "not on this host") {
		t.Fatalf("missing class: got %v", err)
	}
}

func TestFwattrValidate(t *testing.T) {
	for _, r := range []*FwattrRes{{Key: "../x"}, {Key: "a/b"}, {Key: "k", Driver: ".."}, {Key: "k", Value: "a\nb"}} {
		r.SetKind("fwattr")
		r.SetName("n")
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}
