// Package builtin holds the top-level mcl functions that need no import:
// len, contains, concat, history, panic, panic_debug, list_lookup,
// map_lookup.
package builtin

import (
	"context"
	"fmt"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.RegisterPoly("", "len", inferLen, func(*types.Type) (funcs.Impl, error) {
		return func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			switch x := c.Args[0].(type) {
			case values.Str:
				return values.Int(len(x)), nil
			case *values.List:
				return values.Int(len(x.V)), nil
			case *values.Map:
				return values.Int(len(x.Keys)), nil
			}
			return nil, fmt.Errorf("len of %s", c.Args[0].Type())
		}, nil
	}, funcs.Doc("The length of a str (in bytes), a list or a map.", `len(["a", "b"])`), funcs.Shape("func(x ?1) int"))
	funcs.RegisterFunc(&funcs.Func{Name: "contains", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(needle ?1, haystack []?1) bool")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			for _, e := range c.Args[1].(*values.List).V {
				if values.Equal(e, c.Args[0]) {
					return values.Bool(true), nil
				}
			}
			return values.Bool(false), nil
		}, Doc: "Whether the list holds the value, as the in operator says.", Example: `contains("b", ["a", "b"])`})
	funcs.Register("", "concat", "func(a str, b str) str", func(ctx context.Context, args []values.Value) (values.Value, error) {
		return args[0].(values.Str) + args[1].(values.Str), nil
	}, funcs.Doc("Joins two strings, as the + operator does.", `concat("web", "1")`))
	funcs.RegisterFunc(&funcs.Func{Name: "list_lookup", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(list []?1, index int) ?1")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			return ListLookup(c.Args[0].(*values.List), int64(c.Args[1].(values.Int)))
		}, Doc: "The element of a list at an index; a missing one is an error <|> can catch. $l[i] is the same.", Example: `list_lookup(["a", "b"], 1)`})
	funcs.RegisterFunc(&funcs.Func{Name: "map_lookup", Pure: true,
		Sigs: []*types.Type{types.MustParse("func(map map{?1: ?2}, key ?1) ?2")},
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			return MapLookup(c.Args[0].(*values.Map), c.Args[1])
		}, Doc: "The value of a map at a key; a missing key is an error <|> can catch. $m[k] is the same.", Example: `map_lookup({"a" => 1}, "a")`})
	funcs.RegisterPoly("", "panic", inferPanic, func(*types.Type) (funcs.Impl, error) {
		return func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			switch x := c.Args[0].(type) {
			case values.Bool:
				if x {
					return nil, fmt.Errorf("panic")
				}
			case values.Str:
				if x != "" {
					return nil, fmt.Errorf("panic: %s", string(x))
				}
			}
			return values.Bool(false), nil
		}, nil
	}, funcs.Doc("The panic(x) statement: fails the program when x is true or a non-empty str.", "panic(false)"), funcs.Shape("func(x ?1) bool"))
	// panic_debug is the two-argument form of panic as a function: an
	// error carrying msg when x is true.
	funcs.Register("", "panic_debug", "func(x bool, msg str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		if a[0].(values.Bool) {
			return nil, fmt.Errorf("panic: %s", string(a[1].(values.Str)))
		}
		return values.Bool(false), nil
	}, funcs.Doc("Fails the program with the message msg when x is true, as the statement panic(x, msg) does; false otherwise.", `panic_debug(false, "unreachable")`))
	funcs.RegisterFunc(&funcs.Func{Name: "history",
		Sigs:   []*types.Type{types.MustParse("func(value ?1, index int) ?1")},
		Stream: history,
		Follow: true, Doc: "The value its first argument had index milliseconds ago (the current one for 0), for comparing a value with its past.", Example: `history("now", 1000)`,
	})
}

// ListLookup returns l[i] or a catchable error.
func ListLookup(l *values.List, i int64) (values.Value, error) {
	if i < 0 || i >= int64(len(l.V)) {
		return nil, funcs.Catchablef("list index %d out of range (length %d)", i, len(l.V))
	}
	return l.V[i], nil
}

// MapLookup returns m[k] or a catchable error.
func MapLookup(m *values.Map, k values.Value) (values.Value, error) {
	v, ok := m.Lookup(k)
	if !ok {
		return nil, funcs.Catchablef("map key %s not found", k)
	}
	return v, nil
}

func inferLen(ic *funcs.InferCtx) error {
	if len(ic.Args) != 1 {
		return fmt.Errorf("len takes one argument, got %d", len(ic.Args))
	}
	if err := ic.Unify(ic.Out, types.Int); err != nil {
		return err
	}
	switch ic.Args[0].Prune().Kind {
	case types.KindStr, types.KindList, types.KindMap:
		return nil
	case types.KindVar:
		if ic.Final {
			return fmt.Errorf("cannot tell the type of the argument of len; add a type annotation")
		}
		return funcs.ErrDefer
	}
	return fmt.Errorf("len takes a str, list or map, got %s", ic.Args[0].Resolve())
}

func inferPanic(ic *funcs.InferCtx) error {
	if len(ic.Args) != 1 {
		return fmt.Errorf("panic takes one argument, got %d", len(ic.Args))
	}
	if err := ic.Unify(ic.Out, types.Bool); err != nil {
		return err
	}
	switch ic.Args[0].Prune().Kind {
	case types.KindStr, types.KindBool:
		return nil
	case types.KindVar:
		if ic.Final {
			return fmt.Errorf("panic takes a bool or a str; add a type annotation")
		}
		return funcs.ErrDefer
	}
	return fmt.Errorf("panic takes a bool or a str, got %s", ic.Args[0].Resolve())
}

// history emits the value its first argument had index milliseconds ago;
// until the program has run that long, the oldest value it has seen. The
// call follows its arguments (Follow), keeping a timeline of them.
func history(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	type point struct {
		t time.Time
		v values.Value
	}
	delay := time.Duration(c.Args[1].(values.Int)) * time.Millisecond
	line := []point{{time.Now(), c.Args[0]}}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		// Drop the points superseded before now-delay, emit the current one.
		for len(line) > 1 && !line[1].t.After(now.Add(-delay)) {
			line = line[1:]
		}
		emit(line[0].v)
		if len(line) > 1 {
			timer.Reset(line[1].t.Add(delay).Sub(now))
		}
		select {
		case <-ctx.Done():
			return nil
		case args := <-c.Updates:
			delay = time.Duration(args[1].(values.Int)) * time.Millisecond
			line = append(line, point{time.Now(), args[0]})
		case <-timer.C:
		}
	}
}
