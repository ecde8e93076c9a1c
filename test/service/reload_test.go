package service

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// A notifySocket is the datagram socket a service manager gives a
// service in $NOTIFY_SOCKET, read by the test.
type notifySocket struct {
	t    *testing.T
	path string
	conn *net.UnixConn
}

func listenNotify(t *testing.T) *notifySocket {
	path := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &notifySocket{t: t, path: path, conn: conn}
}

// until reads messages until one holds every line of want, and fails the
// test when none does within the deadline; it returns the messages read.
func (n *notifySocket) until(want ...string) []string {
	n.t.Helper()
	var got []string
	buf := make([]byte, 4096)
	n.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		k, err := n.conn.Read(buf)
		if err != nil {
			n.t.Fatalf("waiting for %q on the notify socket: %v; got %q", want, err, got)
		}
		msg := string(buf[:k])
		got = append(got, msg)
		lines := "\n" + msg + "\n"
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(lines, "\n"+w+"\n")
		}
		if ok {
			return got
		}
	}
}

func graphDoc(path, content string) string {
	return `{"mgmt":"graph/v1","graph":"main","seq":1,"resources":[{"kind":"file","name":"` + path + `","params":{"content":"` + content + `","state":"exists"}}]}` + "\n"
}

// TestApplyReadyAndReload runs mgmt-apply --file as a Type=notify service
// would: it reports READY=1 once it enforces the graph, and SIGHUP makes
// it read the file again.
func TestApplyReadyAndReload(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "graph.json"), filepath.Join(dir, "out")
	os.WriteFile(in, []byte(graphDoc(out, "one")), 0o644)
	n := listenNotify(t)
	p := testutil.StartWith(t, env("NOTIFY_SOCKET="+n.path), "mgmt-apply", "--tmp-prefix", "--file", in)
	n.until("READY=1", `STATUS=enforcing graph "main" seq 1`)
	p.WaitLines(`graph seq 1 converged in`, 1)
	if b, _ := os.ReadFile(out); string(b) != "one" {
		t.Fatalf("after the first graph: %q", b)
	}
	os.WriteFile(in, []byte(graphDoc(out, "two")), 0o644)
	p.Signal(syscall.SIGHUP)
	n.until("RELOADING=1")
	n.until("READY=1")
	p.WaitLines(`graph seq 1 converged in`, 2)
	if b, _ := os.ReadFile(out); string(b) != "two" {
		t.Errorf("after SIGHUP: %q\n%s", b, p.Log())
	}
	// A file that no longer parses: reported, the last good graph stays.
	os.WriteFile(in, []byte("{not json\n"), 0o644)
	p.Signal(syscall.SIGHUP)
	p.WaitLines(`keeping the last good graph`, 1)
	os.WriteFile(out, []byte("drift"), 0o644)
	p.WaitLines(`file\[.*/out\]: changed`, 3) // created, "two", then the drift repaired
	p.Terminate()
	if b, _ := os.ReadFile(out); string(b) != "two" {
		t.Errorf("after a bad reload and drift: %q\n%s", b, p.Log())
	}
}

// TestCompileReload sends SIGHUP to mcl-compile --keep-running: a program
// that checks replaces the running one (the seq numbers go on), one that
// does not is reported and the running one stays.
func TestCompileReload(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "main.mcl")
	write := func(src string) { os.WriteFile(prog, []byte(src), 0o644) }
	write("file \"/tmp/never\" { content => \"one\", }\n")
	var stdout testutil.SyncBuffer
	p := testutil.StartWith(t, func(c *exec.Cmd) { c.Stdout = &stdout }, "mcl-compile", "--keep-running", "--prefix", dir, prog)
	p.WaitLines(`every stream has ended: waiting for SIGHUP`, 1)
	write("file \"/tmp/never\" { content => two }\n")
	p.Signal(syscall.SIGHUP)
	p.WaitLines(`main.mcl:1:32: syntax error`, 1)
	p.WaitLines(`SIGHUP: the program does not check: the running one stays`, 1)
	write("file \"/tmp/never\" { content => \"two\", }\n")
	p.Signal(syscall.SIGHUP)
	p.WaitLines(`every stream has ended: waiting for SIGHUP`, 2)
	p.Terminate()
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"seq":1,`) || !strings.Contains(lines[0], `"content":"one"`) ||
		!strings.Contains(lines[1], `"seq":2,`) || !strings.Contains(lines[1], `"content":"two"`) {
		t.Errorf("documents written:\n%s\nlog:\n%s", stdout.String(), p.Log())
	}
}

// TestClusterReady runs mgmt-cluster run with a notify socket: READY=1
// once it serves as a member; SIGHUP does not stop it.
func TestClusterReady(t *testing.T) {
	n := listenNotify(t)
	p := testutil.StartWith(t, env("NOTIFY_SOCKET="+n.path), "mgmt-cluster", "run", "--prefix", t.TempDir())
	n.until("READY=1", "STATUS=running as member")
	p.Signal(syscall.SIGHUP)
	p.WaitLines(`SIGHUP: nothing to reload`, 1)
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 0 {
		t.Errorf("mgmt-cluster run after SIGHUP and SIGTERM: exit %d\n%s", code, p.Log())
	}
}
