// Package graph is the graph document of wire format v1: its types, decoding
// (JSON lines and upstream graph.yaml), canonical encoding (JSON, YAML,
// Graphviz dot), validation with positioned errors, DAG algorithms, the diff
// of two graphs, the merge rules of graph-merge, and the registry of
// per-kind parameter schemas that pkg/resources fills and pkg/lang and
// pkg/puppet read. It does no I/O beyond the readers and writers it is given
// and imports no other package of the project.
//
// # Reading
//
// NewDecoder(r, name).Next() returns one document at a time. The decoder
// first cuts the stream into frames (source.go, decode.go). For JSON, the
// frame is the line holding the document's '{' (JSON lines); when the
// document does not end on that line, the decoder counts brackets outside
// strings from the '{' to its matching '}' instead, a line that starts with
// '{' ending a frame left open (a truncated document). For YAML, a frame is
// the lines between "---" or "..." separators. A frame is then parsed
// on its own, so a bad document yields one positioned error and the next
// call goes on with the next document. A frame holds at most
// SetMaxDocument bytes (DefaultMaxDocument, 256 MiB): a larger document
// is reported once that much is read, and its rest is read without being
// kept. JSON frames go through a small recursive-descent parser
// (jsondec.go) that knows the document's fields:
// it keeps numbers as json.Number, names the failing field by its path
// (resources[3].meta.retry) and gives every resource and edge the position
// of its opening brace. YAML frames go through yaml.v3's node tree, whose
// lines are shifted to count in the whole stream. A graph.yaml's exported
// resources ("@@name") and its collect list stay within the document, as
// upstream's do (yamlcollect.go).
//
// # Checking
//
// Document.Validate gives every resource an integer id, its index, drops
// identical duplicates, and checks kinds, names, metaparameters and, for
// kinds with a registered KindSchema, parameter values against their mcl
// types (mcltype.go). Resources in canonical order need no map: a
// duplicate is the resource before; otherwise, and for an edge whose ends
// its producer did not give (Document.EdgeEnds, checked against the
// edge), a refMap (maps keyed by kind, then name) finds them. Edges are
// resolved to id pairs; pairs in strictly increasing order have no
// repeats, and otherwise repeats are found by bucketing the pairs by
// source and stamping targets, without hashing. Kahn's algorithm tells whether there is a cycle;
// only then does Index.Cycles run Tarjan's algorithm and report, for every
// strongly connected component, the shortest cycle through its smallest
// resource, in order.
//
// # Merging
//
// Merge unions validated inputs on their ids, then applies the
// incremental-Puppet hand-over (see Merge) on ids too: the mcl noop
// puppet_<X> is renamed <X>, the whits of class mgmt_<X> map onto it, edges
// are redirected and the edge between the whits dropped. The result is
// deduplicated and checked for cycles the same way as Validate does.
//
// # Writing
//
// Encode sorts resources by (kind, name) and edges by (from, to, send,
// recv), and writes map keys sorted, so that identical graphs give identical
// bytes in every format.
package graph
