package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// LevelNotice is the level of a change made (or, in noop mode, found):
// between info and warn (the engine's, see engine.LevelNotice).
const LevelNotice = engine.LevelNotice

// Log formats.
const (
	LogText  = "text"
	LogPlain = "plain"
	LogJSON  = "json"
)

// LogFlags are the logging flags every tool that logs embeds.
type LogFlags struct {
	LogFormat string `name:"log-format" enum:"text,plain,json" default:"text" help:"Log format on stderr: text (time, level, tool: message), plain (tool: message, as compilers write diagnostics) or json (one object per line, for journald, Loki, jq)."`
	Debug     bool   `short:"v" help:"Log debug messages too."`
}

// A Logger writes the log of a tool to stderr through log/slog, in the
// text or the json form of LogFlags.
//
// The text form is one line per record,
//
//	2025-06-01T12:00:00.123+02:00 INFO   mgmt-apply: message key=value
//
// time (local, milliseconds), level, the tool's name and the message, then
// each attribute: a value holding a newline (a diff, a command's output)
// as an indented block below the line, any other as key=value. Every line
// is made printable (graph.Printable): no control character of a name or
// value reaches the terminal raw. A message of several lines (a list of
// errors) gives one line each, with the prefix. On a terminal, unless
// NO_COLOR is set, the level is coloured (and errors and changes in whole),
// and SetStatus keeps a live status line below the log.
//
// The plain form is the text form without the time and the level: "tool:
// message", as compilers write their diagnostics, for editors that jump
// to a FILE:LINE:COL.
//
// The json form is one object per record, as slog.JSONHandler writes it,
// with "tool" after "msg" and the levels named DEBUG, INFO, NOTICE, WARN and
// ERROR.
//
// The positioned errors of bad input are not records: see Fail.
type Logger struct {
	*slog.Logger
	out  *logOutput
	tool string
}

// logOutput is the writer shared by the handlers of one Logger.
type logOutput struct {
	mu     sync.Mutex
	w      io.Writer
	tty    bool // a terminal: the status line is kept
	colour bool
	status string
}

// NewLogger returns the logger of tool on w (stderr).
func NewLogger(tool string, w io.Writer, f LogFlags) *Logger {
	out := &logOutput{w: w}
	if fh, ok := w.(*os.File); ok {
		out.tty = isatty.IsTerminal(fh.Fd()) || isatty.IsCygwinTerminal(fh.Fd())
	}
	level := slog.LevelInfo
	if f.Debug {
		level = slog.LevelDebug
	}
	var h slog.Handler
	if f.LogFormat == LogJSON {
		out.tty = false
		h = slog.NewJSONHandler(lockedWriter{out}, &slog.HandlerOptions{Level: level, ReplaceAttr: replaceLevel}).
			WithAttrs([]slog.Attr{slog.String("tool", tool)})
	} else {
		out.colour = out.tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		h = &textHandler{out: out, tool: tool, level: level, plain: f.LogFormat == LogPlain}
	}
	return &Logger{Logger: slog.New(h), out: out, tool: tool}
}

// Fail reports err, the reason a tool fails or refuses its input. A
// diagnostic of the input (see Positioned) is written as the
// lines "TOOL: FILE:LINE:COL: message", as compilers write their
// diagnostics, in every log format: editors jump to it, and scripts read
// it as it always was. Any other error is a record at level error.
func (l *Logger) Fail(err error) {
	if !Positioned(err) {
		l.Error(err.Error())
		return
	}
	var b strings.Builder
	Errorln(&b, l.tool, err)
	l.out.write(b.String())
}

// Positioned reports whether err is a diagnostic of the input that says
// where it is: a list of errors about the input (graph.ErrorList) each
// with its position, or an error each of whose lines starts with
// FILE:LINE:COL.
func Positioned(err error) bool {
	if l, ok := graph.AsList(err); ok {
		for _, e := range l {
			if _, ok := graph.ParsePosition(e.Pos); !ok {
				return false
			}
		}
		return len(l) > 0
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		pos, _, found := strings.Cut(line, ": ")
		if p, ok := graph.ParsePosition(pos); !found || !ok || p.Col == 0 {
			return false
		}
	}
	return true
}

// Terminal reports whether the log goes to a terminal in the text form.
func (l *Logger) Terminal() bool { return l.out.tty }

// SetStatus shows s as the live status line below the log, on a terminal
// only; "" removes it.
func (l *Logger) SetStatus(s string) {
	o := l.out
	if !o.tty {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if s == "" && o.status == "" {
		return
	}
	o.status = s
	fmt.Fprintf(o.w, "\r\x1b[K%s", s)
}

// Errorf logs a formatted message at level error.
func (l *Logger) Errorf(format string, v ...any) { l.Error(fmt.Sprintf(format, v...)) }

// Warnf logs a formatted message at level warn.
func (l *Logger) Warnf(format string, v ...any) { l.Warn(fmt.Sprintf(format, v...)) }

// Infof logs a formatted message at level info.
func (l *Logger) Infof(format string, v ...any) { l.Info(fmt.Sprintf(format, v...)) }

// Debugf logs a formatted message at level debug.
func (l *Logger) Debugf(format string, v ...any) { l.Debug(fmt.Sprintf(format, v...)) }

// Logf is Infof with the signature of the Logf fields of the project's
// packages.
func (l *Logger) Logf(format string, v ...any) { l.Infof(format, v...) }

// replaceLevel names LevelNotice in the json form.
func replaceLevel(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.LevelKey && len(groups) == 0 {
		if lv, ok := a.Value.Any().(slog.Level); ok {
			a.Value = slog.StringValue(levelName(lv))
		}
	}
	return a
}

// levelName returns the name of a level: DEBUG, INFO, NOTICE, WARN, ERROR.
func levelName(lv slog.Level) string {
	switch {
	case lv < slog.LevelInfo:
		return "DEBUG"
	case lv < LevelNotice:
		return "INFO"
	case lv < slog.LevelWarn:
		return "NOTICE"
	case lv < slog.LevelError:
		return "WARN"
	}
	return "ERROR"
}

// lockedWriter serialises the writes of the json handler with the status
// line (which the json form never shows, but a shared mutex keeps one
// rule).
type lockedWriter struct{ o *logOutput }

func (lw lockedWriter) Write(p []byte) (int, error) {
	lw.o.mu.Lock()
	defer lw.o.mu.Unlock()
	return lw.o.w.Write(p)
}

// textHandler is the slog.Handler of the text form.
type textHandler struct {
	out   *logOutput
	tool  string
	level slog.Level
	plain bool        // no time and level
	attrs []slog.Attr // from WithAttrs, with their group prefix
	group string      // prefix of later attribute keys ("a.b.")
}

func (h *textHandler) Enabled(_ context.Context, lv slog.Level) bool { return lv >= h.level }

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range as {
		a.Key = h.group + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *textHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

const (
	colRed    = "\x1b[31m"
	colGreen  = "\x1b[32m"
	colYellow = "\x1b[33m"
	colDim    = "\x1b[2m"
	colOff    = "\x1b[0m"
)

// Handle writes r: its line, then its block attributes.
func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	var inline strings.Builder
	var blocks []string
	add := func(a slog.Attr) {
		if a.Equal(slog.Attr{}) {
			return
		}
		s := a.Value.Resolve().String()
		if strings.IndexByte(s, '\n') >= 0 {
			blocks = append(blocks, a.Key, s)
			return
		}
		inline.WriteString(" " + a.Key + "=" + quoteValue(s))
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool {
		a.Key = h.group + a.Key
		add(a)
		return true
	})
	lvl := levelName(r.Level)
	colour := ""
	if h.out.colour {
		switch lvl {
		case "ERROR":
			colour = colRed
		case "WARN":
			colour = colYellow
		case "NOTICE":
			colour = colGreen
		case "DEBUG":
			colour = colDim
		}
	}
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	prefix := t.Format("2006-01-02T15:04:05.000Z07:00") + " " + padLevel(lvl) + " "
	if h.plain {
		prefix = ""
	}
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(r.Message, "\n"), "\n")
	for i, line := range lines {
		b.WriteString(prefix)
		if colour != "" {
			b.WriteString(colour)
		}
		b.WriteString(h.tool + ": " + graph.Printable(line))
		if i == len(lines)-1 {
			b.WriteString(graph.Printable(inline.String()))
		}
		if colour != "" {
			b.WriteString(colOff)
		}
		b.WriteByte('\n')
	}
	for i := 0; i < len(blocks); i += 2 {
		writeBlock(&b, blocks[i], blocks[i+1])
	}
	h.out.write(b.String())
	return nil
}

// padLevel pads a level name to the width of the longest one.
func padLevel(s string) string { return s + strings.Repeat(" ", 6-len(s)) }

// writeBlock writes a multi-line attribute: "  key:" and its lines,
// indented, each made printable.
func writeBlock(b *strings.Builder, key, s string) {
	b.WriteString("    " + graph.Printable(key) + ":\n")
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString("      " + graph.Printable(line) + "\n")
	}
}

// quoteValue quotes an inline attribute value that is empty or holds a
// space, a quote or an equals sign.
func quoteValue(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"=") {
		return strconv.Quote(s)
	}
	return s
}

// write writes the lines of one record, above the status line on a
// terminal.
func (o *logOutput) write(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.tty && o.status != "" {
		io.WriteString(o.w, "\r\x1b[K"+s+o.status)
		return
	}
	io.WriteString(o.w, s)
}
