package engine

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
)

// newInit builds the Init handle of vs.
func (e *Engine) newInit(vs *vstate) *Init {
	res := vs.res
	return &Init{
		Program:  e.cfg.Program,
		Version:  e.cfg.Version,
		Hostname: e.cfg.Hostname,
		Running:  func() { e.post(msg{kind: msgRunning, vs: vs}) },
		Event: func() {
			if !vs.evPending.Swap(true) {
				e.post(msg{kind: msgEvent, vs: vs})
			}
		},
		Refresh: func() bool { return vs.refreshNow },
		Send: func(st any) error {
			sr, ok := res.(Sendable)
			if !ok {
				return fmt.Errorf("%s is not Sendable", vs.key)
			}
			return sr.Send(st)
		},
		Recv:     func() map[string]*Send { return vs.recvNow },
		Reversal: vs.reversal != "",
		World:    e.cfg.World,
		Prefix:   e.cfg.Prefix,
		Exit:     e.cfg.Exit,
		Graph: func() []Res {
			if p := e.graphRes.Load(); p != nil {
				return *p
			}
			return nil
		},
		VarDir: func(p string) (string, error) { return e.varDir(vs, p) },
		Debug:  e.cfg.Debug,
		Logf: func(format string, v ...any) {
			line := fmt.Sprintf(format, v...)
			vs.notesMu.Lock()
			if vs.capture {
				vs.reports = append(vs.reports, Reported{What: line})
				vs.notesMu.Unlock()
				return
			}
			vs.notesMu.Unlock()
			e.logf("%s: %s", vs.key, line)
		},
		Report: func(c Change) { e.report(vs, c) },
		Log:    slog.New(&prefixHandler{inner: e.logger.Handler(), prefix: vs.key + ": "}),
	}
}

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
