package mgmtapply

import (
	"fmt"
	"io"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/internal/refdoc"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// listKinds prints the kind reference (docs/reference/kinds.md, from the
// same data): one line per kind, or the whole entry of each kind named.
func listKinds(list bool, names []string, stdout, stderr io.Writer) int {
	if !list {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (KIND arguments go with --list-kinds)\nrun '%s --help' for usage\n", name, names[0], name)
		return cli.ExitUsage
	}
	docs, err := refdoc.Embedded()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return cli.ExitFail
	}
	kinds, err := refdoc.Kinds(docs)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return cli.ExitFail
	}
	if len(names) == 0 {
		refdoc.KindsText(stdout, kinds)
		return cli.ExitOK
	}
	by := map[string]*refdoc.Kind{}
	var known []string
	for _, k := range kinds {
		by[k.Name] = k
		known = append(known, k.Name)
	}
	for i, n := range names {
		k, ok := by[n]
		if !ok {
			fmt.Fprintf(stderr, "%s: %s (--list-kinds lists them)\n", name, graph.UnknownKind(n, known))
			return cli.ExitFail
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		refdoc.KindText(stdout, k)
	}
	return cli.ExitOK
}
