package engine

import (
	"math"
	"reflect"
	"slices"

	"golang.org/x/time/rate"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// DefaultMeta returns the default metaparameters.
func DefaultMeta() *MetaParams { return &MetaParams{} }

// defaultMeta is the set of default metaparameters shared by the resources
// of a graph that give none; it is never changed.
var defaultMeta = DefaultMeta()

// ValidateMeta reports the first problem of the metaparameters m (see
// graph.Meta.Check, which it is).
func ValidateMeta(m *MetaParams) error { return m.Check() }

// ParseSema splits a semaphore id of the form "id" or "id:N" into its key
// and size; see graph.ParseSema, which it is.
func ParseSema(s string) (key string, size int, err error) { return graph.ParseSema(s) }

// limiter returns the rate limiter of m, or nil when there is no limit.
func limiter(m *MetaParams) *rate.Limiter {
	if m.Limit == nil || math.IsInf(*m.Limit, 1) {
		return nil
	}
	return rate.NewLimiter(rate.Limit(*m.Limit), m.Burst)
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// metaEqual compares two sets of metaparameters as a graph swap does: every
// field counts, sema and export are sets, retryreset does not count.
func metaEqual(a, b *MetaParams) bool {
	if a == nil {
		a = DefaultMeta()
	}
	if b == nil {
		b = DefaultMeta()
	}
	x, y := *a, *b
	x.RetryReset, y.RetryReset = false, false
	x.Sema, y.Sema = sortedSet(x.Sema), sortedSet(y.Sema)
	x.Export, y.Export = sortedSet(x.Export), sortedSet(y.Export)
	x.AutoEdge, y.AutoEdge = boolPtr(boolOr(x.AutoEdge, true)), boolPtr(boolOr(y.AutoEdge, true))
	x.AutoGroup, y.AutoGroup = boolPtr(boolOr(x.AutoGroup, true)), boolPtr(boolOr(y.AutoGroup, true))
	if x.Limit != nil && math.IsInf(*x.Limit, 1) {
		x.Limit = nil
	}
	if y.Limit != nil && math.IsInf(*y.Limit, 1) {
		y.Limit = nil
	}
	return reflect.DeepEqual(x, y)
}

func boolPtr(b bool) *bool { return &b }

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
