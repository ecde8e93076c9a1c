// Package corefmt holds the mcl module "fmt": printf, whose argument types
// follow the verbs of its (constant) format string.
package corefmt

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func init() {
	funcs.RegisterPoly("fmt", "printf", inferPrintf, buildPrintf, funcs.Doc("Formats its arguments as Go's fmt.Sprintf does, with the verbs %s %q %d %f %t %v and %T; a constant format is checked against the argument types when the program is compiled, a variable one when the call runs (a mismatch is an error, never a guess).", `fmt.printf("%s has %d cpus", "web1", 4)`), funcs.Shape("func(format str, args ...) str"))
}

// verbs returns the verb letters of format in order ("%%" is no verb).
func verbs(format string) ([]byte, error) {
	var out []byte
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i >= len(format) {
			return nil, fmt.Errorf("format string ends with a lone %%")
		}
		switch c := format[i]; c {
		case '%':
		case 't', 's', 'q', 'd', 'f', 'v', 'T':
			out = append(out, c)
		default:
			return nil, fmt.Errorf("unsupported verb %%%c", c)
		}
	}
	return out, nil
}

func verbType(c byte) *types.Type {
	switch c {
	case 't':
		return types.Bool
	case 's', 'q':
		return types.Str
	case 'd':
		return types.Int
	case 'f':
		return types.Float
	}
	return nil // %v, %T: any type
}

func inferPrintf(ic *funcs.InferCtx) error {
	if len(ic.Args) == 0 {
		return fmt.Errorf("printf needs a format string")
	}
	if err := ic.Unify(ic.Args[0], types.Str); err != nil {
		return fmt.Errorf("format string: %v", err)
	}
	if err := ic.Unify(ic.Out, types.Str); err != nil {
		return err
	}
	f, ok := ic.Consts[0].(values.Str)
	if !ok {
		// Without a constant format the argument types must come from
		// elsewhere; every type is acceptable then.
		for _, a := range ic.Args[1:] {
			if !a.IsConcrete() {
				if ic.Final {
					return fmt.Errorf("printf with a variable format string needs arguments of known types")
				}
				return funcs.ErrDefer
			}
		}
		return nil
	}
	vs, err := verbs(string(f))
	if err != nil {
		return err
	}
	if len(vs) != len(ic.Args)-1 {
		return fmt.Errorf("number of args (%d) doesn't match format string verb count (%d)", len(ic.Args)-1, len(vs))
	}
	for i, v := range vs {
		if t := verbType(v); t != nil {
			if err := ic.Unify(ic.Args[i+1], t); err != nil {
				return fmt.Errorf("arg %d for %%%c: %v", i+1, v, err)
			}
		}
	}
	return nil
}

func buildPrintf(sig *types.Type) (funcs.Impl, error) {
	return func(ctx context.Context, c *funcs.Call) (values.Value, error) {
		return Sprintf(string(c.Args[0].(values.Str)), c.Args[1:])
	}, nil
}

// Sprintf formats args following format with the printf verbs of mcl. A
// format that does not fit the arguments (a variable one, which the type
// checker could not see) is an error: the wrong number of arguments, or an
// argument whose type is not the one its verb wants.
func Sprintf(format string, args []values.Value) (values.Value, error) {
	vs, err := verbs(format)
	if err != nil {
		return nil, fmt.Errorf("format %q: %v", format, err)
	}
	if len(vs) != len(args) {
		return nil, fmt.Errorf("format %q: number of args (%d) doesn't match format string verb count (%d)", format, len(args), len(vs))
	}
	for i, v := range vs {
		if t := verbType(v); t != nil && !types.Equal(args[i].Type(), t) {
			return nil, fmt.Errorf("format %q: arg %d for %%%c: got %s, want %s", format, i+1, v, args[i].Type(), t)
		}
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		i++
		c := format[i]
		if c == '%' {
			b.WriteByte('%')
			continue
		}
		a := args[n]
		n++
		switch c {
		case 'q':
			b.WriteString(strconv.Quote(string(a.(values.Str))))
		case 'T':
			b.WriteString(a.Type().String())
		default:
			b.WriteString(Format(a))
		}
	}
	return values.Str(b.String()), nil
}

// Format prints a value the way %v (and %s, %d, %f, %t) do: strings bare,
// floats in their shortest form, containers in mcl syntax.
func Format(v values.Value) string {
	switch x := v.(type) {
	case values.Str:
		return string(x)
	case values.Float:
		return strconv.FormatFloat(float64(x), 'f', -1, 64)
	}
	return v.String()
}
