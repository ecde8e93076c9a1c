package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

func newSSHRes(t testing.TB, h *harness, s *SSHAuthorizedKeyRes) *SSHAuthorizedKeyRes {
	t.Helper()
	if !s.Mkdir {
		s.Mkdir = true
	}
	return setup(t, h, "ssh:authorized_key", "k", s).(*SSHAuthorizedKeyRes)
}

func TestSSHKeyValidate(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	for _, tc := range []struct {
		name string
		s    SSHAuthorizedKeyRes
		want string // "" accepted, otherwise part of the error
	}{
		{"parts", SSHAuthorizedKeyRes{State: "exists", Type: typ, Key: key, Comment: "me@host", Options: []string{"no-pty"}}, ""},
		{"content", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key}, ""},
		{"no state", SSHAuthorizedKeyRes{Content: typ + " " + key}, "state"},
		{"content and parts", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key, Comment: "x"}, "cannot be combined"},
		{"type without key", SSHAuthorizedKeyRes{State: "exists", Type: typ}, "go together"},
		{"wrong type", SSHAuthorizedKeyRes{State: "exists", Type: "ssh-rsa", Key: key}, "type"},
		{"comment line", SSHAuthorizedKeyRes{State: "exists", Content: "# " + typ + " " + key}, "comment"},
		{"two lines", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key + "\n" + typ + " " + key}, "several lines"},
		{"garbage", SSHAuthorizedKeyRes{State: "exists", Content: "ssh-ed25519 AAAAnotakey"}, "parsing"},
		{"bad user", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key, User: "Bad User"}, "user"},
		{"relative file", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key, File: "keys"}, "absolute"},
	} {
		tc.s.SetName("k")
		err := tc.s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	s := &SSHAuthorizedKeyRes{State: "exists", Options: []string{`from="10.0.0.1"`, "no-pty"}, Type: typ, Key: key, Comment: "a b"}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := `from="10.0.0.1",no-pty ` + typ + " " + key + " a b"; s.line != want {
		t.Fatalf("entry %q, want %q", s.line, want)
	}
	// The resource name is the entry when nothing else gives it.
	n := &SSHAuthorizedKeyRes{State: "absent"}
	n.SetName(typ + " " + key + " named")
	if err := n.Validate(); err != nil || !strings.HasSuffix(n.line, " named") {
		t.Fatalf("entry from the name: %q, %v", n.line, err)
	}
}

func TestSSHKeyEdits(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	otyp, okey := testutil.SSHKey(t)
	other := otyp + " " + okey + " other"
	for _, tc := range []struct {
		name, start, state, want string
	}{
		{"append", "# keys\n" + other + "\n", "exists", "# keys\n" + other + "\n" + typ + " " + key + " me\n"},
		{"append without final newline", other, "exists", other + "\n" + typ + " " + key + " me\n"},
		{"present", typ + " " + key + " me\n", "exists", typ + " " + key + " me\n"},
		{"other comment replaced in place", "a\n" + typ + " " + key + " old\nb\n", "exists", "a\n" + typ + " " + key + " me\nb\n"},
		{"duplicates collapse", "no-pty " + typ + " " + key + "\n" + other + "\n" + typ + " " + key + " me\n", "exists", typ + " " + key + " me\n" + other + "\n"},
		{"absent whatever the comment", "no-pty " + typ + " " + key + " x\n" + other + "\n" + typ + " " + key + "\n", "absent", other + "\n"},
		{"absent keeps a missing final newline", other + "\n" + typ + " " + key + " me", "absent", other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			p := filepath.Join(t.TempDir(), "authorized_keys")
			mustWrite(t, p, tc.start)
			s := newSSHRes(t, h, &SSHAuthorizedKeyRes{State: tc.state, File: p, Type: typ, Key: key, Comment: "me"})
			checkApply(t, s, true, tc.start == tc.want)
			if got := mustRead(t, p); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			checkApply(t, s, true, true)
		})
	}
}

// TestSSHKeyUserFiles creates the .ssh directory and the file of another
// user, owned by that user, and refuses a link that user planted.
func TestSSHKeyUserFiles(t *testing.T) {
	testutil.NeedRoot(t)
	typ, key := testutil.SSHKey(t)
	h := newHarness(t)
	home := t.TempDir()
	p := filepath.Join(home, ".ssh", "authorized_keys")
	s := newSSHRes(t, h, &SSHAuthorizedKeyRes{State: "exists", File: p, User: "nobody", Type: typ, Key: key})
	checkApply(t, s, false, false)
	if exists(filepath.Dir(p)) {
		t.Fatal("apply=false created .ssh")
	}
	checkApply(t, s, true, false)
	for path, want := range map[string]uint32{filepath.Dir(p): 0o700, p: 0o600} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		perm, uid, gid := statBits(fi)
		if perm != want || uid != 65534 || gid != 65534 {
			t.Errorf("%s: mode %04o owner %d:%d, want %04o 65534:65534", path, perm, uid, gid, want)
		}
	}
	checkApply(t, s, true, true)

	// The user replaces the file by a link to a file of root's.
	secret := filepath.Join(t.TempDir(), "secret")
	mustWrite(t, secret, "root only\n")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "refusing to follow") {
		t.Fatalf("a link planted by the user: got %v", err)
	}
	if got := mustRead(t, secret); got != "root only\n" {
		t.Fatalf("the link's target changed: %q", got)
	}
}

func TestSSHKeyDefaultFile(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	s := &SSHAuthorizedKeyRes{State: "exists", Type: typ, Key: key}
	if s.file() != "~/.ssh/authorized_keys" {
		t.Fatal(s.file())
	}
	s.User = "nobody"
	if s.file() != "~nobody/.ssh/authorized_keys" {
		t.Fatal(s.file())
	}
	s.File = "/x/keys"
	if s.file() != "/x/keys" {
		t.Fatal(s.file())
	}
}

func TestSSHKeyWatch(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "keys")
	s := newSSHRes(t, h, &SSHAuthorizedKeyRes{State: "exists", File: p, Type: typ, Key: key})
	startWatch(t, h, s)
	checkApply(t, s, true, false)
	expectEvent(t, h, "edit", func() { mustWrite(t, p, "") })
	checkApply(t, s, true, false)
}

func TestSSHKeyByCommentValidate(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	for _, tc := range []struct {
		name string
		s    SSHAuthorizedKeyRes
		want string // "" accepted, otherwise part of the error
	}{
		{"parts, name as comment", SSHAuthorizedKeyRes{State: "exists", Type: typ, Key: key}, ""},
		{"content", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key + " me"}, ""},
		{"absent by comment alone", SSHAuthorizedKeyRes{State: "absent", Comment: "me"}, ""},
		{"absent by name alone", SSHAuthorizedKeyRes{State: "absent"}, ""},
		{"exists without key", SSHAuthorizedKeyRes{State: "exists", Comment: "me"}, "needs the key"},
		{"content without comment", SSHAuthorizedKeyRes{State: "exists", Content: typ + " " + key}, "needs a comment"},
		{"spaces around the comment", SSHAuthorizedKeyRes{State: "absent", Comment: " me"}, "white space"},
		{"comment on two lines", SSHAuthorizedKeyRes{State: "absent", Comment: "a\nb"}, "spans lines"},
		{"unknown matchby", SSHAuthorizedKeyRes{State: "absent", MatchBy: "name"}, "matchby"},
	} {
		tc.s.SetName("name@host")
		if tc.s.MatchBy == "" {
			tc.s.MatchBy = SSHKeyMatchComment
		}
		err := tc.s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	s := &SSHAuthorizedKeyRes{State: "exists", MatchBy: "comment", Type: typ, Key: key, Options: []string{"no-pty"}}
	s.SetName("name@host")
	if err := s.Validate(); err != nil || s.line != "no-pty "+typ+" "+key+" name@host" || s.comment != "name@host" {
		t.Fatalf("entry %q comment %q: %v", s.line, s.comment, err)
	}
}

func TestSSHKeyByCommentEdits(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	otyp, okey := testutil.SSHKey(t)
	want := "no-pty " + typ + " " + key + " me"
	old := otyp + " " + okey + " me"
	other := otyp + " " + okey + " other"
	for _, tc := range []struct {
		name, start, state, want string
	}{
		{"append", "# keys\n" + other + "\n", "exists", "# keys\n" + other + "\n" + want + "\n"},
		{"present", want + "\n", "exists", want + "\n"},
		{"present, spaced otherwise", "no-pty  " + typ + "\t" + key + "   me\n", "exists", "no-pty  " + typ + "\t" + key + "   me\n"},
		{"rotated key replaced in place", "a\n" + old + "\nb\n", "exists", "a\n" + want + "\nb\n"},
		{"options replaced", typ + " " + key + " me\n", "exists", want + "\n"},
		{"the last of the name is kept", old + "\n" + other + "\n" + want + "\n", "exists", other + "\n" + want + "\n"},
		{"the last of the name is rewritten", want + "\n" + other + "\n" + old + "\n", "exists", other + "\n" + want + "\n"},
		{"the same key under another name stays", typ + " " + key + " other\n", "exists", typ + " " + key + " other\n" + want + "\n"},
		{"absent removes every line of the name", old + "\n" + other + "\n" + want + "\n# me\n", "absent", other + "\n# me\n"},
		{"absent keeps a missing final newline", other + "\n" + old, "absent", other},
		{"not a key", "garbage me\n", "absent", "garbage me\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			p := filepath.Join(t.TempDir(), "authorized_keys")
			mustWrite(t, p, tc.start)
			s := &SSHAuthorizedKeyRes{State: tc.state, File: p, MatchBy: "comment", Comment: "me"}
			if tc.state == "exists" {
				s.Type, s.Key, s.Options = typ, key, []string{"no-pty"}
			}
			s = newSSHRes(t, h, s)
			checkApply(t, s, true, tc.start == tc.want)
			if got := mustRead(t, p); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			checkApply(t, s, true, true)
		})
	}
}

// TestSSHKeyByCommentMode: a file rewritten by a resource matching by
// comment gets mode 0600 and its user, as Puppet's provider leaves it.
func TestSSHKeyByCommentMode(t *testing.T) {
	testutil.NeedRoot(t)
	typ, key := testutil.SSHKey(t)
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "keys")
	mustWrite(t, p, "# keys\n")
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSSHRes(t, h, &SSHAuthorizedKeyRes{State: "exists", File: p, User: "nobody", MatchBy: "comment", Type: typ, Key: key, Comment: "me"})
	checkApply(t, s, true, false)
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if perm, uid, gid := statBits(fi); perm != 0o600 || uid != 65534 || gid != 65534 {
		t.Fatalf("mode %04o owner %d:%d, want 0600 65534:65534", perm, uid, gid)
	}
}
