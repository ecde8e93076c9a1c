package world

import (
	"context"
	"log/slog"
	"slices"
	"sort"

	"go.uber.org/zap/zapcore"
)

// slogCore is the zap core of an embedded etcd whose log goes to a
// slog.Logger (ServerConfig.Logger): each of etcd's records becomes one
// record of that logger, at the matching level, with the message
// prefixed "etcd: " and etcd's fields as attributes, so that etcd's lines
// take the tool's format (text or json) like every other line.
type slogCore struct {
	lg     *slog.Logger
	min    zapcore.Level
	fields []zapcore.Field
}

func (c *slogCore) Enabled(l zapcore.Level) bool { return l >= c.min }

func (c *slogCore) With(fs []zapcore.Field) zapcore.Core {
	cc := *c
	cc.fields = append(slices.Clip(c.fields), fs...)
	return &cc
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fs []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fs {
		f.AddTo(enc)
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := make([]slog.Attr, 0, len(keys))
	for _, k := range keys {
		attrs = append(attrs, slog.Any(k, enc.Fields[k]))
	}
	c.lg.LogAttrs(context.Background(), slogLevel(e.Level), "etcd: "+e.Message, attrs...)
	return nil
}

func (c *slogCore) Sync() error { return nil }

// slogLevel maps a zap level to the slog level of the same meaning.
func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	}
	return slog.LevelError
}
