// Package docs holds the project's documentation (Markdown files beside
// this one). Its Go files only regenerate and check the generated part,
// docs/reference/: run go generate ./docs after adding or changing a
// resource kind or an mcl function.
//
// A kind is documented by the doc comments of its Go type and of its
// parameter fields (and of the fields of the struct it sends); the type's
// comment carries a paragraph starting "Watching:" and, when the kind
// takes part in automatic edges, one starting "Automatic edges:". A
// function is documented at its registration (funcs.Doc, and funcs.Shape
// for a polymorphic one). See internal/refdoc.
package docs

//go:generate go run ../internal/refdoc/gen -root ..
