package graph

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

// An Edge orders From before To. Notify also sends a refresh; Send and Recv,
// when set, name a value sent from From's Send key to To's Recv parameter.
type Edge struct {
	From   Ref    `json:"from"`
	To     Ref    `json:"to"`
	Notify bool   `json:"notify,omitempty"`
	Send   string `json:"send,omitempty"`
	Recv   string `json:"recv,omitempty"`
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
