package resources

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

func newLine(t testing.TB, h *harness, l *LineRes) *LineRes {
	t.Helper()
	return setup(t, h, "line", "l", l).(*LineRes)
}

func TestLineEdits(t *testing.T) {
	for _, tc := range []struct {
		name, start, content, state, want string
	}{
		{"append to empty", "", "a", "exists", "a\n"},
		{"append after newline", "x\n", "a", "exists", "x\na\n"},
		{"append without final newline", "x", "a", "exists", "x\na\n"},
		{"content newline is the line's end", "x\n", "a\n", "exists", "x\na\n"},
		{"present without final newline", "x\na", "a", "exists", "x\na"},
		{"block", "x\n", "a\nb", "exists", "x\na\nb\n"},
		{"block present", "a\nb\nc\n", "b\nc", "exists", "a\nb\nc\n"},
		{"block split is not present", "b\nx\nc\n", "b\nc", "exists", "b\nx\nc\nb\nc\n"},
		{"remove keeps final newline", "x\na\ny\n", "a", "absent", "x\ny\n"},
		{"remove last line keeps final newline", "x\na\n", "a", "absent", "x\n"},
		{"remove keeps missing final newline", "x\na\ny", "a", "absent", "x\ny"},
		{"remove last unterminated line", "x\na", "a", "absent", "x\n"},
		{"remove every occurrence", "a\nx\na\na\n", "a", "absent", "x\n"},
		{"remove block", "a\nb\nx\na\nb\n", "a\nb", "absent", "x\n"},
		{"remove everything", "a\n", "a", "absent", ""},
		{"whole lines only", "xa\n", "a", "absent", "xa\n"},
		{"CR LF line present", "x\r\na\r\n", "a", "exists", "x\r\na\r\n"},
		{"CR LF last line present", "x\r\na\r", "a", "exists", "x\r\na\r"},
		{"CR LF line removed", "x\r\na\r\ny\r\n", "a", "absent", "x\r\ny\r\n"},
		{"CR LF block", "a\r\nb\r\n", "a\nb", "absent", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			p := filepath.Join(t.TempDir(), "f")
			mustWrite(t, p, tc.start)
			l := newLine(t, h, &LineRes{File: p, State: tc.state, Content: tc.content})
			checkLineEdit(t, l, p, tc.start, tc.want)
		})
	}
}

// checkLineEdit checks that l leaves the file p, which holds start, as it
// is with apply false and turns it into want with apply true, once.
func checkLineEdit(t *testing.T, l *LineRes, p, start, want string) {
	t.Helper()
	changed := start != want
	checkApply(t, l, false, !changed)
	if got := mustRead(t, p); got != start {
		t.Fatalf("apply=false changed the file to %q", got)
	}
	checkApply(t, l, true, !changed)
	if got := mustRead(t, p); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	checkApply(t, l, true, true)
}

func TestLineCreatesMissingFile(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	absent := newLine(t, h, &LineRes{File: p, State: "absent", Content: "a"})
	checkApply(t, absent, true, true)
	if exists(p) {
		t.Fatal("state absent created the file")
	}
	l := newLine(t, h, &LineRes{File: p, State: "exists", Content: "  a  \n", Trim: true})
	checkApply(t, l, true, false)
	if got := mustRead(t, p); got != "a\n" {
		t.Fatalf("got %q", got)
	}
	if perm := permOf(t, p); perm != 0o600 {
		t.Fatalf("new file mode %04o, want 0600", perm)
	}
	if _, err := newLine(t, h, &LineRes{File: filepath.Join(p+".d", "f"), State: "exists", Content: "a"}).CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing directory: got %v", err)
	}
}

func TestLineEmptyContentIsNothing(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	l := newLine(t, h, &LineRes{File: p, State: "exists", Content: " \n", Trim: true})
	checkApply(t, l, true, true)
	if exists(p) {
		t.Fatal("empty content created the file")
	}
}

// TestLineKeepsModeAndOwner edits a file of another user and checks that
// the atomic replacement kept its owner, group and mode.
func TestLineKeepsModeAndOwner(t *testing.T) {
	testutil.NeedRoot(t)
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	mustWrite(t, p, "x\n")
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	l := newLine(t, h, &LineRes{File: p, State: "exists", Content: "a"})
	checkApply(t, l, true, false)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	perm, uid, gid := statBits(fi)
	if perm != 0o640 || uid != 65534 || gid != 65534 {
		t.Fatalf("after the edit: mode %04o owner %d:%d, want 0640 65534:65534", perm, uid, gid)
	}
	if tmp := tempFiles(t, dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestLineFollowsTrustedLinksOnly(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	mustWrite(t, target, "x\n")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	l := newLine(t, h, &LineRes{File: link, State: "exists", Content: "a"})
	checkApply(t, l, true, false)
	if got := mustRead(t, target); got != "x\na\n" {
		t.Fatalf("target %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if os.Geteuid() != 0 {
		return
	}
	// A link planted by another user in their own directory is not
	// followed: the edit would change, with root's rights, a file that
	// user cannot write.
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	l2 := newLine(t, h, &LineRes{File: link, State: "exists", Content: "b"})
	if _, err := l2.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "refusing to follow") {
		t.Fatalf("untrusted link: got %v", err)
	}
	if got := mustRead(t, target); got != "x\na\n" {
		t.Fatalf("the target changed through an untrusted link: %q", got)
	}
}

func TestLineRefusesNonRegular(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	l := newLine(t, h, &LineRes{File: p, State: "exists", Content: "a"})
	if _, err := l.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: got %v", err)
	}
}

func TestLineValidate(t *testing.T) {
	for _, l := range []*LineRes{
		{File: "", State: "exists"},
		{File: "rel", State: "exists"},
		{File: "/a/", State: "exists"},
		{File: "/a/../b", State: "exists"},
		{File: "/a", State: ""},
		{File: "/a", State: "present"},
	} {
		if err := l.Validate(); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
	for _, l := range []*LineRes{{File: "/a", State: "absent"}, {File: "~/a", State: "exists"}, {File: "~nobody/a", State: "exists"}} {
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", l.File, err)
		}
	}
}

func TestExpandHome(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"/abs":                       "/abs",
		"~/x":                        filepath.Join(u.HomeDir, "x"),
		"~" + u.Username + "/.ssh/a": filepath.Join(u.HomeDir, ".ssh/a"),
	} {
		if got, err := expandHome(in); err != nil || got != want {
			t.Errorf("expandHome(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := expandHome("~no-such-user-mgmt/x"); err == nil {
		t.Error("unknown user expanded")
	}
}

func TestLineWatch(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	l := newLine(t, h, &LineRes{File: p, State: "exists", Content: "a"})
	startWatch(t, h, l)
	expectEvent(t, h, "create", func() { mustWrite(t, p, "x\n") })
	checkApply(t, l, true, false)
	expectEvent(t, h, "edit", func() { mustWrite(t, p, "y\n") })
	checkApply(t, l, true, false)
	if got := mustRead(t, p); got != "y\na\n" {
		t.Fatalf("got %q", got)
	}
}

// TestFindLines checks the linear search against a naive one.
func TestFindLines(t *testing.T) {
	naive := func(lines, block []string, from int) int {
		for i := from; i+len(block) <= len(lines); i++ {
			if slices.EqualFunc(lines[i:i+len(block)], block, func(l, b string) bool { return strings.TrimSuffix(l, "\r") == b }) {
				return i
			}
		}
		return -1
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "", "a\r", "\r"}
	pick := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return out
	}
	for n := 0; n < 3000; n++ {
		lines, block := pick(r.IntN(12)), pick(1+r.IntN(4))
		from := r.IntN(len(lines) + 1)
		if got, want := findLines(lines, block, from), naive(lines, block, from); got != want {
			t.Fatalf("findLines(%q, %q, %d) = %d, want %d", lines, block, from, got, want)
		}
	}
}

func BenchmarkFindLinesWorstCase(b *testing.B) {
	lines := make([]string, 100000)
	for i := range lines {
		lines[i] = "a"
	}
	block := append(slices.Repeat([]string{"a"}, 1000), "b")
	for b.Loop() {
		if findLines(lines, block, 0) != -1 {
			b.Fatal("found")
		}
	}
}

// TestLineConcurrentEditsOfOneFile runs many line resources on one file at
// once: edits of one file are serialised, so none is lost.
func TestLineConcurrentEditsOfOneFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	mustWrite(t, p, "")
	var ls []*LineRes
	for i := range 20 {
		ls = append(ls, newLine(t, newHarness(t), &LineRes{File: p, State: "exists", Content: strconv.Itoa(i)}))
	}
	var wg sync.WaitGroup
	for _, l := range ls {
		wg.Go(func() {
			if _, err := l.CheckApply(t.Context(), true); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(mustRead(t, p), "\n"), "\n")
	slices.Sort(got)
	if len(got) != 20 || slices.Compact(got) == nil || len(slices.Compact(got)) != 20 {
		t.Fatalf("lines %q, want 20 distinct", got)
	}
}

// TestLineSweepsStaleTemps checks that a temporary file a killed process
// left beside the edited file is removed when the resource starts.
func TestLineSweepsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".f"+tmpMarker+"123")
	mustWrite(t, stale, "partial")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	newLine(t, newHarness(t), &LineRes{File: filepath.Join(dir, "f"), State: "exists", Content: "a"})
	if exists(stale) {
		t.Fatal("the stale temporary file is still there")
	}
}

// TestLineWatchUserMadeLater watches "~user/f" for a user that does not
// exist yet: the Watch runs, and follows the file once the user is made.
func TestLineWatchUserMadeLater(t *testing.T) {
	testutil.NeedRoot(t)
	_, err := exec.LookPath("useradd")
	testutil.Need(t, err == nil, "useradd (package passwd)")
	name := "mgmtw" + strconv.Itoa(rand.IntN(1e8))
	home := t.TempDir()
	h := newHarness(t)
	l := newLine(t, h, &LineRes{File: "~" + name + "/f", State: "exists", Content: "a"})
	startWatch(t, h, l)
	expectEvent(t, h, "user made", func() {
		if out, err := exec.Command("useradd", "-M", "-d", home, "-s", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd: %v: %s", err, out)
		}
	})
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	expectEvent(t, h, "file in the new home", func() { mustWrite(t, filepath.Join(home, "f"), "x\n") })
	checkApply(t, l, true, false)
	if got := mustRead(t, filepath.Join(home, "f")); got != "x\na\n" {
		t.Fatalf("got %q", got)
	}
}
