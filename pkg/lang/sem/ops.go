package sem

import (
	"fmt"
	"math"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func (n *binIR) eval(p *pass, rs *rscope) (values.Value, error) {
	a, err := p.eval(n.a, rs)
	if err != nil {
		return nil, err
	}
	// and/or short-circuit.
	switch n.op {
	case "and":
		if !a.(values.Bool) {
			return values.Bool(false), nil
		}
		return p.eval(n.b, rs)
	case "or":
		if a.(values.Bool) {
			return values.Bool(true), nil
		}
		return p.eval(n.b, rs)
	}
	b, err := p.eval(n.b, rs)
	if err != nil {
		return nil, err
	}
	v, err := Operate(n.op, a, b)
	return v, at(n.pos, err)
}

// Operate applies a binary operator to two values of the same type.
func Operate(op string, a, b values.Value) (values.Value, error) {
	switch op {
	case "==":
		return values.Bool(values.Equal(a, b)), nil
	case "!=":
		return values.Bool(!values.Equal(a, b)), nil
	case "in":
		for _, e := range b.(*values.List).V {
			if values.Equal(a, e) {
				return values.Bool(true), nil
			}
		}
		return values.Bool(false), nil
	}
	switch x := a.(type) {
	case values.Str:
		if op == "+" {
			return x + b.(values.Str), nil
		}
	case values.Int:
		y := b.(values.Int)
		switch op {
		case "+":
			return x + y, nil
		case "-":
			return x - y, nil
		case "*":
			return x * y, nil
		case "/":
			if y == 0 {
				return nil, funcs.Catchablef("division by zero")
			}
			return values.Float(float64(x) / float64(y)), nil
		case "<":
			return values.Bool(x < y), nil
		case ">":
			return values.Bool(x > y), nil
		case "<=":
			return values.Bool(x <= y), nil
		case ">=":
			return values.Bool(x >= y), nil
		}
	case values.Float:
		y := b.(values.Float)
		switch op {
		case "+":
			return x + y, nil
		case "-":
			return x - y, nil
		case "*":
			return x * y, nil
		case "/":
			if y == 0 {
				return nil, funcs.Catchablef("division by zero")
			}
			r := float64(x) / float64(y)
			if math.IsInf(r, 0) || math.IsNaN(r) {
				return nil, funcs.Catchablef("division result is not a number")
			}
			return values.Float(r), nil
		case "<":
			return values.Bool(x < y), nil
		case ">":
			return values.Bool(x > y), nil
		case "<=":
			return values.Bool(x <= y), nil
		case ">=":
			return values.Bool(x >= y), nil
		}
	}
	return nil, fmt.Errorf("operator %s does not apply to %s", op, a.Type())
}
