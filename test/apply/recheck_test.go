package apply

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// mmapWrite overwrites the start of the file p with s through a shared
// memory mapping: the file changes, but inotify reports nothing.
func mmapWrite(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, len(s), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, s)
	if err := syscall.Munmap(b); err != nil {
		t.Fatal(err)
	}
}

// TestRecheckRepairsUnseenDrift changes a managed file through a shared
// mapping, which no watch can see: the periodic recheck repairs it, says
// so in a warning and counts it in mgmt_recheck_drift_total.
func TestRecheckRepairsUnseenDrift(t *testing.T) {
	d := t.TempDir()
	f := d + "/f"
	p := startApply(t, "--tmp-prefix", "--recheck", "300ms", "--prometheus", "--prometheus-listen", "127.0.0.1:0")
	p.Write(gdoc(1, []res{file(f, P{"content": "hello\n"}), file(d+"/g", P{"content": "g\n"})}))
	// Converged: the checks that followed the files' creation are over
	// (a creation event that came before the engine marked it as its
	// own makes the file checked once more, by design). One that ran
	// after the change below would repair it before any recheck.
	p.WaitLines(`graph seq 1 converged in`, 1)
	p.WaitLines(`prometheus metrics on`, 1)
	if m := scrape(t, p); !strings.Contains(m, `mgmt_recheck_drift_total{kind="file"} 0`) {
		t.Fatalf("no mgmt_recheck_drift_total at 0 before any drift:\n%s", m)
	}
	mmapWrite(t, f, "HELLO\n")
	p.WaitLines(`file\[.*/f\]: warning: the recheck found drift that no watch event reported`, 1)
	p.WaitLines(`file\[.*/f\]: changed`, 2)
	if got := readFile(t, f); got != "hello\n" {
		t.Fatalf("after the recheck the file holds %q", got)
	}
	if m := scrape(t, p); !strings.Contains(m, `mgmt_recheck_drift_total{kind="file"} 1`) {
		t.Fatalf("mgmt_recheck_drift_total is not 1:\n%s", m)
	}
	if n := p.Count(`warning: the recheck`); n != 1 {
		t.Fatalf("%d recheck warnings, want 1:\n%s", n, p.Log())
	}
}
