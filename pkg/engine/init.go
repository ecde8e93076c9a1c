package engine

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
)

// newInit builds the Init handle of vs. Its functions are method values
// of vs, one small allocation each, and the engine's shared ones: a graph
// of 100,000 resources holds 100,000 of these handles.
func (e *Engine) newInit(vs *vstate) *Init {
	return &Init{
		Program:         e.cfg.Program,
		Version:         e.cfg.Version,
		Hostname:        e.cfg.Hostname,
		Running:         vs.initRunning,
		Event:           vs.initEvent,
		Refresh:         vs.initRefresh,
		UpstreamPending: vs.initUpstreamPending,
		Send:            vs.initSend,
		Recv:            vs.initRecv,
		Reversal:        vs.revPath() != "",
		World:           e.cfg.World,
		Prefix:          e.cfg.Prefix,
		Exit:            e.cfg.Exit,
		Graph:           e.graphFn,
		VarDir:          vs.initVarDir,
		Debug:           e.cfg.Debug,
		Logf:            vs.initLogf,
		Report:          vs.initReport,
		WantsText:       vs.initWantsText,
		Log:             slog.New((*vertexLog)(vs)),
	}
}

// graph returns the resources of the running graph (Init.Graph).
func (e *Engine) graph() []Res {
	if p := e.graphRes.Load(); p != nil {
		return *p
	}
	return nil
}

// The functions of the Init handle of vs.

func (vs *vstate) initRunning() { vs.e.post(msg{kind: msgRunning, vs: vs}) }

func (vs *vstate) initEvent() {
	if !vs.evPending.Swap(true) {
		vs.e.post(msg{kind: msgEvent, vs: vs})
	}
}

func (vs *vstate) initRefresh() bool { return vs.refreshNow }

func (vs *vstate) initUpstreamPending() bool { return vs.upPendingNow }

func (vs *vstate) initSend(st any) error {
	sr, ok := vs.v.Res.(Sendable)
	if !ok {
		return fmt.Errorf("%s is not Sendable", vs.key)
	}
	return sr.Send(st)
}

func (vs *vstate) initRecv() map[string]*Send { return vs.recvNow }

func (vs *vstate) initVarDir(p string) (string, error) { return vs.e.varDir(vs, p) }

func (vs *vstate) initLogf(format string, v ...any) {
	line := fmt.Sprintf(format, v...)
	vs.notesMu.Lock()
	if vs.capture {
		vs.reports = append(vs.reports, Reported{What: line})
		vs.notesMu.Unlock()
		return
	}
	vs.notesMu.Unlock()
	vs.e.logf("%s: %s", vs.key, line)
}

func (vs *vstate) initReport(c Change) { vs.e.report(vs, c) }

// initWantsText mirrors report: it diffs a text change only with diffNow,
// and never one of a resource that receives a secret.
func (vs *vstate) initWantsText() bool { return vs.diffNow && !vs.secret }

// varDir returns PREFIX/vardir/KIND/NAME/P, created with mode 0700.
func (e *Engine) varDir(vs *vstate, p string) (string, error) {
	if e.cfg.Prefix == "" {
		return "", fmt.Errorf("no prefix directory configured")
	}
	if filepath.IsAbs(p) {
		return "", fmt.Errorf("vardir path %q must be relative", p)
	}
	d := e.varDirPath(vs, p)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	return d, nil
}

// varDirPath returns PREFIX/vardir/KIND/NAME/P without creating it.
func (e *Engine) varDirPath(vs *vstate, p string) string {
	return filepath.Join(e.cfg.Prefix, "vardir", url.PathEscape(vs.v.Src.Kind), url.PathEscape(vs.v.Src.Name), filepath.Clean("/"+p))
}
