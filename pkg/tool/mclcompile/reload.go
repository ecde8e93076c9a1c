package mclcompile

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// A server runs a checked program's engine for ever (or until its
// streams end), and on each SIGHUP reads and checks the program again: a
// program that checks replaces the running one, whose engine is stopped
// first; one that does not is reported (positioned errors on stderr, no
// document on stdout) and the running program stays. The documents of
// successive programs carry increasing seq numbers, as those of one do.
type server struct {
	check  func() (*sem.Program, error) // reads and checks the program again
	emit   func(*graph.Document) error
	lg     *cli.Logger
	stderr io.Writer // for the caret under a reload's first error
	keep   bool      // --keep-running: wait for SIGHUP once the streams end
	seq    int64     // the seq of the last document written
}

// serve runs prog until ctx ends, the streams end (unless keep), or the
// engine fails; it returns the engine's error.
func (s *server) serve(ctx context.Context, prog *sem.Program) error {
	hup, stop := cli.Hangups()
	defer stop()
	for {
		runCtx, cancel := context.WithCancel(ctx)
		r := s.start(runCtx, prog)
		next, err := s.wait(ctx, r, hup)
		cancel()
		<-r.done // the engine has written its last document
		if next == nil {
			return err
		}
		prog = next
	}
}

// A run is one engine running: done is closed once it has returned err.
type run struct {
	done chan struct{}
	err  error
}

// start runs prog's engine in a goroutine; serve waits for it to end
// before starting another.
func (s *server) start(ctx context.Context, prog *sem.Program) *run {
	r := &run{done: make(chan struct{})}
	base := s.seq
	go func() {
		defer close(r.done)
		r.err = sem.NewEngine(prog).Run(ctx, false, func(doc *graph.Document) error {
			doc.Seq += base
			s.seq = doc.Seq
			return s.emit(doc)
		})
	}()
	return r
}

// wait waits for the running engine to end, or for a SIGHUP that brings a
// program that checks, which it returns (the engine still running).
func (s *server) wait(ctx context.Context, r *run, hup <-chan os.Signal) (*sem.Program, error) {
	done := r.done
	for {
		select {
		case <-done:
			if r.err != nil || !s.keep || ctx.Err() != nil {
				return nil, r.err
			}
			done = nil
			s.lg.Infof("every stream has ended: waiting for SIGHUP to read the program again")
		case <-ctx.Done():
			<-r.done
			return nil, r.err
		case <-hup:
			prog, err := s.check()
			if err == nil {
				s.lg.Infof("SIGHUP: the program was read again and checks: running it")
				return prog, nil
			}
			report(s.lg, s.stderr, err)
			s.lg.Warnf("SIGHUP: the program does not check: the running one stays")
		}
	}
}

// errStdin is the reload error of a program read from stdin.
var errStdin = errors.New("the program came from stdin: there is nothing to read again")
