// Command gen writes the manual pages and shell completion of the tools
// (see package manual) under the project root given by -root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mgmtpipe/mgmt/internal/manual"
)

func main() {
	root := flag.String("root", ".", "the project's root directory")
	flag.Parse()
	files, err := manual.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, b := range files {
		p := filepath.Join(*root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
