// Command pgo writes the profile that builds of mgmt-apply use for
// profile-guided optimisation, cmd/mgmt-apply/default.pgo (the go command
// takes a default.pgo beside a main package on its own): a CPU profile of
// mgmt-apply's own code, run in this process, doing the work of
// bench/cfengine.sh, N files of one line each made from nothing (cold)
// and found right (warm), at 1,000, 10,000 and 100,000 files.
//
// Usage, from the repository (make pgo):
//
//	go run ./bench/pgo [-o cmd/mgmt-apply/default.pgo]
//
// The files are made under TMPDIR and removed at the end. Run it on an
// idle machine after a change to what mgmt-apply spends its time on, and
// commit the profile with the change.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/tool/mgmtapply"
)

func main() {
	out := flag.String("o", "cmd/mgmt-apply/default.pgo", "where to write the profile")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "pgo:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	work, err := os.MkdirTemp("", "mgmt-pgo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	type load struct{ n, cold, warm int }
	loads := []load{{1000, 5, 20}, {10000, 3, 10}, {100000, 1, 2}}
	graphs := make([]string, len(loads))
	for i, l := range loads {
		if graphs[i], err = writeGraph(work, l.n); err != nil {
			return err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	for i, l := range loads {
		for range l.cold {
			if err := os.RemoveAll(filepath.Join(work, fmt.Sprint(l.n))); err != nil {
				return err
			}
			if err := apply(graphs[i]); err != nil {
				return err
			}
		}
		for range l.warm {
			if err := apply(graphs[i]); err != nil {
				return err
			}
		}
	}
	pprof.StopCPUProfile()
	return f.Close()
}

// writeGraph writes the graph of bench/cfengine.sh for n files under
// work/n (in n/1000 directories above 10,000 files) and returns its path.
func writeGraph(work string, n int) (string, error) {
	root := filepath.Join(work, fmt.Sprint(n))
	nd := 1
	if n > 10000 {
		nd = n / 1000
	}
	var b bytes.Buffer
	b.WriteString(`{"mgmt":"graph/v1","graph":"bench","seq":1,"resources":[`)
	fmt.Fprintf(&b, `{"kind":"file","name":"%s/","params":{"state":"exists"}}`, root)
	for j := range nd {
		fmt.Fprintf(&b, `,{"kind":"file","name":"%s/d%d/","params":{"state":"exists"}}`, root, j)
	}
	for i := range n {
		fmt.Fprintf(&b, `,{"kind":"file","name":"%s/d%d/f%d","params":{"state":"exists","content":"file %d\n","mode":"0644"}}`, root, i%nd, i, i)
	}
	b.WriteString("]}\n")
	p := root + ".json"
	return p, os.WriteFile(p, b.Bytes(), 0o644)
}

// apply runs mgmt-apply on the graph at path until it has converged.
func apply(path string) error {
	var stderr strings.Builder
	args := []string{"--tmp-prefix", "--converged-timeout", "0", "--file", path}
	if code := mgmtapply.Run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		return fmt.Errorf("mgmt-apply %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return nil
}
