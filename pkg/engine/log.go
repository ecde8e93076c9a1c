package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// LevelNotice is the level of the records of changes, made or (in noop
// mode) found: between info and warn, like Puppet's "Notice" and syslog's
// notice.
const LevelNotice = slog.LevelInfo + 2

// The levels of the engine's records: changes at LevelNotice; a failure
// for good at error; a retried error, a Watch that cannot start and drift
// no watch reported at warn; graph loads, convergence and what resources
// log at info; why each CheckApply runs and how long it took at debug.

// newLogger returns the logger of cfg: cfg.Log, or one handing each
// record's text to cfg.Logf (debug records only with cfg.Debug), or one
// discarding everything.
func newLogger(cfg Config) *slog.Logger {
	switch {
	case cfg.Log != nil:
		return cfg.Log
	case cfg.Logf != nil:
		return slog.New(&logfHandler{logf: cfg.Logf, debug: cfg.Debug})
	}
	return slog.New(slog.DiscardHandler)
}

// log writes one record; the message is made printable, since names and
// values from graph documents may hold NUL bytes, newlines or terminal
// escapes.
func (e *Engine) log(lv slog.Level, msg string, attrs ...slog.Attr) {
	e.logger.LogAttrs(context.Background(), lv, graph.Printable(msg), attrs...)
}

func (e *Engine) logf(format string, v ...any) {
	e.log(slog.LevelInfo, fmt.Sprintf(format, v...))
}

func (e *Engine) warnf(format string, v ...any) {
	e.log(slog.LevelWarn, fmt.Sprintf(format, v...))
}

func (e *Engine) errorf(format string, v ...any) {
	e.log(slog.LevelError, fmt.Sprintf(format, v...))
}

// debugOn reports whether debug records are written, so that their
// messages are made only then.
func (e *Engine) debugOn() bool {
	return e.logger.Enabled(context.Background(), slog.LevelDebug)
}

func (e *Engine) debugf(format string, v ...any) {
	if e.debugOn() {
		e.log(slog.LevelDebug, fmt.Sprintf(format, v...))
	}
}

// logfHandler hands records to a printf-like function: the message, then
// each attribute, one with a newline in its value on the lines below.
type logfHandler struct {
	logf  func(format string, v ...any)
	debug bool
	attrs []slog.Attr
}

func (h *logfHandler) Enabled(_ context.Context, lv slog.Level) bool {
	return lv >= slog.LevelInfo || h.debug
}

func (h *logfHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *logfHandler) WithGroup(string) slog.Handler { return h }

func (h *logfHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(graph.Printable(r.Message))
	add := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if strings.IndexByte(v, '\n') < 0 {
			b.WriteString(" " + a.Key + "=" + graph.Printable(v))
			return true
		}
		for _, line := range strings.Split(strings.TrimSuffix(v, "\n"), "\n") {
			b.WriteString("\n  " + graph.Printable(line))
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	h.logf("%s", b.String())
	return nil
}

// prefixHandler puts "kind[name]: " before the messages of a resource's
// records (Init.Log).
type prefixHandler struct {
	inner slog.Handler
	key   string // kind[name]
}

func (h *prefixHandler) Enabled(ctx context.Context, lv slog.Level) bool {
	return h.inner.Enabled(ctx, lv)
}

func (h *prefixHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &prefixHandler{inner: h.inner.WithAttrs(as), key: h.key}
}

func (h *prefixHandler) WithGroup(name string) slog.Handler {
	return &prefixHandler{inner: h.inner.WithGroup(name), key: h.key}
}

func (h *prefixHandler) Handle(ctx context.Context, r slog.Record) error {
	return handlePrefixed(ctx, h.inner, h.key, r)
}

// handlePrefixed hands r to inner with key before its message.
func handlePrefixed(ctx context.Context, inner slog.Handler, key string, r slog.Record) error {
	nr := slog.NewRecord(r.Time, r.Level, graph.Printable(key+": "+r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		nr.AddAttrs(a)
		return true
	})
	return inner.Handle(ctx, nr)
}

// vertexLog is the handler of a resource's Init.Log: a prefixHandler over
// the engine's handler with the vertex's key, which is the vertex state
// itself, so that the handle of each resource holds no handler of its own
// (only its Logger). Its WithAttrs and WithGroup return prefixHandlers.
type vertexLog vstate

func (h *vertexLog) Enabled(ctx context.Context, lv slog.Level) bool {
	return h.e.logger.Handler().Enabled(ctx, lv)
}

func (h *vertexLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &prefixHandler{inner: h.e.logger.Handler().WithAttrs(as), key: h.v.key}
}

func (h *vertexLog) WithGroup(name string) slog.Handler {
	return &prefixHandler{inner: h.e.logger.Handler().WithGroup(name), key: h.v.key}
}

func (h *vertexLog) Handle(ctx context.Context, r slog.Record) error {
	return handlePrefixed(ctx, h.e.logger.Handler(), h.v.key, r)
}
