// Package generate renders the generated reference files of the project
// from the registries the tools fill (every mcl function of mcl-compile,
// every resource kind of mgmt-apply) and the doc comments in the source.
// internal/refdoc/gen writes them (go generate ./docs); the test in docs/
// fails when one is out of date.
package generate

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/mgmtpipe/mgmt/internal/refdoc"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/all"     // the functions of mcl-compile
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/library" // (the same imports as it)
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all"      // the kinds of mgmt-apply
)

// The generated files, relative to the project root.
var (
	KindDocFile   = filepath.Join("internal", "refdoc", "kinddoc.json")
	KindsFile     = filepath.Join("docs", "reference", "kinds.md")
	FunctionsFile = filepath.Join("docs", "reference", "functions.md")
)

// Files returns the content of every generated file, by path relative to
// root (the project's source tree), and what the reference lacks (see
// refdoc.Problems).
func Files(root string) (map[string][]byte, []string, error) {
	docs, err := refdoc.ParseKinds(root)
	if err != nil {
		return nil, nil, err
	}
	js, err := json.MarshalIndent(docs, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	kinds, err := refdoc.Kinds(docs)
	if err != nil {
		return nil, nil, err
	}
	fns := refdoc.Functions()
	var k, f bytes.Buffer
	refdoc.KindsMarkdown(&k, kinds)
	refdoc.FunctionsMarkdown(&f, fns)
	return map[string][]byte{
		KindDocFile:   append(js, '\n'),
		KindsFile:     k.Bytes(),
		FunctionsFile: f.Bytes(),
	}, refdoc.Problems(kinds, fns), nil
}
