package engine

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mgmtpipe/mgmt/internal/metrics"
)

// Metrics are the Prometheus metrics of an engine: the mgmt metrics of the
// reference (resources, CheckApply calls, failures, graph start time), the
// Go runtime's and the process's. A nil *Metrics records nothing.
type Metrics struct {
	Registry *metrics.Registry

	resources     *metrics.Vec
	checkApplies  *metrics.Vec
	failuresTotal *metrics.Vec
	failures      *metrics.Vec
	graphStart    *metrics.Series
	rechecks      *metrics.Vec
	recheckDrift  *metrics.Vec
	converged     *metrics.Series
	graphSeq      *metrics.Series
}

// NewMetrics returns the metrics, registered in a new registry along with
// the Go runtime's and the process's. Besides upstream's, mgmt_converged
// and mgmt_graph_seq follow the engine's Status.
func NewMetrics() *Metrics {
	r := metrics.NewRegistry()
	m := &Metrics{
		Registry:      r,
		resources:     r.NewGauge("mgmt_resources_total", "The number of resources that mgmt is managing", "kind"),
		checkApplies:  r.NewCounter("mgmt_checkapply_total", "The number of CheckApply's that mgmt has run", "kind", "eventful", "errorful", "apply"),
		failuresTotal: r.NewCounter("mgmt_failures_total", "The number of resources that have failed", "kind"),
		failures:      r.NewGauge("mgmt_failures", "The number of resources that have failed", "kind"),
		graphStart:    r.NewGauge("mgmt_graph_start_time_seconds", "Start time of the current graph since unix epoch in seconds").With(),
		rechecks:      r.NewCounter("mgmt_rechecks_total", "The number of periodic rechecks (check-only CheckApply calls) started", "kind"),
		recheckDrift:  r.NewCounter("mgmt_recheck_drift_total", "Drift found by a periodic recheck that no watch event had reported; anything but 0 is a missed event", "kind"),
		converged:     r.NewGauge("mgmt_converged", "1 while the graph is converged (no resource dirty, running or waiting for a retry), else 0").With(),
		graphSeq:      r.NewGauge("mgmt_graph_seq", "The seq of the graph document running (-1 before the first)").With(),
	}
	m.graphSeq.Set(-1)
	r.RegisterGo()
	r.RegisterProcess()
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return m.Registry.Handler()
}

func (m *Metrics) checkApply(vs *vstate, apply, ok bool, err error) {
	if m == nil {
		return
	}
	n := 1 + len(vs.v.Members())
	m.checkApplies.With(vs.v.kind(), strconv.FormatBool(!ok && err == nil),
		strconv.FormatBool(err != nil), strconv.FormatBool(apply)).Add(float64(n))
}

func (m *Metrics) failure(vs *vstate, delta int) {
	if m == nil {
		return
	}
	if delta > 0 {
		m.failuresTotal.With(vs.v.kind()).Inc()
	}
	m.failures.With(vs.v.kind()).Add(float64(delta))
}

func (m *Metrics) graphLoaded(vss []*vstate) {
	if m == nil {
		return
	}
	counts := map[string]int{}
	for _, vs := range vss {
		counts[vs.v.kind()] += 1 + len(vs.v.Members())
	}
	m.resources.Reset()
	for k, n := range counts {
		m.resources.With(k).Set(float64(n))
		// Shown at 0 from the start, so that rates and alerts see them.
		m.recheckDrift.With(k) // as it should stay
		m.rechecks.With(k)
		m.failures.With(k)
		m.failuresTotal.With(k)
	}
	m.graphStart.Set(float64(time.Now().UnixNano()) / 1e9)
}

func (m *Metrics) rechecked(vs *vstate) {
	if m != nil {
		m.rechecks.With(vs.v.kind()).Inc()
	}
}

func (m *Metrics) missedDrift(vs *vstate) {
	if m != nil {
		m.recheckDrift.With(vs.v.kind()).Inc()
	}
}

// status records the convergence and the graph of a snapshot.
func (m *Metrics) status(st *Status) {
	if m == nil {
		return
	}
	conv := 0.0
	if !st.Since.IsZero() {
		conv = 1
	}
	m.converged.Set(conv)
	if st.Loaded {
		m.graphSeq.Set(float64(st.Seq))
	}
}
