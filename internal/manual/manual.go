// Package manual renders the manual pages (roff, section 1) and the bash,
// zsh and fish completion of the five tools from their kong models, the same parsers
// that read their command lines (cli.Spec): a flag, its help, default and
// environment variable are written once, in the tool's flag struct.
// internal/manual/gen writes the files (go generate ./dist); a test in
// dist/ fails when one is out of date.
package manual

import (
	"bytes"
	"fmt"
	"io"
	"path"

	"github.com/alecthomas/kong"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/tool/graphmerge"
	"github.com/mgmtpipe/mgmt/pkg/tool/mclcompile"
	"github.com/mgmtpipe/mgmt/pkg/tool/mgmtapply"
	"github.com/mgmtpipe/mgmt/pkg/tool/mgmtcluster"
	"github.com/mgmtpipe/mgmt/pkg/tool/puppetgraph"
)

// Tools returns the command lines of the five tools.
func Tools() []cli.Spec {
	return []cli.Spec{mclcompile.Spec(), puppetgraph.Spec(), graphmerge.Spec(), mgmtapply.Spec(), mgmtcluster.Spec()}
}

// Manual pages and completion scripts, relative to the project root:
// CompletionDir/bash/TOOL, CompletionDir/zsh/_TOOL and
// CompletionDir/fish/TOOL.fish.
const (
	ManDir        = "dist/man"
	CompletionDir = "dist/completion"
)

// Files returns every generated file by its path relative to the project
// root.
func Files() (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, s := range Tools() {
		k, err := s.Parser(io.Discard, io.Discard)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.Name, err)
		}
		var man, bash, zsh, fish bytes.Buffer
		writeMan(&man, k.Model)
		writeBash(&bash, k.Model)
		writeZsh(&zsh, k.Model)
		writeFish(&fish, k.Model)
		files[path.Join(ManDir, s.Name+".1")] = man.Bytes()
		files[path.Join(CompletionDir, "bash", s.Name)] = bash.Bytes()
		files[path.Join(CompletionDir, "zsh", "_"+s.Name)] = zsh.Bytes()
		files[path.Join(CompletionDir, "fish", s.Name+".fish")] = fish.Bytes()
	}
	return files, nil
}

// visible returns the flags of n that --help shows.
func visible(n *kong.Node) []*kong.Flag {
	var out []*kong.Flag
	for _, f := range n.Flags {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// commands returns the visible subcommands of n.
func commands(n *kong.Node) []*kong.Node {
	var out []*kong.Node
	for _, c := range n.Children {
		if c.Type == kong.CommandNode && !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// takesPath reports whether flag f's value is a file or directory name.
func takesPath(f *kong.Flag) bool {
	switch f.Tag.Type {
	case "path", "existingfile", "existingdir", "file":
		return true
	}
	switch f.PlaceHolder {
	case "PATH", "FILE", "DIR":
		return true
	}
	return false
}
