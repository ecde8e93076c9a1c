package apply

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitFor polls cond until it holds, failing the test after the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKillTakesCommandsAlong: when mgmt-apply is killed with SIGKILL, the
// commands of its exec resources die with it.
func TestKillTakesCommandsAlong(t *testing.T) {
	d := t.TempDir()
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{
		ex("shell", "echo $$ > "+d+"/shell.pid; exec sleep 1000", nil),
		{Kind: "exec", Name: "direct", Params: P{"cmd": "sleep 1001"}},
	}))
	var pids []int
	waitFor(t, "the shell command's pid", func() bool {
		b, err := os.ReadFile(d + "/shell.pid")
		n, err2 := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || err2 != nil {
			return false
		}
		pids = []int{n}
		return true
	})
	waitFor(t, "sleep 1001 to start", func() bool {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if string(cmdline) == "sleep\x001001\x00" && strings.Contains(string(stat), ") S "+strconv.Itoa(p.Pid())+" ") {
				pids = append(pids, pid)
				return true
			}
		}
		return false
	})
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("command %d is not running", pid)
		}
	}
	p.Signal(syscall.SIGKILL)
	p.Wait()
	for _, pid := range pids {
		waitFor(t, "command "+strconv.Itoa(pid)+" to die", func() bool { return !alive(pid) })
	}
}

// TestRestartRemovesLeftoverTemps: the next start removes at once the
// temporary files a killed mgmt-apply left beside the files it manages,
// but not one that a live writer holds.
func TestRestartRemovesLeftoverTemps(t *testing.T) {
	d := t.TempDir()
	left := filepath.Join(d, ".f.mgmt-tmp-1234567")
	writing := filepath.Join(d, ".g.mgmt-tmp-7654321")
	for _, f := range []string{left, writing} {
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := syscall.Open(writing, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	p := startApply(t, "--tmp-prefix")
	p.Write(gdoc(1, []res{file(d+"/f", P{"content": "x"})}))
	p.WaitLines(`file\[.*/f\]: changed`, 1)
	if _, err := os.Stat(left); err == nil {
		t.Fatal("the leftover temporary file is still there")
	}
	if _, err := os.Stat(writing); err != nil {
		t.Fatalf("the temporary file a live writer holds was removed: %v", err)
	}
}
