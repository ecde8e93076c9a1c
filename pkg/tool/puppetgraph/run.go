// Package puppetgraph implements the puppet-graph tool: it turns a Puppet
// manifest (compiled by the installed Puppet or by the native engine), a
// compiled catalog, or the reference translator's YAML into graph
// documents on stdout. Translation messages go to stderr in the reference
// translator's style; --watch writes a new document whenever an input
// file changes (and every runinterval with --agent).
package puppetgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/puppet"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all" // parameter schemas of our kinds
)

const name = "puppet-graph"

type flags struct {
	cli.VersionFlag
	Input        string `arg:"" optional:"" help:"Input: a manifest (.pp), a catalog (.json), the reference's YAML (.yaml), 'agent', or '-' for a catalog on stdin."`
	Manifest     string `help:"Compile this Puppet manifest." placeholder:"FILE"`
	Code         string `help:"Compile this Puppet code." placeholder:"CODE"`
	Agent        bool   `help:"Translate this node's catalog from the configured Puppet server."`
	Catalog      string `help:"Translate a compiled catalog (JSON from puppet catalog compile, PuppetDB, ...; - for stdin)." placeholder:"FILE"`
	Mgmtgraph    string `help:"Read the YAML the reference translator (puppet mgmtgraph print) wrote." placeholder:"FILE"`
	PuppetConf   string `name:"puppet-conf" help:"Use this puppet.conf." placeholder:"FILE"`
	Engine       string `default:"auto" enum:"auto,native,puppet" help:"Compiler: native, puppet, or auto (Puppet when installed)."`
	Modulepath   string `help:"Colon-separated module directories." placeholder:"DIRS"`
	Facts        string `help:"JSON file of facts for the native engine (default: this machine's)." placeholder:"FILE"`
	Certname     string `help:"Node name to compile for (default: the fqdn)."`
	Environment  string `help:"Puppet environment to compile in (default: Puppet's configured one)." placeholder:"NAME"`
	Watch        bool   `help:"Keep running: write a new graph whenever an input file changes (and every runinterval with --agent)."`
	Conservative bool   `help:"Accepted for compatibility: every translation that cannot be exact falls back to pippet."`
	Stats        bool   `help:"Print the translation summary counts to stderr."`
	Output       string `short:"o" default:"json" enum:"json,yaml,dot" help:"Output format: json (graph documents), yaml or dot."`
	cli.LogFlags
}

// Run runs puppet-graph with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, description, &f, args, stdout, stderr); done {
		return code
	}
	if err := f.resolveInput(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\nrun '%s --help' for usage\n", name, err, name)
		return cli.ExitUsage
	}
	lg := cli.NewLogger(name, stderr, f.LogFlags)
	t, err := newTool(&f, stdin, stdout, lg)
	if err != nil {
		lg.Fail(err)
		return cli.ExitFail
	}
	if f.Watch {
		return t.watch(ctx)
	}
	if _, err := t.once(ctx); err != nil {
		if sig, ok := cli.Signaled(ctx); ok {
			lg.Errorf("stopped before the graph was written: %v", err)
			return cli.ExitSignal(sig)
		}
		lg.Fail(err)
		return cli.ExitFail
	}
	return cli.ExitOK
}

// resolveInput maps the positional input to a flag and checks that there
// is exactly one input.
func (f *flags) resolveInput() error {
	switch in := f.Input; {
	case in == "":
	case in == "agent":
		f.Agent = true
	case in == "-" || strings.HasSuffix(in, ".json"):
		f.Catalog = in
	case strings.HasSuffix(in, ".yaml") || strings.HasSuffix(in, ".yml"):
		f.Mgmtgraph = in
	case strings.HasSuffix(in, ".pp"):
		f.Manifest = in
	default:
		if st, err := os.Stat(in); err == nil && !st.IsDir() {
			f.Manifest = in
		} else {
			f.Code = in
		}
	}
	n := 0
	for _, set := range []bool{f.Manifest != "", f.Code != "", f.Agent, f.Catalog != "", f.Mgmtgraph != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("want exactly one input (--manifest, --code, --agent, --catalog, --mgmtgraph or a positional INPUT), got %d", n)
	}
	if f.Watch && f.Catalog == "-" {
		return fmt.Errorf("--watch cannot watch stdin")
	}
	return nil
}

type tool struct {
	f      *flags
	stdin  io.Reader
	stdout io.Writer
	lg     *cli.Logger
	facts  map[string]any
	mp     []string
	seq    int64
	last   []byte // last document written, without seq
}

func newTool(f *flags, stdin io.Reader, stdout io.Writer, lg *cli.Logger) (*tool, error) {
	t := &tool{f: f, stdin: stdin, stdout: stdout, lg: lg}
	if f.Facts != "" {
		b, err := os.ReadFile(f.Facts)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &t.facts); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Facts, err)
		}
		if puppet.ResolveEngine(f.Engine) == puppet.EnginePuppet && (f.Manifest != "" || f.Code != "") {
			return nil, fmt.Errorf("--facts needs the native engine (--engine native)")
		}
	}
	if f.Modulepath != "" {
		t.mp = filepath.SplitList(f.Modulepath)
	}
	return t, nil
}

// logLine logs a message of the translator or the compiler, which write
// them in Puppet's style: its "Warning: " (or "Info: ", "Notice: ", ...)
// becomes the level of the record.
func (t *tool) logLine(line string) {
	level, msg := puppetLevel(line)
	t.lg.Log(context.Background(), level, msg)
}

// puppetLevel returns the level a Puppet-style message names, and the
// message without the name.
func puppetLevel(line string) (slog.Level, string) {
	word, msg, ok := strings.Cut(line, ": ")
	if !ok {
		return slog.LevelInfo, line
	}
	switch word {
	case "Debug":
		return slog.LevelDebug, msg
	case "Info":
		return slog.LevelInfo, msg
	case "Notice":
		return cli.LevelNotice, msg
	case "Warning":
		return slog.LevelWarn, msg
	case "Err", "Error", "Alert", "Emerg", "Crit":
		return slog.LevelError, msg
	}
	return slog.LevelInfo, line
}

// source names the input in the document's source field.
func (t *tool) source() string {
	f := t.f
	switch {
	case f.Manifest != "":
		return name + " " + f.Manifest
	case f.Code != "":
		return name + " --code"
	case f.Agent:
		return name + " --agent"
	case f.Catalog != "":
		return name + " --catalog " + f.Catalog
	}
	return name + " --mgmtgraph " + f.Mgmtgraph
}

// once produces one graph and writes it; it returns the files read.
func (t *tool) once(ctx context.Context) ([]string, error) {
	doc, made, read, err := t.build(ctx)
	if err != nil {
		return read, err
	}
	return read, t.writeChecked(doc, made)
}

// checked returns the graph that build makes once checkDocument accepts
// it, and the files read.
func (t *tool) checked(ctx context.Context) (*graph.Document, []string, error) {
	doc, made, read, err := t.build(ctx)
	if err == nil {
		err = checkDocument(doc, made)
	}
	return doc, read, err
}

func (t *tool) build(ctx context.Context) (*graph.Document, map[*graph.Resource]engine.Res, []string, error) {
	f := t.f
	made := map[*graph.Resource]engine.Res{}
	check := func(r *graph.Resource) error { return checkResource(r, made) }
	opts := puppet.Options{Conservative: f.Conservative, Log: t.logLine, Check: check}
	// the module path of a native compile, else Puppet's for the setup
	// pippet resources get, asked only when a translation needs it
	var compiledPath []string
	opts.ModulePath = func() ([]string, error) {
		if compiledPath != nil {
			return compiledPath, nil
		}
		return puppet.LocalModulePath(ctx, opts.Puppet)
	}
	if f.PuppetConf != "" {
		opts.RunInterval = puppet.ConfRunInterval(f.PuppetConf)
	}
	if f.Mgmtgraph != "" {
		r, err := os.Open(f.Mgmtgraph)
		if err != nil {
			return nil, nil, nil, err
		}
		defer r.Close()
		doc, err := puppet.ImportMgmtgraph(r, f.Mgmtgraph, opts)
		return doc, made, []string{f.Mgmtgraph}, err
	}
	var cat *catalog.Catalog
	var read []string
	if f.Catalog != "" {
		c, err := t.readCatalog()
		if f.Catalog != "-" {
			read = []string{f.Catalog}
		}
		if err != nil {
			return nil, nil, read, err
		}
		cat = c
		opts.Puppet = puppet.NewPuppetEnv(t.mp, f.Environment, f.PuppetConf)
	} else {
		res, err := puppet.Compile(ctx, puppet.Source{
			Manifest: f.Manifest, Code: f.Code, Agent: f.Agent, Engine: f.Engine,
			Certname: f.Certname, PuppetConf: f.PuppetConf, ModulePath: t.mp,
			Environment: f.Environment, Facts: t.facts, Log: t.logLine,
		})
		if err != nil {
			return nil, nil, nil, err
		}
		cat, read, opts.Puppet, compiledPath = res.Catalog, res.Read, res.Env, res.ModulePath
	}
	made = make(map[*graph.Resource]engine.Res, len(cat.Resources))
	doc, st, err := puppet.Translate(cat, opts)
	if err != nil {
		return nil, nil, read, err
	}
	if f.Stats {
		t.lg.Info(strings.TrimSuffix(st.Summary(), "\n"))
	}
	return doc, made, read, nil
}

// checkResource validates one translated resource the way mgmt-apply
// will: checked alone, decoded into its kind, metaparameters and
// parameters validated. The resource made is kept in made, for
// checkDocument.
func checkResource(r *graph.Resource, made map[*graph.Resource]engine.Res) error {
	if err := graph.CheckResource(r); err != nil {
		return firstError(err)
	}
	res, err := engine.NewRes(r)
	if err != nil {
		return firstError(err)
	}
	made[r] = res
	return nil
}

// firstError returns the message of the first error of an ErrorList,
// without its position (the translation names the resource), or err.
func firstError(err error) error {
	if l, ok := graph.AsList(err); ok && len(l) > 0 {
		return errors.New(l[0].Msg)
	}
	return err
}

// checkDocument prepares the whole graph the way mgmt-apply will (its
// resources, edges and cycles), so that puppet-graph never writes a graph
// mgmt-apply refuses. The resources checkResource made are used, not made
// again. Automatic edges and groups are left to mgmt-apply: they never
// refuse a graph (an automatic edge that would close a cycle is left out),
// and in a large catalog they were most of the check's time. The check
// reads the resources and changes none of them (writeChecked encodes
// them meanwhile): it keeps their parameters (no Consume).
func checkDocument(doc *graph.Document, made map[*graph.Resource]engine.Res) error {
	opts := engine.BuildOptions{Made: made, NoDigests: true, NoAutoEdges: true, NoAutoGroups: true}
	if _, err := engine.Build(doc, opts); err != nil {
		return fmt.Errorf("the translated graph would be refused: %v", err)
	}
	return nil
}

// pauseGC stops the garbage collector until the function it returns is
// called, unless GOGC is set in the environment. The check and the
// encoding of a graph allocate its vertices and its encoding (about 1.3
// KB per resource), which stay live until the graph is written, and free
// little: a collection then, with both cores busy, costs them the marking
// of everything live (about 0.3 s of CPU time at 100,000 resources) to
// reclaim the translation's garbage, which the process is about to let go
// of anyway. Without it the peak heap is the heap at the start plus what
// the two allocate (about 130 MB at 100,000 resources): in
// bench/scale.sh's manifests, the peak that runs which did not happen to
// collect then already reached (about 590 MiB of RSS at 100,000
// resources, against about 470 for those which did).
func pauseGC() (resume func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

func (t *tool) readCatalog() (*catalog.Catalog, error) {
	if t.f.Catalog == "-" {
		return catalog.Decode(t.stdin)
	}
	r, err := os.Open(t.f.Catalog)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c, err := catalog.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", t.f.Catalog, err)
	}
	return c, nil
}

// write writes doc with the next sequence number.
func (t *tool) write(doc *graph.Document) error {
	t.seq++
	doc.Seq = t.seq
	doc.Source = t.source()
	format, err := graph.ParseFormat(t.f.Output)
	if err != nil {
		return err
	}
	return graph.Encode(t.stdout, doc, format)
}

// writeChecked writes doc with the next sequence number once
// checkDocument accepts it, and nothing when it refuses it. The two take
// about the same time on a large graph, so the document is encoded on a
// second core while it is checked, into memory. The encoder gets its own
// copy of the lists of resources and edges, which the check compacts in
// place when they hold duplicates; then the checked document is encoded
// again, so that the bytes written are always those of the checked one.
//
// The collector pauses meanwhile (see pauseGC).
func (t *tool) writeChecked(doc *graph.Document, made map[*graph.Resource]engine.Res) error {
	format, err := graph.ParseFormat(t.f.Output)
	if err != nil {
		return err
	}
	defer pauseGC()()
	doc.Seq, doc.Source = t.seq+1, t.source()
	enc := *doc
	enc.Resources, enc.Edges = slices.Clone(doc.Resources), slices.Clone(doc.Edges)
	var buf []byte
	var encErr error
	var wg sync.WaitGroup
	wg.Go(func() { buf, encErr = graph.Marshal(&enc, format) })
	err = checkDocument(doc, made)
	wg.Wait()
	if err != nil {
		return err
	}
	t.seq++
	if len(doc.Resources) != len(enc.Resources) || len(doc.Edges) != len(enc.Edges) {
		return graph.Encode(t.stdout, doc, format)
	}
	if encErr != nil {
		return encErr
	}
	_, err = t.stdout.Write(buf)
	return err
}
