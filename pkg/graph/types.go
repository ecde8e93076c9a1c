package graph

import "strings"

// Version is the value of the "mgmt" field of every v1 document.
const Version = "graph/v1"

// A Document is one graph document of the wire format v1: either a graph
// (Resources and Edges) or, when its producer could not make a graph this
// time, an Error.
type Document struct {
	Mgmt      string      `json:"mgmt"`
	Graph     string      `json:"graph"`
	Seq       int64       `json:"seq"`
	Source    string      `json:"source,omitempty"`
	Resources []*Resource `json:"resources,omitempty"`
	Edges     []*Edge     `json:"edges,omitempty"`
	Error     *Error      `json:"error,omitempty"`

	// At is where the document starts in its input stream; set by the
	// Decoder, never encoded.
	At Position `json:"-" yaml:"-"`

	// Warnings are what the Decoder accepted but left out of the
	// document, each with its position (see KindSchema.Retired); never
	// encoded.
	Warnings []string `json:"-" yaml:"-"`

	// EdgeEnds is where a producer that knows them put the ends of the
	// edges: EdgeEnds[i] holds the indexes in Resources of Edges[i]'s
	// from and to resources. Validate takes an entry only after seeing
	// that those resources are the edge's ends, and looks up the ends of
	// any other edge by their references, so an entry made wrong by a
	// later change of the document costs time, never a wrong graph.
	// Optional; never encoded.
	EdgeEnds [][2]int32 `json:"-" yaml:"-"`
}

// IsError reports whether d carries an error instead of a graph.
func (d *Document) IsError() bool { return d.Error != nil }

// A Resource is one vertex: a kind, a name unique per kind, its parameters
// and metaparameters. An absent parameter key means undefined, which differs
// from a zero value. Integer parameter values are json.Number after decoding.
type Resource struct {
	Kind   string         `json:"kind"`
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
	Meta   *Meta          `json:"meta,omitempty"`
	Pos    string         `json:"pos,omitempty"`
	Origin string         `json:"origin,omitempty"`

	// At is where the resource was read (the document's line for JSON,
	// line and column for YAML); set by the Decoder, never encoded.
	At Position `json:"-" yaml:"-"`
}

// Where returns the position to report errors about r at: its pos when it
// has one, otherwise where it was read.
func (r *Resource) Where() string {
	if r.Pos != "" {
		return r.Pos
	}
	return r.At.String()
}

// Ref returns the reference to r.
func (r *Resource) Ref() Ref { return Ref{Kind: r.Kind, Name: r.Name} }

// A Ref names a resource by kind and name.
type Ref struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// String returns the ref as kind[name].
func (r Ref) String() string { return r.Kind + "[" + r.Name + "]" }

// Compare orders refs by kind, then name.
func (r Ref) Compare(o Ref) int {
	if r.Kind != o.Kind {
		if r.Kind < o.Kind {
			return -1
		}
		return 1
	}
	switch {
	case r.Name < o.Name:
		return -1
	case r.Name > o.Name:
		return 1
	}
	return 0
}

// An EdgeKey identifies an edge: two edges with the same key are the same
// edge (they may differ in Notify only).
type EdgeKey struct {
	From, To   Ref
	Send, Recv string
}

// Key returns the identity of e.
func (e *Edge) Key() EdgeKey { return EdgeKey{e.From, e.To, e.Send, e.Recv} }

// String returns the edge as from -> to, with the send/recv pair if any.
func (e *Edge) String() string {
	s := e.From.String() + " -> " + e.To.String()
	if e.Send != "" || e.Recv != "" {
		s += " (" + e.Send + " -> " + e.Recv + ")"
	}
	return s
}

// Compare orders edge keys by from, to, send, recv.
func (k EdgeKey) Compare(o EdgeKey) int {
	if c := k.From.Compare(o.From); c != 0 {
		return c
	}
	if c := k.To.Compare(o.To); c != 0 {
		return c
	}
	if c := strings.Compare(k.Send, o.Send); c != 0 {
		return c
	}
	return strings.Compare(k.Recv, o.Recv)
}

// An Edge orders From before To. Notify also sends a refresh; Send and Recv,
// when set, name a value sent from From's Send key to To's Recv parameter.
type Edge struct {
	From   Ref    `json:"from"`
	To     Ref    `json:"to"`
	Notify bool   `json:"notify,omitempty"`
	Send   string `json:"send,omitempty"`
	Recv   string `json:"recv,omitempty"`

	// At is where the edge was read; set by the Decoder, never encoded.
	At Position `json:"-" yaml:"-"`
}

// An Error is the payload of an error document.
type Error struct {
	Message string `json:"message"`
	Pos     string `json:"pos,omitempty"`
}

// Meta holds the metaparameters of a resource. The zero value of every field
// is its default, except where a pointer marks "absent": Limit (nil = +Inf),
// AutoEdge and AutoGroup (nil = true). Delay and Timeout are milliseconds,
// Poll is seconds.
type Meta struct {
	Noop       bool     `json:"noop,omitempty" yaml:"noop,omitempty"`
	Retry      int16    `json:"retry,omitempty" yaml:"retry,omitempty"`
	RetryReset bool     `json:"retryreset,omitempty" yaml:"retryreset,omitempty"`
	Delay      uint64   `json:"delay,omitempty" yaml:"delay,omitempty"`
	Timeout    uint64   `json:"timeout,omitempty" yaml:"timeout,omitempty"`
	Poll       int32    `json:"poll,omitempty" yaml:"poll,omitempty"`
	Limit      *float64 `json:"limit,omitempty" yaml:"limit,omitempty"`
	Burst      int      `json:"burst,omitempty" yaml:"burst,omitempty"`
	Reset      bool     `json:"reset,omitempty" yaml:"reset,omitempty"`
	Sema       []string `json:"sema,omitempty" yaml:"sema,omitempty"`
	Rewatch    bool     `json:"rewatch,omitempty" yaml:"rewatch,omitempty"`
	Realize    bool     `json:"realize,omitempty" yaml:"realize,omitempty"`
	Dollar     bool     `json:"dollar,omitempty" yaml:"dollar,omitempty"`
	Hidden     bool     `json:"hidden,omitempty" yaml:"hidden,omitempty"`
	Export     []string `json:"export,omitempty" yaml:"export,omitempty"`
	Reverse    bool     `json:"reverse,omitempty" yaml:"reverse,omitempty"`
	AutoEdge   *bool    `json:"autoedge,omitempty" yaml:"autoedge,omitempty"`
	AutoGroup  *bool    `json:"autogroup,omitempty" yaml:"autogroup,omitempty"`
}
