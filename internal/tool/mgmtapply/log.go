package mgmtapply

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// A logger writes one line per message to stderr. When stderr is a
// terminal it colours errors and changes and keeps a live status line
// (converged/total, running, failed) below the log.
type logger struct {
	mu     sync.Mutex
	w      io.Writer
	tty    bool
	status string
}

func newLogger(w io.Writer) *logger {
	l := &logger{w: w}
	if f, ok := w.(*os.File); ok {
		l.tty = isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
	}
	return l
}

const (
	colRed   = "\x1b[31m"
	colGreen = "\x1b[32m"
	colOff   = "\x1b[0m"
)

// line writes s, each of its lines (a list of errors comes with one per
// error) as a line of its own naming the tool, made Printable: no NUL byte,
// terminal escape or other control character from a name or value reaches
// stderr raw.
func (l *logger) line(s, colour string) {
	parts := strings.Split(s, "\n")
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty {
		off := ""
		if colour != "" {
			off = colOff
		}
		for _, p := range parts {
			fmt.Fprintf(l.w, "\r\x1b[K%s%s: %s%s\n", colour, name, graph.Printable(p), off)
		}
		if l.status != "" {
			fmt.Fprint(l.w, l.status)
		}
		return
	}
	for _, p := range parts {
		fmt.Fprintf(l.w, "%s: %s\n", name, graph.Printable(p))
	}
}

// logf logs an informational line; lines about changes are green on a
// terminal and lines about errors red.
func (l *logger) logf(format string, v ...any) {
	s := fmt.Sprintf(format, v...)
	colour := ""
	switch {
	case strings.Contains(s, "error"):
		colour = colRed
	case strings.Contains(s, ": changed"):
		colour = colGreen
	}
	l.line(s, colour)
}

func (l *logger) errorf(format string, v ...any) { l.line(fmt.Sprintf(format, v...), colRed) }

func (l *logger) debugf(on bool, format string, v ...any) {
	if on {
		l.line(fmt.Sprintf(format, v...), "")
	}
}

// statusLoop refreshes the status line every 200 ms when stderr is a
// terminal; the returned function stops it and clears the line.
func (l *logger) statusLoop(e *engine.Engine) func() {
	if !l.tty {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			st := e.Status()
			s := fmt.Sprintf("[%d/%d converged, %d running, %d failed]", st.Converged, st.Total, st.Running, st.Failed)
			l.mu.Lock()
			l.status = s
			fmt.Fprintf(l.w, "\r\x1b[K%s", s)
			l.mu.Unlock()
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		l.mu.Lock()
		if l.status != "" {
			fmt.Fprint(l.w, "\r\x1b[K")
			l.status = ""
		}
		l.mu.Unlock()
	}
}
