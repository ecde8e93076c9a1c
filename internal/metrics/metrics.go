// Package metrics keeps a program's metrics and serves them in the
// Prometheus text exposition format, version 0.0.4, without the
// Prometheus client library: a tool that links it initialises no
// protobuf, procfs or client package at its start, metrics or not.
//
// # Model
//
// A Registry holds metric families, each with a name, a help text, a
// type and its label names. Counters and gauges kept by the program are
// Vecs: a Vec holds one Series per combination of label values, made by
// With on first use, each an atomic float64 that any goroutine may
// update. Families computed at each scrape (the Go runtime's, the
// process's) come from Collectors, which declare their family names when
// registered. A Text source adds families written elsewhere (by another
// process) under a name prefix of their own: the registry checks the
// text (Check) and writes it at its place among the families.
//
// # Exposition
//
// Write gathers every family, sorts the families by name and writes
// each: "# HELP name help" (backslash and newline escaped), "# TYPE name
// type", then its samples sorted by label values, labels in the order of
// their names, label values escaped (backslash, double quote, newline),
// values formatted as Prometheus's own client does (shortest 'g' form,
// NaN, +Inf, -Inf). A family without any series is left out. Two sources
// can never write the same family name: registering a name twice, or a
// name under the prefix of a Text source, panics, as it is a mistake of
// the program, not of its input.
package metrics

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A Type is the type of a metric family.
type Type uint8

// The types of families, as the # TYPE line names them.
const (
	Counter Type = iota + 1
	Gauge
	Summary
	Untyped
)

func (t Type) String() string {
	switch t {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Summary:
		return "summary"
	}
	return "untyped"
}

// A Family is one metric family of a scrape.
type Family struct {
	Name, Help string
	Type       Type
	Samples    []Sample
}

// A Sample is one line of a family: the family's name followed by
// Suffix ("", or "_sum" and "_count" for a summary), its labels and its
// value.
type Sample struct {
	Suffix string
	Labels []Label
	Value  float64
}

// A Label is a label's name and value.
type Label struct{ Name, Value string }

// A Collector makes families at each scrape, by calling add with each.
// It makes only the families named when it was registered; add drops
// any other.
type Collector interface {
	Collect(add func(Family))
}

// A Registry holds the families of a program. Its methods are safe for
// concurrent use.
type Registry struct {
	mu         sync.Mutex
	names      map[string]bool
	vecs       []*Vec
	collectors []collector
	texts      []*textSource
}

type collector struct {
	c     Collector
	names map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{names: map[string]bool{}}
}

// claim reserves a family name, and panics when it is taken or invalid.
func (r *Registry) claim(name string) {
	if !validName(name, true) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	if r.names[name] {
		panic(fmt.Sprintf("metrics: %s registered twice", name))
	}
	for _, t := range r.texts {
		if strings.HasPrefix(name, t.prefix) {
			panic(fmt.Sprintf("metrics: %s is under the prefix %s of a text source", name, t.prefix))
		}
	}
	r.names[name] = true
}

// NewCounter registers a counter family with these label names and
// returns it. A family without labels has its one series, at 0, from
// the start.
func (r *Registry) NewCounter(name, help string, labels ...string) *Vec {
	return r.newVec(name, help, Counter, labels)
}

// NewGauge registers a gauge family, as NewCounter does a counter.
func (r *Registry) NewGauge(name, help string, labels ...string) *Vec {
	return r.newVec(name, help, Gauge, labels)
}

func (r *Registry) newVec(name, help string, t Type, labels []string) *Vec {
	v := &Vec{name: name, help: help, typ: t, series: map[string]*Series{}}
	v.labels = append([]string(nil), labels...)
	sort.Strings(v.labels)
	v.order = make([]int, len(labels))
	for i, l := range v.labels {
		if !validName(l, false) || strings.HasPrefix(l, "__") || i > 0 && v.labels[i-1] == l {
			panic(fmt.Sprintf("metrics: %s: invalid or repeated label name %q", name, l))
		}
		for j, m := range labels {
			if m == l {
				v.order[i] = j
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.claim(name)
	r.vecs = append(r.vecs, v)
	if len(labels) == 0 {
		v.With()
	}
	return v
}

// Register adds a collector of the families named.
func (r *Registry) Register(c Collector, names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cl := collector{c: c, names: map[string]bool{}}
	for _, n := range names {
		r.claim(n)
		cl.names[n] = true
	}
	r.collectors = append(r.collectors, cl)
}

// Gather returns every family of the registry (the Text sources' aside),
// sorted by name, each family's samples in their order of exposition.
func (r *Registry) Gather() []Family {
	r.mu.Lock()
	vecs := append([]*Vec(nil), r.vecs...)
	cls := append([]collector(nil), r.collectors...)
	r.mu.Unlock()
	fams := make([]Family, 0, len(vecs)+32)
	for _, v := range vecs {
		if f := v.family(); len(f.Samples) > 0 {
			fams = append(fams, f)
		}
	}
	for _, cl := range cls {
		seen := map[string]bool{}
		cl.c.Collect(func(f Family) {
			if cl.names[f.Name] && !seen[f.Name] && len(f.Samples) > 0 {
				seen[f.Name] = true
				fams = append(fams, f)
			}
		})
	}
	sort.Slice(fams, func(i, j int) bool { return fams[i].Name < fams[j].Name })
	return fams
}

// A Vec is a counter or gauge family: one Series per combination of the
// values of its labels.
type Vec struct {
	name, help string
	typ        Type
	labels     []string // sorted
	order      []int    // labels[i] is the order[i]th label of With

	mu     sync.Mutex
	series map[string]*Series
}

// A Series is the value of one combination of label values.
type Series struct {
	values []string // in the order of Vec.labels
	bits   atomic.Uint64
}

// With returns the series of these label values, given in the order of
// the label names given to NewCounter or NewGauge, made at 0 on first
// use. It panics when the number of values is not the number of labels.
func (v *Vec) With(values ...string) *Series {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %s: %d label values for %d labels", v.name, len(values), len(v.labels)))
	}
	// The key: each value after its length, so that no two lists of
	// values share one.
	var buf [128]byte
	key := buf[:0]
	for _, x := range values {
		key = strconv.AppendInt(key, int64(len(x)), 10)
		key = append(key, ':')
		key = append(key, x...)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.series[string(key)]
	if s == nil {
		s = &Series{values: make([]string, len(values))}
		for i, j := range v.order {
			s.values[i] = values[j]
		}
		v.series[string(key)] = s
	}
	return s
}

// Reset removes every series.
func (v *Vec) Reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.series)
}

// family is a snapshot of the vec, its series sorted by label values.
func (v *Vec) family() Family {
	v.mu.Lock()
	ss := make([]*Series, 0, len(v.series))
	for _, s := range v.series {
		ss = append(ss, s)
	}
	v.mu.Unlock()
	sort.Slice(ss, func(i, j int) bool {
		a, b := ss[i].values, ss[j].values
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	f := Family{Name: v.name, Help: v.help, Type: v.typ, Samples: make([]Sample, len(ss))}
	for i, s := range ss {
		var ls []Label
		if len(v.labels) > 0 {
			ls = make([]Label, len(v.labels))
			for k, n := range v.labels {
				ls[k] = Label{n, s.values[k]}
			}
		}
		f.Samples[i] = Sample{Labels: ls, Value: s.Value()}
	}
	return f
}

// Value returns the series' value.
func (s *Series) Value() float64 { return math.Float64frombits(s.bits.Load()) }

// Set sets the value (of a gauge).
func (s *Series) Set(x float64) { s.bits.Store(math.Float64bits(x)) }

// Inc adds 1.
func (s *Series) Inc() { s.Add(1) }

// Add adds d (which a counter's caller keeps positive).
func (s *Series) Add(d float64) {
	for {
		old := s.bits.Load()
		if s.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// validName says whether s is a metric name (colons allowed) or a label
// name (colons not allowed): a letter or underscore, then letters,
// digits and underscores.
func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case colon && c == ':':
		case i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return true
}
