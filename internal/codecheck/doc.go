// Package codecheck holds tests that read the module's own source and
// check rules no compiler does: a doc comment names the declaration it
// documents, each stage of the mcl compiler imports only the stages
// before it (pkg/lang/doc.go), and a test passes what it must choose as
// configuration instead of assigning a package variable. It has no code
// of its own.
package codecheck
