// Package mclcompile implements the mcl-compile tool: compile an mcl
// program into a stream of resource graph documents (JSON lines on stdout).
//
// The collect statement takes exported resources from every host of the
// world, or with --collect-from only from the hosts listed; a resource
// ignored for that, or refused by the collect rules of its kind, is logged
// on stderr with its exporter and key and left out of the graph (see the
// package doc of pkg/lang/funcs/world).
//
// Without --once, SIGHUP reads and checks the program again: a program that
// checks replaces the running one, one that does not is reported and the
// running one stays (see server).
//
// The default scope holds $hostname (the host name the program sees:
// --hostname, or the system's); --var name=value (or MGMT_VAR, see
// envVars) adds or overrides a str variable of that scope. The conformance
// corpus expects $purpleidea = "hello world!", which its runners pass as
// MGMT_VAR.
package mclcompile

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/mgmtpipe/mgmt/internal/bounded"
	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/internal/refdoc"
	"github.com/mgmtpipe/mgmt/internal/statedir"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/all"     // the core function modules
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/library" // the rest of the library
	worldfuncs "github.com/mgmtpipe/mgmt/pkg/lang/funcs/world"
	"github.com/mgmtpipe/mgmt/pkg/lang/parser"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all" // resource parameter schemas
	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

const name = "mcl-compile"

type flags struct {
	cli.VersionFlag
	Path string `arg:"" optional:"" help:"The program: a .mcl file, a module directory, or - for stdin (required unless --list-functions)."`
	Once bool   `help:"Write the first complete graph and exit." xor:"once"`
	// KeepRunning is for a service, whose reload (SIGHUP) reads the
	// program again.
	KeepRunning bool              `name:"keep-running" help:"Keep running once every stream has ended, until stopped, so that SIGHUP can read the program again (for a service)." xor:"once"`
	Check       bool              `help:"Stop after checking the program (syntax, scopes, types, and the kind of every resource statement, even in a branch not taken); write nothing."`
	PrintAST    bool              `name:"print-ast" help:"Print the parsed program back as canonical mcl, with its comments, and exit."`
	Var         map[string]string `help:"Set a str variable of the default scope (name=value); repeatable. Without it, $MGMT_VAR sets variables, separated by commas: a comma followed by NAME= starts the next one (a=1,b=x,y sets a to 1 and b to x,y)." mapsep:"none" env:"-"`
	Prefix      string            `help:"State directory (module cache, value store, local.* state, the private world); default ${default_prefix}." type:"path"`
	Hostname    string            `help:"Host name the program sees (default: the system's)."`
	Download    bool              `help:"Fetch missing remote (git) modules into the cache under --prefix."`
	Graph       string            `default:"main" help:"Name of the graph in the documents."`
	Seeds       string            `help:"Comma separated etcd client URLs of the world (for the world functions and collect); without them, the private world under --prefix." placeholder:"URLS"`
	// CollectFrom is the collecting host's allow-list of exporters.
	CollectFrom string `name:"collect-from" help:"Comma separated hosts whose exported resources collect takes; the others are ignored (logged). Default: every host of the world." placeholder:"HOSTS"`
	cli.TLSFlags
	cli.LogFlags

	// ListFunctions prints the data of docs/reference/functions.md.
	ListFunctions bool `name:"list-functions" help:"Print every function a program can call (signature, meaning, example) and exit."`
}

func init() {
	// The hidden builtin behind the collect statement.
	funcs.RegisterFunc(worldfuncs.CollectBuiltin)
}

// Run runs mcl-compile with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, description, &f, args, stdout, stderr); done {
		return code
	}
	if len(f.Var) == 0 {
		vars, err := envVars(os.Getenv("MGMT_VAR"))
		if err != nil {
			fmt.Fprintf(stderr, "%s: MGMT_VAR: %v\n", name, err)
			return cli.ExitUsage
		}
		f.Var = vars
	}
	if f.ListFunctions {
		refdoc.FunctionsText(stdout, refdoc.Functions())
		return cli.ExitOK
	}
	if f.Path == "" {
		fmt.Fprintf(stderr, "%s: expected \"<path>\"\nrun '%s --help' for usage\n", name, name)
		return cli.ExitUsage
	}
	lg := cli.NewLogger(name, stderr, f.LogFlags)
	var src []byte
	if f.Path == "-" {
		b, err := bounded.ReadAll(stdin, "-")
		if err != nil {
			lg.Errorf("reading stdin: %v", err)
			return cli.ExitFail
		}
		src = b
	}
	if f.PrintAST {
		return printAST(f.Path, src, stdout, lg)
	}
	host := f.Hostname
	if host == "" {
		host, _ = os.Hostname()
	}
	seeds := cli.List(f.Seeds)
	var collectFrom []string // nil: every host
	if f.CollectFrom != "" {
		collectFrom = append([]string{}, cli.List(f.CollectFrom)...)
	}
	// Without --prefix, the user's default state directory: it is made
	// (mode 0700) only when a function or the world needs it. A user with
	// no default (no HOME) runs without one.
	if f.Prefix == "" {
		f.Prefix, _ = statedir.Default()
	}
	// The world is lazy: nothing is dialled until a function needs it.
	var wld worldapi.Handle
	if len(seeds) > 0 || f.Prefix != "" {
		w, err := world.Open(world.OpenConfig{Seeds: seeds, Hostname: host, Prefix: f.Prefix,
			TLS: world.NewTLSFiles(f.TLSCert, f.TLSKey, f.TLSCA), Logf: lg.Warnf})
		if err != nil {
			lg.Errorf("world: %v", err)
			return cli.ExitFail
		}
		defer w.Close()
		wld = w
	}
	// Log lines quote names and values from the program's inputs and from
	// other hosts (collected resources): none reaches stderr raw, nor
	// starts a line of its own.
	logf := func(format string, a ...any) { lg.Info(graph.Printable(fmt.Sprintf(format, a...))) }
	opts := sem.Options{Vars: f.Var, Prefix: f.Prefix, Hostname: host, Logf: logf,
		Download: f.Download, World: wld, CollectFrom: collectFrom}
	prog, err := sem.Check(f.Path, src, opts)
	if err != nil {
		report(lg, stderr, err)
		return cli.ExitFail
	}
	if f.Check {
		// Stricter than a run: a statement of an unknown kind is an
		// error even in a branch not taken.
		if err := prog.KindErrors(); err != nil {
			report(lg, stderr, err)
			return cli.ExitFail
		}
		return cli.ExitOK
	}
	source := name + " " + f.Path
	emit := func(doc *graph.Document) error {
		doc.Graph, doc.Source = f.Graph, source
		return graph.Encode(stdout, doc, graph.JSON)
	}
	if f.Once {
		err = sem.NewEngine(prog).Run(ctx, true, emit)
	} else {
		s := &server{emit: emit, lg: lg, stderr: stderr, keep: f.KeepRunning, check: func() (*sem.Program, error) {
			if f.Path == "-" {
				return nil, errStdin
			}
			return sem.Check(f.Path, nil, opts)
		}}
		err = s.serve(ctx, prog)
	}
	if err != nil {
		if _, ok := graph.AsList(err); ok {
			graph.Encode(stdout, &graph.Document{Mgmt: graph.Version, Graph: f.Graph, Source: source, Error: graph.ErrorDoc(err)}, graph.JSON)
		}
		report(lg, stderr, err)
		return cli.ExitFail
	}
	return cli.ExitOK
}

// report prints a compile error (see cli.Logger.Fail), one line per
// error of a list, with the source line and a caret under the column of
// the first error when stderr is a terminal.
func report(lg *cli.Logger, stderr io.Writer, err error) {
	lg.Fail(err)
	l, ok := graph.AsList(err)
	if !ok || len(l) == 0 {
		return
	}
	pos, ok := graph.ParsePosition(l[0].Pos)
	fd, isFile := stderr.(*os.File)
	if !ok || !isFile || !isatty.IsTerminal(fd.Fd()) || pos.File == "" {
		return
	}
	data, rerr := os.ReadFile(pos.File)
	if rerr != nil {
		return
	}
	lines := strings.Split(string(data), "\n")
	if pos.Line > len(lines) {
		return
	}
	line := lines[pos.Line-1]
	pad := []byte{}
	for i := 0; i < pos.Col-1 && i < len(line); i++ {
		if line[i] == '\t' {
			pad = append(pad, '\t')
		} else {
			pad = append(pad, ' ')
		}
	}
	fmt.Fprintf(stderr, "\n%s\n%s^\n", line, pad)
}

func printAST(path string, src []byte, stdout io.Writer, lg *cli.Logger) int {
	file := path
	if path != "-" {
		st, err := os.Stat(path)
		if err == nil && st.IsDir() {
			if file, err = sem.ModuleMain(path); err != nil {
				lg.Fail(err)
				return cli.ExitFail
			}
		}
		b, err := bounded.ReadFile(file)
		if err != nil {
			lg.Fail(err)
			return cli.ExitFail
		}
		src = b
	}
	prog, err := parser.Parse(file, string(src))
	if err != nil {
		lg.Fail(err)
		return cli.ExitFail
	}
	io.WriteString(stdout, ast.Print(prog))
	return cli.ExitOK
}

// envVars parses MGMT_VAR: name=value items separated by commas, where a
// comma starts a new item only when NAME= follows it, so that a value may
// hold commas ("a=1,b=x,y" is a=1 and b=x,y).
func envVars(s string) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	var items []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ',' && startsItem(s[i+1:]) {
			items = append(items, s[start:i])
			start = i + 1
		}
	}
	items = append(items, s[start:])
	vars := map[string]string{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not name=value", it)
		}
		if _, dup := vars[k]; dup {
			return nil, fmt.Errorf("variable %s set twice", k)
		}
		vars[k] = v
	}
	return vars, nil
}

// startsItem reports whether s begins with an identifier and "=".
func startsItem(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=' && i > 0:
			return true
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return false
}
