package eval

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

func (r *rctx) binop(env *renv, n *rnode) any {
	if n.name == "<<" && n.a.kind == "ident" {
		// s << x and a << x append to the variable's value
		old, ok := env.lookup(n.a.name)
		if ok {
			v := r.eval(env, n.b)
			switch x := old.(type) {
			case string:
				s := x + rubyToS(v)
				env.assign(n.a.name, s)
				return s
			case *rarray:
				x.v = append(x.v, v)
				return x
			}
		}
	}
	l, rv := r.eval(env, n.a), r.eval(env, n.b)
	switch n.name {
	case "==":
		return rEqual(l, rv)
	case "!=":
		return !rEqual(l, rv)
	case "===":
		return r.caseEq(n.pos, l, rv)
	case "=~", "!~":
		return r.matchOp(n, l, rv)
	case "<=>":
		c, ok := rCompare(l, rv)
		if !ok {
			return nil
		}
		return int64(c)
	case "<", ">", "<=", ">=":
		c, ok := rCompare(l, rv)
		if !ok {
			r.fail(n.pos, "comparing "+rubyClass(l)+" with "+rubyClass(rv))
		}
		return ordered(n.name, c)
	case "<<":
		if a, ok := l.(*rarray); ok {
			r.e.checkElements(n.pos, len(a.v)+1)
			a.v = append(a.v, rv)
			return a
		}
		if s, ok := l.(string); ok {
			t := rubyToS(rv)
			r.e.checkText(n.pos, len(s)+len(t))
			return s + t
		}
	}
	return r.arith(n.pos, n.name, l, rv)
}

func (r *rctx) arith(p syntax.Pos, op string, l, rv any) any {
	switch x := l.(type) {
	case string:
		switch op {
		case "+":
			s, ok := rv.(string)
			if !ok {
				r.fail(p, "String + "+rubyClass(rv))
			}
			r.e.checkText(p, len(x)+len(s))
			return x + s
		case "*":
			n, ok := rv.(int64)
			if !ok || n < 0 || n > 100000 {
				r.fail(p, "String * "+rubyClass(rv))
			}
			r.e.checkText(p, len(x)*int(n))
			return strings.Repeat(x, int(n))
		case "%":
			args := []any{rv}
			if a, ok := rv.(*rarray); ok {
				args = a.v
			}
			return r.format(p, x, args)
		}
	case *rarray:
		y, ok := rv.(*rarray)
		if !ok {
			break
		}
		switch op {
		case "+":
			r.e.checkElements(p, len(x.v)+len(y.v))
			return &rarray{v: append(append([]any{}, x.v...), y.v...)}
		case "-":
			out := &rarray{}
			for _, v := range x.v {
				keep := true
				for _, w := range y.v {
					if rEqual(v, w) {
						keep = false
					}
				}
				if keep {
					out.v = append(out.v, v)
				}
			}
			return out
		}
	case int64, float64:
		if _, ok := numeric(rv); !ok {
			break
		}
		li, lInt := l.(int64)
		ri, rInt := rv.(int64)
		if lInt && rInt {
			if (op == "/" || op == "%") && ri == 0 {
				r.fail(p, "division by zero")
			}
			return r.e.intArith(p, op, li, ri)
		}
		lf, _ := numeric(l)
		rf, _ := numeric(rv)
		if f, ok := floatArith(op, lf, rf); ok {
			return f
		}
	}
	r.fail(p, rubyClass(l)+" "+op+" "+rubyClass(rv))
	return nil
}

// format implements Ruby's format / String#% with the common verbs.
func (r *rctx) format(p syntax.Pos, f string, args []any) string {
	pargs := make([]any, len(args))
	for i, a := range args {
		pargs[i] = fromRuby(r, p, a)
	}
	return r.e.sprintf(&syntax.Call{P: p, Name: "format"}, f, pargs)
}

// yield calls a block with the values; a block with several parameters
// takes an array's elements apart, as Ruby does.
func (r *rctx) yield(p syntax.Pos, env *renv, blk *rblock, vals ...any) any {
	if blk == nil {
		r.fail(p, "a method that needs a block, without one")
	}
	if blk.sym != "" {
		if len(vals) == 0 {
			r.fail(p, "&:"+blk.sym+" without a value")
		}
		return r.method(p, vals[0], blk.sym, nil, nil, env)
	}
	if len(blk.params) > 1 && len(vals) == 1 {
		if a, ok := vals[0].(*rarray); ok {
			vals = a.v
		}
	}
	be := &renv{vars: map[string]any{}, parent: env}
	for i, name := range blk.params {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		be.vars[name] = v
	}
	r.e.enter(p)
	defer r.e.leave()
	return r.nextable(func() any { return r.block(be, blk.body) })
}

func (r *rctx) nextable(f func() any) (result any) {
	defer func() {
		if x := recover(); x != nil {
			ns, ok := x.(rnextSignal)
			if !ok {
				panic(x)
			}
			result = ns.v
		}
	}()
	return f()
}

// breakable runs an iteration; break ends it with its value.
func (r *rctx) breakable(f func() any) (result any) {
	defer func() {
		if x := recover(); x != nil {
			bs, ok := x.(rbreakSignal)
			if !ok {
				panic(x)
			}
			result = bs.v
		}
	}()
	return f()
}

// elems returns what an iteration over v visits: array elements, hash
// pairs, range integers.
func (r *rctx) elems(p syntax.Pos, v any) []any {
	switch x := v.(type) {
	case *rarray:
		return x.v
	case *rhash:
		out := make([]any, len(x.keys))
		for i, k := range x.keys {
			out[i] = &rarray{v: []any{k, x.m[keyOf(k)]}}
		}
		return out
	case rrange:
		var out []any
		hi := x.hi
		if x.excl {
			hi--
		}
		if hi-x.lo > 100000 {
			r.fail(p, "a range of more than 100000 numbers")
		}
		for i := x.lo; i <= hi; i++ {
			out = append(out, i)
		}
		return out
	case nil:
		r.fail(p, "iterating over nil (undefined method for nil)")
	}
	r.fail(p, "iterating over a "+rubyClass(v))
	return nil
}

// method calls a method on a value.
func (r *rctx) method(p syntax.Pos, recv any, name string, args []any, blk *rblock, env *renv) any {
	if _, ok := recv.(rscopeHash); ok {
		return r.scopeHashMethod(p, name, args)
	}
	r.regexpArg(name, args)
	argc := func(lo, hi int) {
		if len(args) < lo || len(args) > hi {
			r.fail(p, fmt.Sprintf("%s.%s with %d arguments", rubyClass(recv), name, len(args)))
		}
	}
	switch name {
	case "nil?":
		argc(0, 0)
		return recv == nil
	case "to_s":
		argc(0, 0)
		return rubyToS(recv)
	case "inspect":
		argc(0, 0)
		return rubyInspectValue(recv)
	case "is_a?", "kind_of?", "instance_of?":
		argc(1, 1)
		c, ok := args[0].(rclass)
		if !ok {
			r.fail(p, name+" of a non-class")
		}
		return rIsA(recv, c)
	case "class":
		argc(0, 0)
		return rclass(rubyClass(recv))
	case "==", "eql?", "equal?":
		argc(1, 1)
		return rEqual(recv, args[0]) && (name == "==" || rubyClass(recv) == rubyClass(args[0]))
	case "!":
		return !rtruthy(recv)
	case "respond_to?":
		r.fail(p, "respond_to?")
	case "frozen?":
		return true
	}
	switch x := recv.(type) {
	case string:
		return r.stringMethod(p, x, name, args, blk, env, argc)
	case rsym:
		if name == "to_sym" {
			return x
		}
		return r.stringMethod(p, string(x), name, args, blk, env, argc)
	case *rarray:
		return r.arrayMethod(p, x, name, args, blk, env, argc)
	case *rhash:
		return r.hashMethod(p, x, name, args, blk, env, argc)
	case int64, float64:
		return r.numberMethod(p, recv, name, args, blk, env, argc)
	case *regexp.Regexp:
		if name == "match" || name == "match?" {
			argc(1, 1)
			switch v := args[0].(type) {
			case nil: // Regexp#match(nil) is nil, match?(nil) false
				if name == "match?" {
					return false
				}
				return nil
			case string, rsym:
				return r.stringMethod(p, rubyToS(v), name, []any{x}, blk, env, argc)
			}
		}
	case rmatchData:
		return r.matchDataMethod(p, x, name, args)
	case rrange:
		switch name {
		case "each", "map", "collect", "to_a", "select", "reject", "each_with_index":
			return r.arrayMethod(p, &rarray{v: r.elems(p, x)}, name, args, blk, env, argc)
		}
	case nil:
		switch name {
		case "to_a":
			return &rarray{}
		case "to_i":
			return int64(0)
		case "empty?":
			r.fail(p, "undefined method 'empty?' for nil")
		}
	case bool:
		if name == "&" || name == "|" {
			argc(1, 1)
			if name == "&" {
				return x && rtruthy(args[0])
			}
			return x || rtruthy(args[0])
		}
	}
	r.fail(p, "the method "+rubyClass(recv)+"#"+name)
	return nil
}

func (r *rctx) stringMethod(p syntax.Pos, s, name string, args []any, blk *rblock, env *renv, argc func(int, int)) any {
	switch name {
	case "to_str":
		return s
	case "to_sym":
		return rsym(s)
	case "to_i":
		argc(0, 0)
		m := regexp.MustCompile(`^\s*[-+]?\d[\d_]*`).FindString(s)
		n, _ := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(m), "_", ""), 10, 64)
		return n
	case "to_f":
		argc(0, 0)
		m := regexp.MustCompile(`^\s*[-+]?\d[\d_]*(\.\d+)?([eE][-+]?\d+)?`).FindString(s)
		f, _ := strconv.ParseFloat(strings.TrimSpace(m), 64)
		return f
	case "length", "size":
		argc(0, 0)
		return int64(len([]rune(s)))
	case "empty?":
		argc(0, 0)
		return s == ""
	case "upcase":
		return strings.ToUpper(s)
	case "downcase":
		return strings.ToLower(s)
	case "capitalize":
		return capitalize(s)
	case "strip":
		return strings.TrimSpace(s)
	case "lstrip":
		return strings.TrimLeftFunc(s, unicode.IsSpace)
	case "rstrip":
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case "chomp":
		argc(0, 0)
		if strings.HasSuffix(s, "\r\n") {
			return s[:len(s)-2]
		}
		return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	case "include?":
		argc(1, 1)
		return strings.Contains(s, rubyToS(args[0]))
	case "start_with?", "end_with?":
		for _, a := range args {
			if name == "start_with?" && strings.HasPrefix(s, rubyToS(a)) || name == "end_with?" && strings.HasSuffix(s, rubyToS(a)) {
				return true
			}
		}
		return false
	case "index":
		argc(1, 1)
		sub, ok := args[0].(string)
		if !ok {
			r.fail(p, "String#index of a "+rubyClass(args[0]))
		}
		i := strings.Index(s, sub)
		if i < 0 {
			return nil
		}
		return int64(len([]rune(s[:i])))
	case "split":
		return r.split(p, s, args)
	case "gsub", "sub":
		return r.substitute(p, s, name, args, blk)
	case "lines":
		out := &rarray{}
		for _, l := range strings.SplitAfter(s, "\n") {
			if l != "" {
				out.v = append(out.v, l)
			}
		}
		return out
	case "ljust", "rjust", "center":
		argc(1, 2)
		n, ok := args[0].(int64)
		if !ok {
			r.fail(p, name+" of a non-integer width")
		}
		pad := " "
		if len(args) == 2 {
			pad = rubyToS(args[1])
		}
		return justify(s, int(n), pad, name)
	case "match", "match?":
		argc(1, 1)
		re, ok := args[0].(*regexp.Regexp)
		if !ok {
			// String#match makes a regexp of a string: Regexp.new(str)
			s, isStr := args[0].(string)
			if !isStr {
				r.fail(p, "String#"+name+" of a "+rubyClass(args[0]))
			}
			re = r.regexp(p, s, "")
		}
		if name == "match?" {
			return re.MatchString(s)
		}
		if r.setMatch(re, s) == nil {
			return nil
		}
		return rmatchData{groups: r.match.groups, names: re.SubexpNames()}
	case "+", "*", "%":
		argc(1, 1)
		return r.arith(p, name, s, args[0])
	case "[]":
		return r.stringIndex(p, s, args)
	case "tr":
		argc(2, 2)
		from, to := rubyToS(args[0]), rubyToS(args[1])
		if len(from) != len(to) || strings.ContainsAny(from+to, "-^\\") {
			r.fail(p, "tr with ranges or unequal sets")
		}
		return strings.NewReplacer(pairs(from, to)...).Replace(s)
	case "squeeze":
		argc(0, 0)
		var b strings.Builder
		var last rune = -1
		for _, c := range s {
			if c != last {
				b.WriteRune(c)
			}
			last = c
		}
		return b.String()
	case "reverse":
		return rubyReverse(s)
	case "each_line":
		lines := r.stringMethod(p, s, "lines", nil, nil, env, argc).(*rarray)
		return r.arrayMethod(p, lines, "each", nil, blk, env, argc)
	}
	r.fail(p, "the method String#"+name)
	return nil
}

func pairs(from, to string) []string {
	var out []string
	for i := range from {
		out = append(out, from[i:i+1], to[i:i+1])
	}
	return out
}

func justify(s string, n int, pad, how string) string {
	l := len([]rune(s))
	if n <= l || pad == "" {
		return s
	}
	fill := func(k int) string {
		var b strings.Builder
		for b.Len() < k {
			b.WriteString(pad)
		}
		return string([]rune(b.String())[:k])
	}
	switch how {
	case "ljust":
		return s + fill(n-l)
	case "rjust":
		return fill(n-l) + s
	}
	left := (n - l) / 2
	return fill(left) + s + fill(n-l-left)
}

func (r *rctx) split(p syntax.Pos, s string, args []any) any {
	out := &rarray{}
	if len(args) > 1 {
		r.fail(p, "split with a limit")
	}
	var parts []string
	if len(args) == 0 || args[0] == " " {
		parts = strings.Fields(s)
	} else if re, ok := args[0].(*regexp.Regexp); ok {
		parts = re.Split(s, -1)
	} else {
		sep := rubyToS(args[0])
		if sep == "" {
			parts = strings.Split(s, "")
		} else {
			parts = strings.Split(s, sep)
		}
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for _, x := range parts {
		out.v = append(out.v, x)
	}
	return out
}

func (r *rctx) substitute(p syntax.Pos, s, name string, args []any, blk *rblock) any {
	if len(args) != 2 || blk != nil {
		r.fail(p, name+" with a block or a hash")
	}
	re, ok := args[0].(*regexp.Regexp)
	if !ok {
		re = regexp.MustCompile(regexp.QuoteMeta(rubyToS(args[0])))
	}
	repl := rubyReplacement(rubyToS(args[1]))
	if strings.Contains(repl, `\k`) || strings.Contains(rubyToS(args[1]), `\&`) {
		r.fail(p, name+" with \\k or \\& in the replacement")
	}
	if name == "gsub" {
		return re.ReplaceAllString(s, repl)
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return s
	}
	return s[:loc[0]] + string(re.ExpandString(nil, repl, s, loc)) + s[loc[1]:]
}

func (r *rctx) stringIndex(p syntax.Pos, s string, args []any) any {
	rs := []rune(s)
	if len(args) == 1 {
		switch k := args[0].(type) {
		case rrange:
			lo, n, in := rangeSlice(len(rs), k)
			if !in {
				return nil
			}
			return string(rs[lo : lo+n])
		case int64:
			if k < 0 {
				k += int64(len(rs))
			}
			if k < 0 || k >= int64(len(rs)) {
				return nil
			}
			return string(rs[k])
		case string:
			if strings.Contains(s, k) {
				return k
			}
			return nil
		}
	}
	if len(args) == 2 {
		v := r.e.slice(p, nil, []any{args[0], args[1]}, len(rs), func(i, n int) any { return string(rs[i : i+n]) })
		return v
	}
	r.fail(p, "this String#[]")
	return nil
}

func (r *rctx) numberMethod(p syntax.Pos, v any, name string, args []any, blk *rblock, env *renv, argc func(int, int)) any {
	switch name {
	case "to_i":
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		return v
	case "to_f":
		f, _ := numeric(v)
		return f
	case "zero?":
		f, _ := numeric(v)
		return f == 0
	case "abs":
		switch x := v.(type) {
		case int64:
			if x < 0 {
				return -x
			}
		case float64:
			if x < 0 {
				return -x
			}
		}
		return v
	case "times":
		n, _ := v.(int64)
		return r.arrayMethod(p, &rarray{v: r.elems(p, rrange{lo: 0, hi: n, excl: true})}, "each", nil, blk, env, argc)
	case "+", "-", "*", "/", "%":
		argc(1, 1)
		return r.arith(p, name, v, args[0])
	case "even?", "odd?":
		n, ok := v.(int64)
		if !ok {
			break
		}
		return (n%2 == 0) == (name == "even?")
	}
	r.fail(p, "the method "+rubyClass(v)+"#"+name)
	return nil
}
