// Package coretest holds the mcl module "test": helpers used by the
// language's own tests.
package coretest

import (
	"context"
	"fmt"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	for _, c := range "abcdefgh" {
		name := fmt.Sprintf("one_instance_%c", c)
		msg := fmt.Sprintf("I am one_instance_%c", c)
		funcs.Register("test", name, "func() str", func(ctx context.Context, a []values.Value) (values.Value, error) {
			return values.Str(msg), nil
		}, funcs.Doc("Returns \""+msg+"\" (the language's own tests use it).", "test."+name+"()"))
	}
	funcs.Register("test", "slow_string", "func() str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		return values.Str("slow"), nil
	}, funcs.Doc(`Returns "slow" (the language's own tests use it).`, "test.slow_string()"))
	// one_stream emits its argument once, as a stream, then closes.
	funcs.RegisterStream("test", "one_stream", "func(n int) str", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		emit(values.Str(fmt.Sprint(int64(c.Args[0].(values.Int)))))
		return nil
	}, funcs.Doc("Emits its argument once as a stream, then closes (the language's own tests use it).", "test.one_stream(1)"))
	// fastcount counts up as fast as the program consumes the values.
	funcs.RegisterStream("test", "fastcount", "func() int", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		for i := int64(0); ctx.Err() == nil; i++ {
			emit(values.Int(i))
			select {
			case <-ctx.Done():
			case <-time.After(time.Millisecond):
			}
		}
		return nil
	}, funcs.Doc("Counts up as fast as it can (the language's own tests use it).", "test.fastcount()"))
	funcs.RegisterStream("test", "forloop", "func() []str", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		l := values.NewList(values.Str("").Type())
		for i := 0; i < 3; i++ {
			l = &values.List{T: l.T, V: append(append([]values.Value(nil), l.V...), values.Str(fmt.Sprint(i)))}
			emit(l)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
		}
		return nil
	}, funcs.Doc("A list that changes over time (the language's own tests use it).", "test.forloop()"))
	funcs.RegisterStream("test", "forkvloop", "func() map{str: str}", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		m := values.NewMap(c.Type.Out)
		for i := 0; i < 3; i++ {
			n := values.NewMap(c.Type.Out)
			for j := range m.Keys {
				n.Set(m.Keys[j], m.Vals[j])
			}
			n.Set(values.Str(fmt.Sprint(i)), values.Str(fmt.Sprint(i)))
			m = n
			emit(m)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
		}
		return nil
	}, funcs.Doc("A map that changes over time (the language's own tests use it).", "test.forkvloop()"))
}
