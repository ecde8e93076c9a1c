package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestWorldOutage runs a host, web, as `mcl-compile --seeds | mgmt-apply
// --seeds` on a 3-member cluster (web talks to m1 only) while the cluster
// fails under it, and checks that neither tool dies and that web catches
// up by itself each time:
//
//   - two members stopped (SIGSTOP), so the cluster has no quorum: web's
//     reads and its export time out; then they resume (SIGCONT);
//   - the member web talks to killed (SIGKILL) and restarted from its data.
//
// Another host, src, exports files to web through m2 and m3; web collects
// them, and exports a file whose content follows a local flag file.
func TestWorldOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts three etcd members")
	}
	ms := startMembers(t, 3)
	m1, m2, m3 := ms[0], ms[1], ms[2]

	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	flag, out := filepath.Join(dir, "flag"), filepath.Join(dir, "web-out")
	files := map[string]map[string]any{a: {"content": "a\n", "state": "exists"}}
	src := testutil.Start(t, "mgmt-apply", "--prefix", t.TempDir(), "--seeds", m2.client+","+m3.client, "--hostname", "src")
	src.Write(exportDoc(t, files))

	prog := fmt.Sprintf("import \"os\"\n$v = if os.file_exists(%q) { \"after\\n\" } else { \"before\\n\" }\n"+
		"file %q { content => $v, state => \"exists\", Meta:export => [\"src\"], Meta:hidden => true, }\n"+
		"collect file [%q, %q, %q] {}\n", flag, out, a, b, c)
	main := filepath.Join(dir, "web.mcl")
	if err := os.WriteFile(main, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	web := []string{"--seeds", m1.client, "--hostname", "web"}
	compile, apply := testutil.StartPipeline(t, append(web, main), append(web, "--prefix", t.TempDir()))
	log := &testutil.SyncBuffer{}
	waitFile(t, a, "a\n", log)
	waitWebExport(t, m2.client, out, "before\n")

	t.Log("no quorum: two members stopped")
	m2.signal(syscall.SIGSTOP)
	m3.signal(syscall.SIGSTOP)
	if err := os.WriteFile(flag, nil, 0o644); err != nil { // web's export changes meanwhile
		t.Fatal(err)
	}
	compile.WaitLog("retrying in", 0)
	apply.WaitLines(`exporting resources: .*retrying in`, 1)
	m2.signal(syscall.SIGCONT)
	m3.signal(syscall.SIGCONT)
	files[b] = map[string]any{"content": "b\n", "state": "exists"}
	src.Write(exportDoc(t, files))
	waitFile(t, b, "b\n", log)
	waitWebExport(t, m2.client, out, "after\n")
	compile.WaitLog("the world answers again", 0)

	t.Log("web's member killed, then restarted from its data")
	m1.kill()
	files[c] = map[string]any{"content": "c\n", "state": "exists"}
	src.Write(exportDoc(t, files))
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	m1.start(m2.client)
	m1.waitLog("running as member m1", joinTimeout)
	waitFile(t, c, "c\n", log)
	waitWebExport(t, m2.client, out, "before\n")

	for _, p := range []*testutil.Proc{compile, apply} {
		if p.Exited() {
			t.Fatalf("web's tool exited during the outages:\n%s", p.Log())
		}
		if n := p.Count("runtime error|panic"); n > 0 {
			t.Fatalf("web's tool reported %d errors:\n%s", n, p.Log())
		}
	}
}

// waitWebExport waits until the world at seed holds web's export of the
// file name with content want.
func waitWebExport(t *testing.T, seed, name, want string) {
	t.Helper()
	key := "exports/web/src/file/" + name
	eventually(t, joinTimeout, func() error {
		r := ctl(t, "", "get", "--timeout", "3s", "--prefix", "--seeds", seed, "exports/web")
		if r.Code != 0 {
			return fmt.Errorf("get exports/web: exit %d: %s", r.Code, r.Stderr)
		}
		for _, l := range strings.Split(r.Stdout, "\n") {
			if k, v, _ := strings.Cut(l, "\t"); k == key && strings.Contains(v, fmt.Sprintf("%q", want)) {
				return nil
			}
		}
		return fmt.Errorf("no %s with content %q in:\n%s", key, want, r.Stdout)
	})
}
