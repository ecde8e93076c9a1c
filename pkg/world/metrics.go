package world

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// EtcdMetrics returns the Prometheus metrics of the etcd members this
// process runs (etcd_*, which etcd registers in the default registry),
// without the Go and process metrics of that registry, which a tool's own
// registry may hold too.
func EtcdMetrics() prometheus.Gatherer { return etcdGatherer{} }

type etcdGatherer struct{}

func (etcdGatherer) Gather() ([]*dto.MetricFamily, error) {
	all, err := prometheus.DefaultGatherer.Gather()
	out := all[:0]
	for _, mf := range all {
		if strings.HasPrefix(mf.GetName(), "etcd_") {
			out = append(out, mf)
		}
	}
	return out, err
}
