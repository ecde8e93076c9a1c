package engine

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
)

// setInit sets the Init handle of vs, part of vs with its logger: its
// calls go to vs itself (the Hooks of every engine-made handle) and its
// Env is the engine's.
func (e *Engine) setInit(vs *vstate) {
	vs.log = *slog.New((*vertexLog)(vs))
	vs.init = Init{
		Env:      e.env,
		Hooks:    vs,
		Reversal: vs.revPath() != "",
		Log:      &vs.log,
	}
	vs.initMade = true
}

// graph returns the resources of the running graph (Init.Graph).
func (e *Engine) graph() []Res {
	if g := e.graphRes.Load(); g != nil {
		return g.resources()
	}
	return nil
}

// The Hooks of the Init handle of vs.

func (vs *vstate) Running() { vs.e.post(msg{kind: msgRunning, vs: vs}) }

func (vs *vstate) Event() {
	if m := (msg{kind: msgEvent, vs: vs}); !vs.evPending.Swap(true) && !vs.e.direct(m) {
		vs.e.post(m)
	}
}

func (vs *vstate) Refresh() bool { return vs.refreshNow }

func (vs *vstate) UpstreamPending() bool { return vs.upPendingNow }

func (vs *vstate) Send(st any) error {
	sr, ok := vs.v.Res.(Sendable)
	if !ok {
		return fmt.Errorf("%s is not Sendable", vs.v.key)
	}
	return sr.Send(st)
}

func (vs *vstate) Recv() map[string]*Send {
	if run := vs.run; run != nil {
		return run.recv
	}
	return nil
}

func (vs *vstate) VarDir(p string) (string, error) { return vs.e.varDir(vs, p) }

func (vs *vstate) Logf(format string, v ...any) {
	line := fmt.Sprintf(format, v...)
	vs.mu.Lock()
	if vs.capture {
		vs.run.reports = append(vs.run.reports, Reported{What: line, logged: true})
		vs.mu.Unlock()
		return
	}
	vs.mu.Unlock()
	vs.e.logf("%s: %s", vs.v.key, line)
}

func (vs *vstate) Report(c Change) { vs.e.report(vs, c) }

// WantsText mirrors report: it diffs a text change only with diffNow,
// and never one of a resource that receives a secret.
func (vs *vstate) WantsText() bool { return vs.diffNow && !vs.secret }

// varDir returns PREFIX/vardir/KIND/NAME/P, created with mode 0700.
func (e *Engine) varDir(vs *vstate, p string) (string, error) {
	if e.cfg.Prefix == "" {
		return "", fmt.Errorf("no prefix directory configured")
	}
	if filepath.IsAbs(p) {
		return "", fmt.Errorf("vardir path %q must be relative", p)
	}
	d := e.varDirPath(vs, p)
	e.rev.madeVarDir(vs.v.kind(), vs.v.name())
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	return d, nil
}

// varDirPath returns PREFIX/vardir/KIND/NAME/P without creating it.
func (e *Engine) varDirPath(vs *vstate, p string) string {
	return filepath.Join(e.cfg.Prefix, "vardir", url.PathEscape(vs.v.kind()), url.PathEscape(vs.v.name()), filepath.Clean("/"+p))
}
