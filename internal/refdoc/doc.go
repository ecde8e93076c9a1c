// Package refdoc builds the reference of the mcl functions and resource
// kinds: docs/reference/functions.md and kinds.md (written by go generate
// ./docs), and the text of mcl-compile --list-functions and mgmt-apply
// --list-kinds, from the same data.
//
// # Where each fact lives
//
// Every fact has one home, where the code that makes it true is:
//
//   - a function's signature, its module and whether it streams: its
//     registration in pkg/lang/funcs (the registry); its one-line meaning
//     and an example call: funcs.Doc at that registration (funcs.Shape
//     gives the signature shown for a polymorphic function). A Go doc
//     comment cannot serve here, as functions are registered as closures,
//     often in loops, and the compiler needs the text at run time.
//   - a kind's parameters, their types and defaults, what it sends,
//     whether it receives, groups, reverses or may be collected: the
//     registries of pkg/engine and pkg/graph (struct tags, traits and the
//     kind's Default).
//   - a kind's description, each parameter's meaning, how it watches and
//     what automatic edges it makes: the Go doc comments of its type, of
//     its parameter fields (a comment on a group of fields that names a
//     field documents it too), of the fields of the struct it sends, and
//     of its Watch and AutoEdges methods. These are the comments a Go
//     reader of the kind already reads and keeps up to date; struct tags
//     would be a second copy. ParseKinds reads them from the source with
//     go/parser, and the generator stores them in kinddoc.json, which the
//     tools embed (a binary has no source).
//
// Problems lists what is missing; the test in docs/ fails on any, and
// when a generated file differs from what the registries and comments give
// now, so a new kind or function cannot land undocumented or without its
// reference.
package refdoc
