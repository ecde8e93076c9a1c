// Package graph is the graph document of wire format v1: its types, decoding
// (JSON lines and upstream graph.yaml), canonical encoding (JSON, YAML,
// Graphviz dot), validation with positioned errors, DAG algorithms, the diff
// of two graphs, the merge rules of graph-merge, and the registry of
// per-kind parameter schemas that pkg/resources fills and pkg/lang and
// pkg/puppet read. It does no I/O beyond the readers and writers it is given
// and imports no other package of the project.
package graph
