// Package mgmtapply implements the mgmt-apply tool: it reads graph
// documents (stdin or --file), prepares each one with pkg/engine (decode,
// validate, autoedges, autogroup) and swaps it into the running engine, or
// with --print-graph writes the prepared graph to stdout instead.
//
// The input is read by one goroutine; the main goroutine waits for the
// first of: a signal, the converged timeout, --max-runtime, or the end of
// an input that never gave a valid graph.
//
// Choices where the contract is silent:
//   - --converged-timeout exits 0 when every resource is fine, and 1 when
//     some resource failed for good (its retries exhausted), so that cron
//     jobs notice;
//   - --print-graph prints every resource, grouped ones included (a group
//     is a run-time vertex, not a change of the graph), with the automatic
//     edges added; an invalid document becomes an error document, and the
//     exit code is 1 when the last document was not a valid graph;
//   - --tmp-prefix removes its temporary state directory at exit; given
//     with --prefix (or MGMT_PREFIX) it is a usage error, as upstream has
//     it;
//   - an exit resource's CheckApply stops the tool with its code, after
//     the engine has shut down (every resource stopped and cleaned up);
//   - errors about the graph read "POS: runtime error: kind[name]: ...",
//     the stage word of the compilers' runtime stage.
package mgmtapply

import (
	"context"
	"fmt"
	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/internal/statedir"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all" // every resource kind
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
	"github.com/mgmtpipe/mgmt/pkg/world/worldpipe"
)

const name = "mgmt-apply"

type flags struct {
	cli.VersionFlag

	File             string  `help:"Read graph documents from this file (JSON lines or graph.yaml) instead of stdin ('-')." default:"-" placeholder:"PATH"`
	ConvergedTimeout float64 `help:"Exit once everything has been converged this many seconds: 0, or 1 if a resource failed (-1 disables; 0 without --seeds is a one-time run, which checks each file once and watches none)." default:"-1" placeholder:"SECONDS"`
	MaxRuntime       float64 `help:"Exit after this many seconds (0 means no limit)." default:"0" placeholder:"SECONDS"`
	Noop             bool    `help:"Check every resource but change nothing; report what would change, with a diff of text content."`
	// Puppet's convention, for scripts and CI.
	DetailedExitcodes bool   `name:"detailed-exitcodes" help:"At the end of a run (--converged-timeout, --max-runtime): exit 0 when nothing changed, 2 when something changed (with --noop: would change), 4 when some resource failed, 6 for both."`
	DiffMax           int    `name:"diff-max" help:"Show at most N lines of the diff of each text change (in noop runs, and with --debug; each line at most 512 bytes); 0 shows none." default:"200" placeholder:"N"`
	Events            string `help:"Write one JSON object per CheckApply result to FILE ('-': stdout), and a summary at exit." placeholder:"FILE"`
	Sema              int    `help:"Run at most N CheckApply calls at once across the graph (0 means no limit)." default:"0" placeholder:"N"`
	Prefix            string `help:"State directory (vardirs, saved reversals, the private world); default ${default_prefix}; not with --tmp-prefix." placeholder:"DIR" xor:"prefix"`
	TmpPrefix         bool   `help:"Use a fresh temporary state directory, removed at exit." xor:"prefix"`
	AllowTmpPrefix    bool   `help:"Fall back to a temporary state directory when --prefix cannot be used."`
	Seeds             string `help:"Comma separated etcd client URLs of the world." placeholder:"URLS"`
	cli.TLSFlags
	Hostname         string `help:"This host's name in the world (default: the system hostname)."`
	WorldClient      string `name:"world-client" help:"The mgmt-cluster executable whose world-client command holds the connection to the world (default: the one beside mgmt-apply, else the one in PATH)." placeholder:"PATH"`
	Prometheus       bool   `help:"Serve Prometheus metrics: the engine's, and etcd's while this tool runs the private member of its world."`
	PrometheusListen string `help:"Address of the Prometheus endpoint." default:"127.0.0.1:9233" placeholder:"ADDR"`
	Pprof            string `help:"Serve Go's profiling endpoints (/debug/pprof/) on this loopback address, to measure the tool itself." placeholder:"ADDR"`
	Graphviz         string `help:"Write each prepared graph to this file in Graphviz dot format." placeholder:"FILE"`
	PrintGraph       bool   `help:"Prepare each graph exactly as it would run (validate, autoedges, autogroup), write it to stdout as JSON lines and apply nothing."`
	cli.LogFlags
	cli.DocumentFlags

	// The safety net under the watches: a missed event costs at most this.
	Recheck time.Duration `help:"Check every resource once per DURATION, spread over it, one at a time, and repair drift no watch reported (0 disables)." default:"30m" placeholder:"DURATION"`

	// The reference of the kinds, from the data of docs/reference/kinds.md.
	ListKinds bool     `name:"list-kinds" help:"Print the resource kinds with a line each, or with KIND arguments their parameters, and exit."`
	Kinds     []string `arg:"" optional:"" name:"kind" help:"With --list-kinds: the kinds to describe."`
}

// Run runs mgmt-apply with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr, false)
}

// RunToExit is Run for a program that exits as soon as it returns, as the
// mgmt-apply command does: the engine then lets go of the subscriptions
// of its resources' watches instead of stopping each (see
// engine.Config.ExitAfterRun), which the exit ends, and the kernel's
// watches behind them are removed as the tool starts to stop
// (fswatch.Release). A program that goes on after it, or runs it again,
// calls Run.
func RunToExit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr, true)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, exiting bool) int {
	var f flags
	if _, code, done := cli.Parse(name, description, &f, args, stdout, stderr); done {
		return code
	}
	if f.ListKinds || len(f.Kinds) > 0 {
		return listKinds(f.ListKinds, f.Kinds, stdout, stderr)
	}
	if err := f.DocumentFlags.Check(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\nrun '%s --help' for usage\n", name, err, name)
		return cli.ExitUsage
	}
	if f.PrintGraph && f.Events != "" {
		fmt.Fprintf(stderr, "%s: --events cannot be used with --print-graph, which checks nothing\nrun '%s --help' for usage\n", name, name)
		return cli.ExitUsage
	}
	lg := cli.NewLogger(name, stderr, f.LogFlags)
	tuneGC()
	tuneProfiling(f.Pprof)
	in, inName, closeIn, err := openInput(f.File, stdin)
	if err != nil {
		lg.Errorf("%v", err)
		return cli.ExitFail
	}
	defer closeIn()
	if f.PrintGraph {
		// On a signal, the reader may stay blocked on its input: the
		// tool exits without waiting for it.
		done := make(chan int, 1)
		go func() { done <- printGraphs(f.NewDecoder(in, inName), inName, stdout, lg, f.Graphviz) }()
		select {
		case code := <-done:
			return code
		case <-ctx.Done():
			return stopped(ctx, nil, lg)
		}
	}
	return apply(ctx, &f, in, inName, stdout, stderr, lg, exiting)
}

func openInput(path string, stdin io.Reader) (io.Reader, string, func(), error) {
	if path == "" || path == "-" {
		return stdin, "-", func() {}, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	return fh, path, func() { fh.Close() }, nil
}

// printGraphs prepares every document and prints it (or an error document).
// It exits 1 when the last document was not a valid graph.
func printGraphs(dec *graph.Decoder, inName string, stdout io.Writer, lg *cli.Logger, dot string) int {
	ok, seen := false, false
	for {
		o, err := next(dec, engine.BuildOptions{})
		if err == io.EOF {
			break
		}
		if err != nil {
			lg.Errorf("reading %s: %v", inName, err)
			return cli.ExitFail
		}
		seen = true
		warn(o.doc, lg)
		if o.g == nil {
			lg.Errorf("%s", o.msg)
			graph.Encode(stdout, o.errDoc, graph.JSON)
			ok = false
			continue
		}
		if err := graph.Encode(stdout, o.g.Document(), graph.JSON); err != nil {
			lg.Errorf("writing: %v", err)
			return cli.ExitFail
		}
		writeDot(dot, o.g, lg)
		ok = true
	}
	if !seen {
		lg.Errorf("no graph document in the input")
	}
	if !ok {
		return cli.ExitFail
	}
	return cli.ExitOK
}

// An outcome is what became of one document of the input: the graph to
// run, or the error document to pass on and the message that reports it.
type outcome struct {
	doc    *graph.Document // as decoded; nil when it could not be
	g      *engine.Graph   // the prepared graph, or nil
	errDoc *graph.Document // when g is nil: the error document to write
	msg    string          // when g is nil: the lines to log
}

// next decodes the next document of dec and prepares it with opts. It
// returns io.EOF at the end of the input and another error when the input
// cannot be read; a document that gives no graph is an outcome, reported
// here, the one place mgmt-apply words an error about its input: a
// decoding error as "POS: MSG", a refused graph as "POS: runtime error:
// MSG" (the stage mcl-compile gives resource validation), an error
// document from upstream as "error from upstream: POS: MSG" and passed on
// as it is.
func next(dec *graph.Decoder, opts engine.BuildOptions) (outcome, error) {
	doc, err := dec.Next()
	if err != nil && doc == nil {
		if _, ok := graph.AsList(err); !ok {
			return outcome{}, err // io.EOF, or a read error
		}
		return refused(nil, err), nil
	}
	if doc.IsError() {
		return outcome{doc: doc, errDoc: doc, msg: "error from upstream: " + doc.Error.Err().Error()}, nil
	}
	g, err := engine.Build(doc, opts)
	if err != nil {
		return refused(doc, graph.WithStage(err, graph.StageRuntime)), nil
	}
	return outcome{doc: doc, g: g}, nil
}

// warn logs what the decoder left out of doc (nil when it could not be
// decoded).
func warn(doc *graph.Document, lg *cli.Logger) {
	if doc == nil {
		return
	}
	for _, w := range doc.Warnings {
		lg.Warnf("%s", w)
	}
}

// refused returns the outcome of a document (nil when it could not be
// decoded) refused with err.
func refused(doc *graph.Document, err error) outcome {
	out := &graph.Document{Mgmt: graph.Version, Error: graph.ErrorDoc(err)}
	if doc != nil {
		out.Graph, out.Seq = doc.Graph, doc.Seq
	}
	return outcome{doc: doc, errDoc: out, msg: err.Error()}
}

func writeDot(path string, g *engine.Graph, lg *cli.Logger) {
	if path == "" {
		return
	}
	fh, err := os.Create(path)
	if err == nil {
		err = graph.Encode(fh, g.Document(), graph.Dot)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		lg.Errorf("graphviz: %v", err)
	}
}

// setupPrefix returns the state directory to use and a function removing
// it at exit when it is temporary.
func setupPrefix(f *flags, lg *cli.Logger) (string, func(), error) {
	tmp := func() (string, func(), error) {
		d, err := os.MkdirTemp("", "mgmt-prefix-")
		if err != nil {
			return "", nil, err
		}
		return d, func() { os.RemoveAll(d) }, nil
	}
	if f.TmpPrefix {
		return tmp()
	}
	// The default is not the flag's default, so that --prefix given with
	// --tmp-prefix is a usage error.
	prefix := f.Prefix
	var err error
	if prefix == "" {
		prefix, err = statedir.Default()
	}
	if err == nil {
		err = statedir.Prepare(prefix)
	}
	if err != nil {
		if !f.AllowTmpPrefix {
			return "", nil, fmt.Errorf("%v (use --tmp-prefix or --allow-tmp-prefix)", err)
		}
		lg.Infof("%v: using a temporary state directory", err)
		return tmp()
	}
	return prefix, func() {}, nil
}

type readResult struct {
	anyValid bool
	seq      int64 // of the last graph loaded
}

// apply runs the engine on the input until a signal, the converged
// timeout, the maximum run time, or an input that ends without a valid
// graph.
func apply(ctx context.Context, f *flags, in io.Reader, inName string, stdout, stderr io.Writer, lg *cli.Logger, exiting bool) int {
	prefix, cleanup, err := setupPrefix(f, lg)
	if err != nil {
		lg.Errorf("%v", err)
		return cli.ExitFail
	}
	defer cleanup()
	defer cli.Watchdog()()
	hostname := f.Hostname
	if hostname == "" {
		hostname, _ = os.Hostname()
	}
	wld, err := openWorld(ctx, f, hostname, prefix, stderr, lg)
	if err != nil {
		lg.Errorf("%v", err)
		return cli.ExitFail
	}
	var metrics *engine.Metrics
	if f.Prometheus {
		metrics = engine.NewMetrics()
		stop, err := serveMetrics(f.PrometheusListen, metrics, wld, lg)
		if err != nil {
			lg.Errorf("prometheus: %v", err)
			return cli.ExitFail
		}
		defer stop()
	}
	if f.Pprof != "" {
		stop, err := servePprof(f.Pprof, lg)
		if err != nil {
			lg.Errorf("pprof: %v", err)
			return cli.ExitFail
		}
		defer stop()
	}
	expCtx, expCancel := context.WithCancel(context.Background())
	exp := newExporter(expCtx, wld, lg, f.Noop)
	defer exp.close(expCancel)
	ct := time.Duration(-1)
	if f.ConvergedTimeout >= 0 {
		ct = time.Duration(f.ConvergedTimeout * float64(time.Second))
	}
	// With seeds, the converged timeout is the cluster's: every host must
	// have been converged that long.
	cluster := f.Seeds != "" && ct >= 0
	localCT := ct
	if cluster {
		localCT = -1
	}
	exitReq := make(chan int, 1) // the first exit code a resource asked for
	cfg := engine.Config{
		Program: name, Version: cli.BuildVersion(), Hostname: hostname, Prefix: prefix,
		Noop: f.Noop, Sema: f.Sema, Recheck: f.Recheck, ConvergedTimeout: localCT, Debug: f.Debug, ExitAfterRun: exiting,
		OneShot: localCT == 0, Log: lg.Logger, DiffLines: f.DiffMax, Metrics: metrics, World: wld,
		Exit: func(code int) {
			select {
			case exitReq <- code:
			default:
			}
		},
	}
	var events *eventLog
	if f.Events != "" {
		if events, err = openEvents(f.Events, stdout, lg, f.Noop); err != nil {
			lg.Errorf("%v", err)
			return cli.ExitFail
		}
		cfg.Results = events.add
	}
	eng := engine.New(cfg)
	var sum summaryCounts
	if events != nil {
		// Deferred first, so run last: once the engine has stopped.
		defer func() { events.close(sum) }()
	}
	stopEngine := runEngine(eng, lg)
	defer stopEngine()
	defer releaseWhenConverged(eng)()

	converged := eng.Converged()
	if cluster {
		ccCtx, ccCancel := context.WithCancel(context.Background())
		defer ccCancel()
		local := func() bool { st := eng.Status(); return st.Loaded && !st.Since.IsZero() }
		converged = worldapi.ClusterConverged(ccCtx, wld, local, ct, 50*time.Millisecond, func(format string, v ...any) {
			lg.Errorf("world: "+format, v...)
		})
	}
	readDone := make(chan readResult, 1)
	gate := &loadGate{}
	// Runs before the engine and the exporter stop: from then on the
	// reader touches neither.
	defer gate.close()
	// SIGHUP is handled from before the first read: a service manager may
	// reload as soon as the first graph makes the tool ready, and a SIGHUP
	// that came before the handler would end the tool. A reload waits for
	// the first read to end, so that it never loads the file's old
	// graphs after its new ones, and gives up when the tool stops.
	firstRead, stopping := make(chan struct{}), make(chan struct{})
	stopReload := reloadOnHangup(f.File, func(in *os.File) {
		select {
		case <-firstRead:
		case <-stopping:
			return
		}
		readGraphs(f.NewDecoder(in, in.Name()), in.Name(), gate, eng, exp, lg, f.Graphviz, make(chan readResult, 1))
	}, lg)
	defer stopReload()
	defer close(stopping) // before stopReload, which waits for a reload in progress
	go func() {
		defer close(firstRead)
		readGraphs(f.NewDecoder(in, inName), inName, gate, eng, exp, lg, f.Graphviz, readDone)
	}()
	code := waitEnd(ctx, f, eng, converged, readDone, exitReq, lg)
	if exiting {
		// What changes from now on is not acted on: the kernel's
		// watches go before the engine stops, their destruction in the
		// background rather than in the exit (fswatch.Release).
		if w := fswatch.DefaultMade(); w != nil {
			w.Release()
		}
	}
	sum = summarize(f, eng.Status(), code, lg)
	return code
}

// A loadGate lets the input reader load graphs into the engine and export
// them only until the tool starts to stop. The reader cannot always be
// joined (a read of a terminal or a pipe cannot be interrupted), so it is
// shut out instead: once close has returned, it never calls the engine or
// the world again, and it ends at its next document or at the end of its
// input.
type loadGate struct {
	mu     sync.Mutex
	closed bool
}

// do runs f unless the gate is closed, and reports whether it ran.
func (g *loadGate) do(f func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	f()
	return true
}

// close shuts the gate, waiting for a load in progress.
func (g *loadGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// runEngine runs eng (and the status line) until the returned function is
// called; that function returns once the engine has stopped.
func runEngine(eng *engine.Engine, lg *cli.Logger) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		eng.Run(ctx)
		close(done)
	}()
	stopStatus := statusLoop(lg, eng)
	return func() {
		stopStatus()
		cancel()
		<-done
	}
}

// waitEnd waits for the reason to stop and returns the exit code. The
// caller's deferred calls then stop the engine cleanly before the code is
// returned.
func waitEnd(ctx context.Context, f *flags, eng *engine.Engine, converged <-chan struct{}, readDone <-chan readResult, exitReq <-chan int, lg *cli.Logger) int {
	var maxRT <-chan time.Time
	if f.MaxRuntime > 0 {
		t := time.NewTimer(time.Duration(f.MaxRuntime * float64(time.Second)))
		defer t.Stop()
		maxRT = t.C
	}
	for {
		select {
		case <-ctx.Done():
			if code := stopped(ctx, eng, lg); code != cli.ExitOK {
				return code
			}
			return endCode(f, eng.Status(), cli.ExitOK)
		case <-maxRT:
			lg.Infof("maximum run time reached: stopping")
			return endCode(f, eng.Status(), cli.ExitOK)
		case code := <-exitReq:
			lg.Infof("an exit resource asked for exit code %d: stopping", code)
			return code
		case <-converged:
			if f.Seeds != "" {
				lg.Infof("the cluster converged for %gs", f.ConvergedTimeout)
			}
			st := eng.Status()
			if st.Failed > 0 && !f.DetailedExitcodes {
				lg.Errorf("converged with %d failed resource(s)", st.Failed)
				return cli.ExitFail
			}
			return endCode(f, st, cli.ExitOK)
		case r := <-readDone:
			readDone = nil
			if !r.anyValid {
				lg.Errorf("the input ended before any valid graph")
				return cli.ExitFail
			}
			lg.Infof("input closed; enforcing graph seq %d until stopped", r.seq)
		}
	}
}

// endCode returns the exit code of a run that ended normally: code, or
// with --detailed-exitcodes 2 when something changed (with --noop: would
// change), plus 4 when some resource failed.
func endCode(f *flags, st engine.Status, code int) int {
	if !f.DetailedExitcodes {
		return code
	}
	code = 0
	if f.Noop && st.Pending > 0 || !f.Noop && st.Changed > 0 {
		code |= 2
	}
	if st.Failing > 0 || st.Failed > 0 {
		code |= 4
	}
	return code
}

// summarize logs the summary line of a run that applied a graph and
// returns its counts: with --noop "N resources would change, M in sync, K
// failed", else "N changed, M unchanged, K failed", then ", S skipped (a
// dependency failed)" when a failure kept resources from running. A
// resource is in sync (unchanged) when its last check found nothing to do
// and nothing blocks it; changes are counted since the start, so a
// resource changed, then failed, counts twice and the in-sync count is the
// rest, never below 0.
func summarize(f *flags, st engine.Status, code int, lg *cli.Logger) summaryCounts {
	s := summaryCounts{Resources: st.Resources, Changed: st.Changed, Pending: st.Pending, Failed: st.Failing, Skipped: st.Blocked, Exit: code}
	if !st.Loaded {
		return s
	}
	skipped := ""
	if st.Blocked > 0 {
		skipped = fmt.Sprintf(", %d skipped (a dependency failed)", st.Blocked)
	}
	if f.Noop {
		s.InSync = max(0, st.Resources-st.Pending-st.Failing-st.Blocked)
		lg.Infof("summary: %s would change, %d in sync, %d failed%s", resources(st.Pending), s.InSync, st.Failing, skipped)
		return s
	}
	s.InSync = max(0, st.Resources-st.Changed-st.Pending-st.Failing-st.Blocked)
	noop := ""
	if st.Pending > 0 {
		noop = fmt.Sprintf(", %d would change (Meta:noop)", st.Pending)
	}
	lg.Infof("summary: %s changed, %d unchanged, %d failed%s%s", resources(st.Changed), s.InSync, st.Failing, skipped, noop)
	return s
}

func resources(n int) string {
	if n == 1 {
		return "1 resource"
	}
	return fmt.Sprintf("%d resources", n)
}

// readGraphs decodes the input and loads each valid graph into eng, through
// gate.
func readGraphs(dec *graph.Decoder, inName string, gate *loadGate, eng *engine.Engine, exp *exporter, lg *cli.Logger, dot string, done chan<- readResult) {
	var r readResult
	defer func() { done <- r }()
	for {
		// The document's parameters go as each resource is made, unless
		// the graph is drawn with them.
		o, err := next(dec, engine.BuildOptions{Consume: dot == ""})
		if err == io.EOF {
			return
		}
		if err != nil {
			lg.Errorf("reading %s: %v", inName, err)
			return
		}
		warn(o.doc, lg)
		if o.g == nil {
			lg.Errorf("%s (%s)", o.msg, keeping(r, eng))
			continue
		}
		loaded := gate.do(func() {
			writeDot(dot, o.g, lg)
			o.g.Compact()
			eng.Load(o.g)
			notifyLoaded(o.g)
			exp.publish(o.doc.Resources)
		})
		if !loaded {
			return
		}
		r.anyValid, r.seq = true, o.doc.Seq
	}
}

// keeping says what runs after a bad document: the last good graph, or
// nothing yet. A reader of a file read again on SIGHUP has loaded nothing
// itself: the engine says whether an earlier reader did.
func keeping(r readResult, eng *engine.Engine) string {
	switch {
	case r.anyValid:
		return fmt.Sprintf("keeping the last good graph, seq %d", r.seq)
	case eng != nil && eng.Status().Loaded:
		return "keeping the last good graph"
	}
	return "no graph yet"
}

// serveMetrics serves the engine's metrics, and etcd's while the world
// client runs the private member of this tool's world. etcd's come as
// text from the child, checked and bounded (worldpipe.MaxMetrics), all
// under etcd_, a prefix none of the engine's metrics has; when they fail
// (a child that does not answer, or answers what is not the format),
// the rest is served without them, and the failure logged once until
// they come back.
func serveMetrics(addr string, m *engine.Metrics, wld *worldpipe.Client, lg *cli.Logger) (func(), error) {
	var mu sync.Mutex
	var failing string
	report := func(err error) {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		mu.Lock()
		defer mu.Unlock()
		if msg != "" && msg != failing {
			lg.Warnf("prometheus: etcd's metrics left out: %s", msg)
		}
		failing = msg
	}
	m.Registry.AddText("etcd_", worldpipe.MaxMetrics, func() ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return wld.Metrics(ctx)
	}, report)
	at, stop, err := cli.ServeMetrics(addr, m.Handler())
	if err != nil {
		return nil, err
	}
	lg.Infof("prometheus metrics on http://%s/metrics", at)
	return stop, nil
}
