package system

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
)

// benchInit is an Init handle for benchmarks: no watch, no log.
func benchInit() *engine.Init {
	return &engine.Init{Env: &engine.Env{}}
}

func benchApply(b *testing.B, r engine.Res) {
	b.Helper()
	if _, err := r.CheckApply(b.Context(), true); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLivePkgInstall5 installs 5 local packages per iteration, as one
// group (one transaction) or as 5 resources, with each backend. Removing
// them again is not timed.
func BenchmarkLivePkgInstall5(b *testing.B) {
	systemtest.Live(b)
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	for _, backend := range []string{"apt", "packagekit"} {
		var names []string
		var debs []systemtest.Deb
		for i := 0; i < 5; i++ {
			n := fmt.Sprintf("mgmt-bench-%s-%d-%s", backend, i, id)
			names = append(names, n)
			debs = append(debs, systemtest.Deb{Name: n, Version: "1.0"})
		}
		systemtest.Repo(b, "", debs...)
		mk := func(state string) []*PkgRes {
			var rs []*PkgRes
			for _, n := range names {
				r := newPkg(n, state, backend)
				r.Init(benchInit())
				rs = append(rs, r)
			}
			return rs
		}
		group := func(rs []*PkgRes) *PkgRes {
			for _, r := range rs[1:] {
				if err := rs[0].GroupRes(r); err != nil {
					b.Fatal(err)
				}
			}
			return rs[0]
		}
		remove := group(mk("uninstalled"))
		benchApply(b, group(mk("installed"))) // refreshes the index once, untimed
		benchApply(b, remove)
		b.Run(backend+"/grouped", func(b *testing.B) {
			g := group(mk("installed"))
			for b.Loop() {
				benchApply(b, g)
				b.StopTimer()
				benchApply(b, remove)
				b.StartTimer()
			}
		})
		b.Run(backend+"/ungrouped", func(b *testing.B) {
			rs := mk("installed")
			for b.Loop() {
				for _, r := range rs {
					benchApply(b, r)
				}
				b.StopTimer()
				benchApply(b, remove)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkLiveSvcStartStop starts and stops a unit through svc per
// iteration, each CheckApply waiting for systemd's job result.
func BenchmarkLiveSvcStartStop(b *testing.B) {
	systemtest.Live(b)
	writeUnitTB(b, "mgmt-bench-sleeper")
	start := newSvc("mgmt-bench-sleeper", "running", "")
	stop := newSvc("mgmt-bench-sleeper", "stopped", "")
	start.Init(benchInit())
	stop.Init(benchInit())
	benchApply(b, stop)
	for b.Loop() {
		benchApply(b, start)
		benchApply(b, stop)
	}
}
