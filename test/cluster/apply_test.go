package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// applyProc is a background mgmt-apply run.
type applyProc struct {
	cmd      *exec.Cmd
	out, err testutil.SyncBuffer // read while the process writes
	done     chan struct{}
}

func startApply(t *testing.T, stdin string, args ...string) *applyProc {
	t.Helper()
	p := &applyProc{done: make(chan struct{})}
	p.cmd = exec.Command(testutil.Bin(t, "mgmt-apply"), args...)
	p.cmd.Stdin = strings.NewReader(stdin)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

func (p *applyProc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("mgmt-apply did not exit within %v:\n%s", timeout, p.err.String())
		return -1
	}
}

// TestApplyWorld runs two mgmt-apply hosts on one cluster: h1 sets a kv
// value and exports files to h2 (one hidden: run there, not here), both
// exit through the cluster-wide converged timeout, and the exports are
// withdrawn at exit. Then h2's mcl program follows h1's value with
// world.getval and applies h1's hidden file with a collect statement.
func TestApplyWorld(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	m := newHost(t, "m", "http")
	m.start()
	m.waitLog("running as member m", joinTimeout)
	dir := t.TempDir()
	h1Graph := fmt.Sprintf(`{"mgmt":"graph/v1","graph":"h1","seq":1,"resources":[`+
		`{"kind":"kv","name":"greeting","params":{"value":"hello from h1"}},`+
		`{"kind":"file","name":"%s/exported","params":{"state":"exists","content":"x\n"},"meta":{"export":["h2"]}},`+
		`{"kind":"file","name":"%s/collected","params":{"state":"exists","content":"from h1\n"},"meta":{"export":["h2"],"hidden":true}}]}`, dir, dir)
	h2Graph := `{"mgmt":"graph/v1","graph":"h2","seq":1,"resources":[` +
		`{"kind":"kv","name":"up","params":{"key":"up","value":"yes","mapped":true}}]}`
	common := []string{"--tmp-prefix", "--seeds", m.client, "--converged-timeout", "1"}
	h1 := startApply(t, h1Graph, append(common, "--hostname", "h1")...)
	h2 := startApply(t, h2Graph, append(common, "--hostname", "h2")...)
	c1, c2 := h1.wait(t, 60*time.Second), h2.wait(t, 60*time.Second)
	if c1 != 0 || c2 != 0 {
		t.Fatalf("exit codes %d, %d:\n%s\n%s", c1, c2, h1.err.String(), h2.err.String())
	}
	if r := ctl(t, "", "get", "--seeds", m.client, "strings/greeting"); r.Stdout != "hello from h1\n" {
		t.Fatalf("kv from h1: %q %s", r.Stdout, r.Stderr)
	}
	if r := ctl(t, "", "get", "--seeds", m.client, "mapped/h2/up"); r.Stdout != "yes\n" {
		t.Fatalf("mapped kv from h2: %q %s", r.Stdout, r.Stderr)
	}
	if r := ctl(t, "", "get", "--prefix", "--seeds", m.client, "exports"); r.Code != 0 || r.Stdout != "" {
		t.Fatalf("exports left after exit: %q %s", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "collected")); err == nil {
		t.Fatal("h1 applied a hidden exported resource")
	}
	testGetval(t, m, dir)
}

// testGetval runs h1 again (its exports live while it runs) and
// mcl-compile | mgmt-apply as h2 with a program that writes
// world.getval("greeting") to a file and collects the file h1 exported;
// then it changes the value.
func testGetval(t *testing.T, m *host, dir string) {
	out := filepath.Join(dir, "greeting")
	// This h1 only exports: a kv resource would put its value back.
	h1Export := fmt.Sprintf(`{"mgmt":"graph/v1","graph":"h1","seq":1,"resources":[`+
		`{"kind":"file","name":"%s/collected","params":{"state":"exists","content":"from h1\n"},"meta":{"export":["h2"],"hidden":true}}]}`, dir)
	startApply(t, h1Export, "--tmp-prefix", "--seeds", m.client, "--hostname", "h1")
	collected := filepath.Join(dir, "collected")
	src := fmt.Sprintf("import \"world\"\n$g = world.getval(\"greeting\")\nfile %q { state => \"exists\", content => $g->value, }\n"+
		"collect file %q { mode => \"0600\", }\n", out, collected)
	main := filepath.Join(dir, "main.mcl")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	mcl := exec.Command(testutil.Bin(t, "mcl-compile"), "--seeds", m.client, "--hostname", "h2", main)
	apply := exec.Command(testutil.Bin(t, "mgmt-apply"), "--tmp-prefix", "--seeds", m.client, "--hostname", "h2")
	pipe, err := mcl.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	apply.Stdin = pipe
	log := &testutil.SyncBuffer{}
	mcl.Stderr, apply.Stderr = log, log
	if err := mcl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { mcl.Process.Kill(); mcl.Wait() }()
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { apply.Process.Kill(); apply.Wait() }()
	waitFile(t, out, "hello from h1", log)
	waitFile(t, collected, "from h1\n", log)
	if st, err := os.Stat(collected); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("collected file: %v, %v; want mode 0600 from the collect statement", st, err)
	}
	if r := ctl(t, "", "put", "--seeds", m.client, "strings/greeting", "changed"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	waitFile(t, out, "changed", log)
}

// waitFile waits until path holds want.
func waitFile(t *testing.T, path, want string, log *testutil.SyncBuffer) {
	t.Helper()
	eventually(t, 30*time.Second, func() error {
		b, err := os.ReadFile(path)
		if err != nil || string(b) != want {
			return fmt.Errorf("%s = %q (%v), want %q; log:\n%s", path, b, err, want, log.String())
		}
		return nil
	})
}
