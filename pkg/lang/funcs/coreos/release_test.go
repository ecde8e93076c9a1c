package coreos

import (
	"strings"
	"testing"
)

func TestParseOSRelease(t *testing.T) {
	kv := ParseOSRelease("# comment\nID=debian\nVERSION_ID=\"12\"\nPRETTY_NAME='Debian GNU/Linux 12'\nNAME=\"a \\\"q\\\"\"\nbroken line\n")
	want := map[string]string{"ID": "debian", "VERSION_ID": "12", "PRETTY_NAME": "Debian GNU/Linux 12", "NAME": `a "q"`}
	for k, v := range want {
		if kv[k] != v {
			t.Errorf("%s = %q, want %q", k, kv[k], v)
		}
	}
	if len(kv) != len(want) {
		t.Errorf("got %v", kv)
	}
}

func TestFamily(t *testing.T) {
	for in, want := range map[string]string{
		"ID=debian\n":                                    FamilyDebian,
		"ID=ubuntu\nID_LIKE=debian\n":                    FamilyDebian,
		"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n": FamilyRedHat,
		"ID=fedora\n":                                    FamilyRedHat,
		"ID=arch\n":                                      FamilyArchLinux,
		"ID=manjaro\nID_LIKE=arch\n":                     FamilyArchLinux,
		"ID=somethingnew\nID_LIKE=\"ubuntu debian\"\n":   FamilyDebian,
		// A word in another field never decides.
		"ID=opensuse-leap\nID_LIKE=\"suse opensuse\"\nHOME_URL=\"https://research.example/debian\"\n": "",
		"": "",
	} {
		if got := Family(in); got != want {
			t.Errorf("Family(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseOSRelease checks that every key read comes from a KEY=value
// line of the input.
func FuzzParseOSRelease(f *testing.F) {
	f.Add("ID=debian\nVERSION_ID=\"12\"\n")
	f.Add("# c\nNAME='x y'\nBAD\n=\nK=\"\\q\"")
	f.Fuzz(func(t *testing.T, s string) {
		for k := range ParseOSRelease(s) {
			if !strings.Contains(s, k+"=") {
				t.Fatalf("key %q not in input %q", k, s)
			}
		}
	})
}
