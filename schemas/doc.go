// Package schemas holds the JSON Schemas of the project: graph-v1.schema.json
// describes one graph document of wire format v1, and kinds.json lists the
// parameter types of every registered resource kind, generated from the
// resource registry (a test keeps it in sync; regenerate with go generate).
// A kind's "collect" entry is what a collecting host accepts from an
// exporter (graph.CollectRules): "refused" kinds are never collected,
// "name" parameters must equal the resource name when set, and "local"
// parameters may be set only by the collecting host.
package schemas

import _ "embed"

//go:generate go test -run TestKindsInSync -update .

// GraphV1 is the JSON Schema of a graph document.
//
//go:embed graph-v1.schema.json
var GraphV1 []byte

// Kinds is the generated list of resource kinds and their parameter types.
//
//go:embed kinds.json
var Kinds []byte
