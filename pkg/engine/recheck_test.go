package engine_test

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// metric reads one sample of the metrics endpoint, -1 when absent.
func metric(t *testing.T, m *engine.Metrics, sample string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`)
	f := re.FindStringSubmatch(rec.Body.String())
	if f == nil {
		return -1
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRecheckRepairsUnseenDrift changes a resource's state without its
// Watch seeing it: the periodic recheck repairs it, counts it as missed
// and says so.
func TestRecheckRepairsUnseenDrift(t *testing.T) {
	m := engine.NewMetrics()
	h := start(t, engine.Config{Recheck: 100 * time.Millisecond, Metrics: m})
	h.load(doc(1, []string{"a want=1", "b want=2"}))
	h.converge(1)
	if v := metric(t, m, `mgmt_recheck_drift_total{kind="tval"}`); v != 0 {
		t.Fatalf("mgmt_recheck_drift_total is %v before any drift, want 0", v)
	}
	sys.set("a", "drifted") // no poke: the Watch sees nothing
	h.waitFor(func(st engine.Status) bool { return sys.get("a") == "1" && st.Missed == 1 }, "the recheck's repair")
	if v := metric(t, m, `mgmt_recheck_drift_total{kind="tval"}`); v != 1 {
		t.Fatalf("mgmt_recheck_drift_total is %v, want 1", v)
	}
	if !strings.Contains(h.logs.String(), "t.mcl:1:1: tval[a]: warning: the recheck found drift that no watch event reported") {
		t.Fatalf("no warning in the log:\n%s", h.logs)
	}
	if sys.get("b") != "2" || h.e.Status().Missed != 1 {
		t.Fatalf("b=%q missed=%d", sys.get("b"), h.e.Status().Missed)
	}
}

// TestRecheckQuiet rechecks resources in their state: nothing is applied,
// nothing counted, and the graph stays converged since the same moment.
func TestRecheckQuiet(t *testing.T) {
	m := engine.NewMetrics()
	h := start(t, engine.Config{Recheck: 20 * time.Millisecond, Metrics: m})
	h.load(doc(1, []string{"a want=1", "b want=2", "c want=3"}, "a -> b"))
	since := h.converge(1).Since
	applied := len(changed())
	// A recheck is counted as it starts, its CheckApply as it ends: the
	// wait is for six that ended, every one of them a recheck (the
	// graph's own checks apply).
	h.waitFor(func(engine.Status) bool {
		return metric(t, m, `mgmt_checkapply_total{apply="false",errorful="false",eventful="false",kind="tval"}`) >= 6
	}, "six check-only CheckApply calls")
	st := h.e.Status()
	if len(changed()) != applied || st.Missed != 0 || !st.Since.Equal(since) {
		t.Fatalf("after rechecks: %d applies (was %d), status %+v (converged since %v)", len(changed()), applied, st, since)
	}
	if v := metric(t, m, `mgmt_rechecks_total{kind="tval"}`); v < 6 {
		t.Fatalf("%v rechecks counted after six check-only CheckApply calls, want 6 or more", v)
	}
}

// TestRecheckOneAtATime makes a slow resource drift, with an event, each
// time a recheck of it has just been handed out: the run the event asks
// for waits for the recheck, so its CheckApply never runs twice at once.
func TestRecheckOneAtATime(t *testing.T) {
	m := engine.NewMetrics()
	h := start(t, engine.Config{Recheck: 5 * time.Millisecond, Metrics: m})
	h.load(doc(1, []string{"a want=1 sleep=#20"}))
	h.converge(1)
	for i := 0; i < 10; i++ {
		n := metric(t, m, `mgmt_rechecks_total{kind="tval"}`)
		h.waitFor(func(engine.Status) bool { return metric(t, m, `mgmt_rechecks_total{kind="tval"}`) > n }, "a recheck")
		sys.set("a", "drifted")
		sys.poke("a")
		h.waitFor(func(engine.Status) bool { return sys.get("a") == "1" }, "repair")
	}
	sys.mu.Lock()
	maxRun := sys.maxRun
	sys.mu.Unlock()
	if maxRun != 1 {
		t.Fatalf("%d CheckApply calls of one resource ran at once", maxRun)
	}
}

// TestRecheckNoopKnownDrift runs in noop mode: drift already reported by a
// check is not counted again by each recheck.
func TestRecheckNoopKnownDrift(t *testing.T) {
	m := engine.NewMetrics()
	h := start(t, engine.Config{Noop: true, Recheck: 20 * time.Millisecond, Metrics: m})
	h.load(doc(1, []string{"a want=1"}))
	h.converge(1)
	h.waitFor(func(engine.Status) bool {
		return metric(t, m, `mgmt_rechecks_total{kind="tval"}`) >= 5
	}, "five rechecks")
	if st := h.e.Status(); st.Missed != 0 || sys.get("a") != "" {
		t.Fatalf("noop: missed %d, a=%q", st.Missed, sys.get("a"))
	}
}

// TestRecheckStaggered rechecks a graph of slow resources often: one
// recheck runs at a time across the whole graph, never a burst.
func TestRecheckStaggered(t *testing.T) {
	m := engine.NewMetrics()
	h := start(t, engine.Config{Recheck: 40 * time.Millisecond, Metrics: m})
	var res []string
	for i := 0; i < 8; i++ {
		res = append(res, fmt.Sprintf("r%d want=1 sleep=#10", i))
	}
	h.load(doc(1, res))
	h.converge(1)
	sys.mu.Lock()
	sys.maxRun = 0 // the first applies ran in parallel
	sys.mu.Unlock()
	h.waitFor(func(engine.Status) bool {
		return metric(t, m, `mgmt_rechecks_total{kind="tval"}`) >= 16
	}, "sixteen rechecks")
	sys.mu.Lock()
	maxRun := sys.maxRun
	sys.mu.Unlock()
	if maxRun != 1 {
		t.Fatalf("%d rechecks ran at once", maxRun)
	}
}
