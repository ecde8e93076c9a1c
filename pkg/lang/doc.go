// Package lang is the home of mcl, the language of mcl-compile. The
// compiler is split in packages, each importing only the ones listed
// before it, pkg/graph, pkg/world/worldapi (the type of the world the
// functions read, funcs.Env.World) and internal/bounded (how sources are
// read: whole, up to a size):
//
//	types    type terms, the type syntax, union-find unification
//	ast      the syntax tree and its printer (canonical mcl source)
//	parser   lexer (newlines are tokens), recursive-descent parser, string
//	         interpolation; errors "FILE:LINE:COL: syntax error: ..."
//	values   runtime values
//	funcs    the built-in function registry and API (see its doc.go);
//	         funcs/all the core modules, funcs/library the rest (the
//	         modules may also import what they read: the file watcher,
//	         the state directory, fwupd's client, pkg/world)
//	sem      scope resolution, type checking with deferred constraints, the
//	         typed IR, and the reactive engine that turns it into graph
//	         documents (pkg/graph)
//
// A program flows as: sem.Check(path) parses the main file and its imports
// (local files, module directories with metadata.yaml, git modules cached
// under the prefix), resolves names and types everything, then
// sem.NewEngine(prog).Run evaluates it, pass after pass, writing a graph
// document each time the streams (timers, watched files, commands, the
// world) change the output.
//
// Choices beyond the reference implementation: `else if`; precise error
// positions with "did you mean"; type conflicts naming both sides; a func
// statement's checked copy reused for equal concrete argument types;
// streaming calls that follow their arguments (history). The default scope
// holds $hostname; mcl-compile --var name=value overrides or adds str
// variables (the conformance corpus's $purpleidea comes that way).
package lang
