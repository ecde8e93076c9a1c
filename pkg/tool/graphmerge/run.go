// Package graphmerge implements the graph-merge tool: it reads several
// graph document streams at once and writes their merge.
//
// One goroutine per input decodes and validates that input's documents and
// sends them, in order, to the loop in Run, which alone owns the merge
// state: the last valid graph of every input and whether the input is
// currently failing. Once every input has a graph and none is failing, the
// loop merges them (pkg/graph's Merge) and writes the result; it does so
// again after every new graph from any input, reusing the others' last
// graphs. A bad or error document from an input is reported on stderr and
// passed on as an error document; the merge resumes when that input sends a
// good graph again.
package graphmerge

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	// The kinds' parameter schemas, so that inputs are checked the way
	// mgmt-apply will check them.
	_ "github.com/mgmtpipe/mgmt/pkg/resources/all"
)

const name = "graph-merge"

const description = `Merge several graph document streams into one.

Each INPUT is a file, a fifo or - (stdin), holding JSON-lines or graph.yaml
documents. Once every input has produced a graph, the merged graph is
written, and again each time any input writes a new one. A noop named
puppet_<X> merges with the Puppet class mgmt_<X>.

Bad documents are reported on stderr and passed on as error documents.
Exit status 1 if an input ends without a valid graph, or if the last
document written was an error.`

type flags struct {
	cli.VersionFlag
	Output         string   `short:"o" default:"json" enum:"json,yaml,dot" help:"Output format: json, yaml or dot."`
	AllowUnmatched bool     `help:"Warn about, instead of failing on, a mgmt_<X> class or a puppet_<X> noop without a partner."`
	Inputs         []string `arg:"" name:"input" help:"Input streams: files, fifos, or - for stdin."`
	cli.LogFlags
	cli.DocumentFlags
}

// An event is what an input's reader reports to the merge loop: a valid
// graph or error document, a bad document (err), or the end of the input
// (done, with err set on a read error).
type event struct {
	input int
	doc   *graph.Document
	err   error
	done  bool
}

// Run runs graph-merge with args and its streams and returns the exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f flags
	if _, code, done := cli.Parse(name, description, &f, args, stdout, stderr); done {
		return code
	}
	format, err := graph.ParseFormat(f.Output)
	if err == nil {
		err = f.DocumentFlags.Check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return cli.ExitUsage
	}
	stdins := 0
	for _, in := range f.Inputs {
		if in == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		fmt.Fprintf(stderr, "%s: stdin (-) given more than once\n", name)
		return cli.ExitUsage
	}
	lg := cli.NewLogger(name, stderr, f.LogFlags)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan event)
	for i, in := range f.Inputs {
		go readInput(ctx, i, in, stdin, f.DocumentFlags, events)
	}
	m := &merger{
		names:  make([]string, len(f.Inputs)),
		last:   make([]*graph.Document, len(f.Inputs)),
		bad:    make([]bool, len(f.Inputs)),
		opts:   graph.MergeOptions{AllowUnmatched: f.AllowUnmatched},
		format: format,
		source: name + " " + strings.Join(f.Inputs, " "),
		stdout: stdout,
		lg:     lg,
	}
	for i, in := range f.Inputs {
		m.names[i] = inputName(in)
	}
	return m.loop(ctx, events, len(f.Inputs))
}

func inputName(in string) string {
	if in == "-" {
		return "<stdin>"
	}
	return in
}

// readInput decodes and validates the documents of one input.
func readInput(ctx context.Context, i int, path string, stdin io.Reader, df cli.DocumentFlags, events chan<- event) {
	send := func(ev event) bool {
		ev.input = i
		select {
		case events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	r := stdin
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			send(event{done: true, err: err})
			return
		}
		defer fh.Close()
		r = fh
	}
	dec := df.NewDecoder(r, inputName(path))
	for {
		doc, err := dec.Next()
		switch {
		case err == io.EOF:
			send(event{done: true})
			return
		case err != nil && !isDocError(err):
			send(event{done: true, err: err})
			return
		case err == nil && !doc.IsError():
			err = doc.Validate()
		}
		if err != nil {
			doc = nil
		}
		if !send(event{doc: doc, err: err}) {
			return
		}
	}
}

// isDocError reports whether err is about one document (the stream goes
// on) rather than a read error.
func isDocError(err error) bool {
	_, ok := graph.AsList(err)
	return ok
}

// merger is the state of the merge loop.
type merger struct {
	names  []string
	last   []*graph.Document // last valid graph per input
	bad    []bool            // the input's latest document was bad
	opts   graph.MergeOptions
	format graph.Format
	source string
	seq    int64
	graph  string // name of the last merged graph
	failed bool   // the last document written was an error
	stdout io.Writer
	lg     *cli.Logger
}

func (m *merger) loop(ctx context.Context, events <-chan event, open int) int {
	for open > 0 {
		var ev event
		select {
		case ev = <-events:
		case <-ctx.Done():
			return cli.ExitFail
		}
		in := m.names[ev.input]
		switch {
		case ev.done:
			open--
			if ev.err != nil {
				m.lg.Errorf("%s: %v", in, ev.err)
			}
			if m.last[ev.input] == nil {
				m.lg.Errorf("%s: input ended without a valid graph", in)
				return cli.ExitFail
			}
		case ev.err != nil:
			m.bad[ev.input] = true
			m.logErr(ev.err)
			if !m.writeError(graph.ErrorDoc(ev.err)) {
				return cli.ExitFail
			}
		case ev.doc.IsError():
			m.bad[ev.input] = true
			e := *ev.doc.Error
			e.Message = in + ": " + e.Message
			m.logErr(e.Err())
			if !m.writeError(&e) {
				return cli.ExitFail
			}
		default:
			m.bad[ev.input] = false
			m.last[ev.input] = ev.doc
			if !m.merge() {
				return cli.ExitFail
			}
		}
	}
	if m.failed {
		return cli.ExitFail
	}
	return cli.ExitOK
}

func (m *merger) logErr(err error) { m.lg.Fail(err) }

// merge writes the merge of the inputs' last graphs, if every input has
// one and none is failing. It returns false when stdout fails.
func (m *merger) merge() bool {
	inputs := make([]graph.Input, len(m.last))
	for i, d := range m.last {
		if d == nil || m.bad[i] {
			return true
		}
		inputs[i] = graph.Input{Name: m.names[i], Doc: d}
	}
	out, warnings, err := graph.Merge(m.opts, inputs...)
	for _, w := range warnings {
		m.lg.Warnf("%s", w)
	}
	if err != nil {
		m.logErr(err)
		return m.writeError(graph.ErrorDoc(err))
	}
	m.graph = out.Graph
	m.failed = false
	return m.write(out)
}

func (m *merger) writeError(e *graph.Error) bool {
	g := m.graph
	if g == "" {
		var names []string
		for _, d := range m.last {
			if d != nil && d.Graph != "" {
				names = append(names, d.Graph)
			}
		}
		g = strings.Join(names, "+")
	}
	ok := m.write(&graph.Document{Mgmt: graph.Version, Graph: g, Error: e})
	m.failed = true
	return ok
}

func (m *merger) write(doc *graph.Document) bool {
	m.seq++
	doc.Seq = m.seq
	doc.Source = m.source
	if err := graph.Encode(m.stdout, doc, m.format); err != nil {
		m.lg.Errorf("writing output: %v", err)
		return false
	}
	return true
}
