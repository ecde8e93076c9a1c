// Command gen writes the generated reference of the project: the kind
// docs the tools embed (internal/refdoc/kinddoc.json) and
// docs/reference/kinds.md and functions.md. Run it as go generate ./docs;
// -root names the project's source tree. It lists, and fails on, every
// kind or function that lacks documentation, after writing the files.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mgmtpipe/mgmt/internal/refdoc/generate"
)

func main() {
	root := flag.String("root", ".", "the project's source tree")
	flag.Parse()
	files, problems, err := generate.Files(*root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(*root, n), files[n], 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(1)
		}
	}
	for _, p := range problems {
		fmt.Fprintf(os.Stderr, "gen: %s\n", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}
