package engine

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the Prometheus metrics of an engine: the mgmt metrics of the
// reference (resources, CheckApply calls, failures, graph start time) and
// the Go collector. A nil *Metrics records nothing.
type Metrics struct {
	Registry *prometheus.Registry

	resources     *prometheus.GaugeVec
	checkApplies  *prometheus.CounterVec
	failuresTotal *prometheus.CounterVec
	failures      *prometheus.GaugeVec
	graphStart    prometheus.Gauge
	rechecks      *prometheus.CounterVec
	recheckDrift  *prometheus.CounterVec
	converged     prometheus.Gauge
	graphSeq      prometheus.Gauge
}

// NewMetrics returns the metrics, registered in a new registry along with
// the Go and process collectors. Besides upstream's, mgmt_converged and
// mgmt_graph_seq follow the engine's Status.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		resources: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mgmt_resources_total",
			Help: "The number of resources that mgmt is managing",
		}, []string{"kind"}),
		checkApplies: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mgmt_checkapply_total",
			Help: "The number of CheckApply's that mgmt has run",
		}, []string{"kind", "eventful", "errorful", "apply"}),
		failuresTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mgmt_failures_total",
			Help: "The number of resources that have failed",
		}, []string{"kind"}),
		failures: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mgmt_failures",
			Help: "The number of resources that have failed",
		}, []string{"kind"}),
		graphStart: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mgmt_graph_start_time_seconds",
			Help: "Start time of the current graph since unix epoch in seconds",
		}),
		rechecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mgmt_rechecks_total",
			Help: "The number of periodic rechecks (check-only CheckApply calls) started",
		}, []string{"kind"}),
		recheckDrift: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mgmt_recheck_drift_total",
			Help: "Drift found by a periodic recheck that no watch event had reported; anything but 0 is a missed event",
		}, []string{"kind"}),
		converged: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mgmt_converged",
			Help: "1 while the graph is converged (no resource dirty, running or waiting for a retry), else 0",
		}),
		graphSeq: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mgmt_graph_seq",
			Help: "The seq of the graph document running (-1 before the first)",
		}),
	}
	m.graphSeq.Set(-1)
	m.Registry.MustRegister(m.resources, m.checkApplies, m.failuresTotal, m.failures, m.graphStart,
		m.rechecks, m.recheckDrift, m.converged, m.graphSeq,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

func (m *Metrics) checkApply(vs *vstate, apply, ok bool, err error) {
	if m == nil {
		return
	}
	n := 1 + len(vs.v.Members())
	m.checkApplies.WithLabelValues(vs.v.kind(), strconv.FormatBool(!ok && err == nil),
		strconv.FormatBool(err != nil), strconv.FormatBool(apply)).Add(float64(n))
}

func (m *Metrics) failure(vs *vstate, delta int) {
	if m == nil {
		return
	}
	if delta > 0 {
		m.failuresTotal.WithLabelValues(vs.v.kind()).Inc()
	}
	m.failures.WithLabelValues(vs.v.kind()).Add(float64(delta))
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
		m.resources.WithLabelValues(k).Set(float64(n))
		// Shown at 0 from the start, so that rates and alerts see them.
		m.recheckDrift.WithLabelValues(k) // as it should stay
		m.rechecks.WithLabelValues(k)
		m.failures.WithLabelValues(k)
		m.failuresTotal.WithLabelValues(k)
	}
	m.graphStart.Set(float64(time.Now().UnixNano()) / 1e9)
}

func (m *Metrics) rechecked(vs *vstate) {
	if m != nil {
		m.rechecks.WithLabelValues(vs.v.kind()).Inc()
	}
}

func (m *Metrics) missedDrift(vs *vstate) {
	if m != nil {
		m.recheckDrift.WithLabelValues(vs.v.kind()).Inc()
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
