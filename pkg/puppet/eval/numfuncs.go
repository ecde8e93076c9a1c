package eval

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Puppet's core functions on numbers and sequences: min, max, floor,
// ceiling, round, chop, slice; and stdlib's reverse. Each does what
// Puppet 7's Ruby code does (lib/puppet/functions), including its
// deprecated conversions of strings.
func init() {
	register(false, map[string]func(x *fcall) any{
		"min": minMaxFn, "max": minMaxFn,
		"floor":   floorCeilFn,
		"ceiling": floorCeilFn,
		"round": func(x *fcall) any {
			x.arity(1, 1)
			f, ok := numeric(x.args[0])
			switch {
			case !ok:
				break
			case f > 0:
				// an Integer too: Ruby adds 0.5 as a Float, and
				// converting back drops what a float cannot hold
				return x.truncate(f + 0.5)
			default:
				return x.truncate(f - 0.5)
			}
			x.fail("round() expects a Numeric, got %s", typeName(x.args[0]))
			return nil
		},
		"chop": func(x *fcall) any {
			x.arity(1, 1)
			switch v := x.args[0].(type) {
			case int64, float64:
				return v
			case string:
				return rubyChop(v)
			case []any:
				// Puppet's type of the array is Iterable of the
				// common type of its values: strings and numbers
				// together are neither all String nor all Numeric
				out := make([]any, len(v))
				strs, nums := 0, 0
				for i, el := range v {
					switch e := el.(type) {
					case string:
						out[i], strs = rubyChop(e), strs+1
					case int64, float64:
						out[i], nums = e, nums+1
					default:
						x.fail("chop() expects Strings or Numerics in the Array, got %s", typeName(el))
					}
				}
				if strs > 0 && nums > 0 {
					x.fail("chop() expects an Array of Strings or of Numerics, got both")
				}
				return out
			}
			x.fail("chop() expects a String, a Numeric or an Array of them, got %s", typeName(x.args[0]))
			return nil
		},
		"slice": sliceFn,
	})
	register(true, map[string]func(x *fcall) any{
		"reverse": func(x *fcall) any {
			if len(x.args) == 0 {
				x.fail("reverse(): Wrong number of arguments given (0 for 1)")
			}
			switch v := x.args[0].(type) {
			case string:
				return rubyReverse(v)
			case []any:
				return reversed(v)
			}
			x.fail("reverse(): Requires either array or string to work with")
			return nil
		},
	})
}

// truncate is Ruby's Integer() of a float: toward zero; a value beyond 64
// bits (a Ruby Bignum) or not finite is refused.
func (x *fcall) truncate(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1<<63 {
		x.unsupported("of a value beyond 64-bit integers")
	}
	return int64(f)
}

// decimalFloat is what Ruby's Float() and Go's ParseFloat read alike.
var decimalFloat = regexp.MustCompile(`^[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// floorCeilFn is floor() and ceiling(): an Integer as it is, a Float
// rounded down or up, a String read by Ruby's Float() first (a form other
// than plain decimals is refused).
func floorCeilFn(x *fcall) any {
	x.arity(1, 1)
	var f float64
	switch n := x.args[0].(type) {
	case int64:
		return n
	case float64:
		f = n
	case string:
		var err error
		if !decimalFloat.MatchString(n) {
			x.unsupported("of the string '" + n + "'")
		}
		if f, err = strconv.ParseFloat(n, 64); err != nil {
			x.unsupported("of the string '" + n + "'")
		}
	default:
		x.fail("%s() expects a Numeric or a String, got %s", x.c.Name, typeName(x.args[0]))
	}
	if x.c.Name == "floor" {
		return x.truncate(math.Floor(f))
	}
	return x.truncate(math.Ceil(f))
}

// rubyChop is Ruby's String#chop: the last character goes, or a final
// CR LF.
func rubyChop(s string) string {
	if strings.HasSuffix(s, "\r\n") {
		return s[:len(s)-2]
	}
	_, n := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-n]
}

// reversed returns a copy of a in reverse order (Ruby's Array#reverse).
func reversed(a []any) []any {
	out := make([]any, len(a))
	copy(out, a)
	slices.Reverse(out)
	return out
}

// rubyReverse is Ruby's String#reverse of a UTF-8 string: its characters
// in reverse order.
func rubyReverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// numericString is the pattern with which min() and max() compare two
// strings as numbers (a deprecated conversion Puppet 7 still does).
var numericString = regexp.MustCompile(`^-?[0-9]+([._eE][0-9]+)?$`)

// rubyToF is Ruby's String#to_f of a string numericString matches: an
// underscore between digits is dropped.
func rubyToF(s string) float64 {
	f, _ := strconv.ParseFloat(strings.Replace(s, "_", "", 1), 64)
	return f
}

// minMaxFn is min() and max() without a lambda: numbers compare as
// numbers, two strings that both look like numbers as Floats, other
// strings byte by byte; with values of other types each is written as
// Ruby's to_s first. Of equal values the first wins, as in Ruby.
func minMaxFn(x *fcall) any {
	if x.lambda != nil {
		x.unsupported("with a lambda")
	}
	args := x.args
	if len(args) == 1 {
		if a, ok := args[0].([]any); ok {
			args = a
		}
	}
	if len(args) == 0 {
		x.fail("%s() expects at least one value", x.c.Name)
	}
	allNum := true
	for _, v := range args {
		switch v.(type) {
		case int64, float64:
		case string:
			allNum = false
		default:
			x.unsupported("of a " + typeName(v))
		}
	}
	best := args[0]
	for _, v := range args[1:] {
		c := minMaxCompare(v, best, allNum)
		if x.c.Name == "max" && c > 0 || x.c.Name == "min" && c < 0 {
			best = v
		}
	}
	return best
}

// minMaxCompare is the <=> of min() and max().
func minMaxCompare(a, b any, allNum bool) int {
	if ia, ok := a.(int64); ok {
		if ib, ok := b.(int64); ok && allNum {
			return cmp.Compare(ia, ib)
		}
	}
	if allNum {
		fa, _ := numeric(a)
		fb, _ := numeric(b)
		return cmp.Compare(fa, fb)
	}
	as, bs := rubyToS(a), rubyToS(b)
	if numericString.MatchString(as) && numericString.MatchString(bs) {
		return cmp.Compare(rubyToF(as), rubyToF(bs))
	}
	return strings.Compare(as, bs)
}

// sliceFn is slice(collection, size): the items of an Array, Hash (as
// [key, value] pairs), String (its characters) or Integer (0 to n-1) in
// groups of size, the last one shorter. With a lambda of one parameter
// each group is passed to it; of size parameters, a group's items are,
// the last group filled up with undef (with [] for a Hash); slice then
// returns the collection.
func sliceFn(x *fcall) any {
	x.arity(2, 2)
	n, ok := x.args[1].(int64)
	if !ok || n < 1 {
		x.fail("slice() expects an Integer[1] as the size, got %s", typeName(x.args[1]))
	}
	items, isHash := x.items(x.args[0])
	var groups [][]any
	for i := 0; i < len(items); i += int(n) {
		end := min(i+int(n), len(items))
		g := make([]any, 0, end-i)
		for _, it := range items[i:end] {
			if isHash {
				g = append(g, []any{it.key, it.val})
			} else {
				g = append(g, it.val)
			}
		}
		groups = append(groups, g)
	}
	if x.lambda == nil {
		out := make([]any, len(groups))
		for i, g := range groups {
			out[i] = g
		}
		return out
	}
	return x.sliceLambda(groups, int(n), isHash)
}

// sliceLambda passes each group to slice()'s lambda.
func (x *fcall) sliceLambda(groups [][]any, n int, isHash bool) any {
	params := x.lambda.l.Params
	for _, p := range params {
		if p.Rest {
			x.unsupported("with a lambda that has a rest parameter")
		}
	}
	if len(params) != 1 && len(params) != n {
		x.e.fail(x.lambda.l.P, "slice(): block must define one parameter, or the same number of parameters as the given size of the slice (%d). Block has %d", n, len(params))
	}
	var filler any
	if isHash {
		filler = []any{}
	}
	iterating(func() {
		for _, g := range groups {
			if len(params) == 1 {
				x.e.callLambda(x.c.P, x.lambda, g)
				continue
			}
			args := append([]any(nil), g...)
			for len(args) < n {
				args = append(args, filler)
			}
			x.e.callLambda(x.c.P, x.lambda, args...)
		}
	})
	return x.args[0]
}
