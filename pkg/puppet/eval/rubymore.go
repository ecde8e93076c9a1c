package eval

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// More of the Ruby templates use: $1..$9 after a regexp match,
// scope.to_hash, x[k] = v, and Hash.new with a default.

// rscopeHash is scope.to_hash: every variable visible in the template's
// scope that is not undef, by name. The template may ask for a key; it
// may not walk the hash (the engine does not list every fact).
type rscopeHash struct{ p syntax.Pos }

// scopeHashMethod answers the methods of scope.to_hash the engine knows
// exactly: has_key? and its synonyms, [] and fetch with a default.
func (r *rctx) scopeHashMethod(p syntax.Pos, name string, args []any) any {
	value := func() (any, bool) {
		k, ok := args[0].(string)
		if !ok || k == "" || strings.Contains(k, "::") {
			return nil, false // its keys are plain variable names
		}
		v := r.lookupvar(p, k)
		return v, v != nil
	}
	switch {
	case len(args) == 1 && (name == "has_key?" || name == "key?" || name == "include?" || name == "member?"):
		_, ok := value()
		return ok
	case len(args) == 1 && name == "[]":
		v, _ := value()
		return v
	case len(args) == 2 && name == "fetch":
		if v, ok := value(); ok {
			return v
		}
		return args[1]
	}
	r.fail(p, "the method "+name+" of scope.to_hash")
	return nil
}

// The last match ($~) of the template: set by =~, !~, match and a
// regexp in case/when; a method that may set it otherwise (gsub, scan,
// ...) makes it unknown, and $1 is then refused.
type rmatchState struct {
	groups []any // nil: no match; else the groups, nil where one did not take part
	lost   bool
}

// setMatch records the result of matching re against s and returns the
// match's index (as a Ruby integer) or nil.
func (r *rctx) setMatch(re *regexp.Regexp, s string) any {
	loc := re.FindStringSubmatchIndex(s)
	r.match = rmatchState{}
	if loc == nil {
		return nil
	}
	for i := 0; i < len(loc); i += 2 {
		if loc[i] < 0 {
			r.match.groups = append(r.match.groups, nil)
		} else {
			r.match.groups = append(r.match.groups, s[loc[i]:loc[i+1]])
		}
	}
	return int64(len([]rune(s[:loc[0]])))
}

// nthRef is $n.
func (r *rctx) nthRef(p syntax.Pos, n int64) any {
	if r.match.lost {
		r.fail(p, "$"+strconv.FormatInt(n, 10)+" after a method that sets the last match in a way the engine does not follow")
	}
	if int(n) >= len(r.match.groups) {
		return nil
	}
	return r.match.groups[n]
}

// regexpArg makes the last match unknown when a method other than the
// ones that set it as the engine does gets a regexp.
func (r *rctx) regexpArg(name string, args []any) {
	if name == "match?" {
		return
	}
	for _, a := range args {
		if _, ok := a.(*regexp.Regexp); ok {
			r.match.lost = true
		}
	}
}

// matchOp is =~ and !~ with a string and a regexp on either side.
func (r *rctx) matchOp(n *rnode, l, rv any) any {
	re, s := rv, l
	if _, ok := l.(*regexp.Regexp); ok {
		if n.a.kind == "regex" && strings.Contains(n.a.val.(string), "(?<") {
			r.fail(n.pos, "named groups in a regexp literal left of =~ (they set local variables)")
		}
		re, s = l, rv
	}
	rx, ok := re.(*regexp.Regexp)
	if !ok {
		r.fail(n.pos, "=~ other than a string against a regexp")
	}
	str, isStr := s.(string)
	switch {
	case s == nil && l == nil:
		// nil =~ re is nil and leaves $~ alone
		return n.name == "!~"
	case s == nil:
		// re =~ nil is nil and clears $~
		r.match = rmatchState{}
		return n.name == "!~"
	case !isStr:
		r.fail(n.pos, "=~ other than a string against a regexp")
	}
	v := r.setMatch(rx, str)
	if n.name == "!~" {
		return v == nil
	}
	return v
}

// indexAssign is x[k] = v on a hash or an array the template made.
func (r *rctx) indexAssign(env *renv, n *rnode) any {
	recv := r.eval(env, n.recv)
	args := r.args(env, n.args)
	v := r.eval(env, n.a)
	if len(args) != 1 {
		r.fail(n.pos, "[]= with "+strconv.Itoa(len(args))+" arguments")
	}
	switch x := recv.(type) {
	case *rhash:
		if x.puppet {
			r.fail(n.pos, "changing a hash that comes from Puppet")
		}
		x.set(args[0], v)
		return v
	case *rarray:
		i, ok := args[0].(int64)
		if x.puppet || !ok || i < -int64(len(x.v)) || i > int64(len(x.v))+100000 {
			r.fail(n.pos, "this Array#[]=")
		}
		if i < 0 {
			i += int64(len(x.v))
		}
		for int64(len(x.v)) <= i {
			x.v = append(x.v, nil)
		}
		x.v[i] = v
		return v
	}
	r.fail(n.pos, "[]= on a "+rubyClass(recv))
	return nil
}

// classMethod handles Hash.new and Hash.new(default).
func (r *rctx) classMethod(p syntax.Pos, c rclass, name string, args []any, blk *rblock) any {
	if c == "Hash" && name == "new" && len(args) <= 1 && blk == nil {
		h := newRHash()
		if len(args) == 1 {
			h.def = args[0]
		}
		return h
	}
	r.fail(p, "the class method "+string(c)+"."+name)
	return nil
}

// rmatchData is a MatchData: the groups of a match.
type rmatchData struct {
	groups []any
	names  []string // the groups' names ("" for a numbered one)
}

// inspect is MatchData#inspect: #<MatchData "ab" 1:"a" 2:nil>.
func (m rmatchData) inspect() string {
	var b strings.Builder
	b.WriteString("#<MatchData " + rubyInspectValue(m.groups[0]))
	for i := 1; i < len(m.groups); i++ {
		name := strconv.Itoa(i)
		if i < len(m.names) && m.names[i] != "" {
			name = m.names[i]
		}
		b.WriteString(" " + name + ":" + rubyInspectValue(m.groups[i]))
	}
	return b.String() + ">"
}

// matchDataMethod handles md[n], md[a..b], captures, to_a and to_s.
func (r *rctx) matchDataMethod(p syntax.Pos, m rmatchData, name string, args []any) any {
	switch {
	case name == "[]" && len(args) == 1:
		switch k := args[0].(type) {
		case int64:
			if k < 0 {
				k += int64(len(m.groups))
			}
			if k < 0 || k >= int64(len(m.groups)) {
				return nil
			}
			return m.groups[k]
		case rrange:
			return r.method(p, &rarray{v: m.groups}, "[]", []any{k}, nil, nil)
		}
	case name == "captures" && len(args) == 0:
		return &rarray{v: append([]any{}, m.groups[1:]...)}
	case name == "to_a" && len(args) == 0:
		return &rarray{v: append([]any{}, m.groups...)}
	case name == "to_s" && len(args) == 0:
		return m.groups[0]
	}
	r.fail(p, "the method MatchData#"+name)
	return nil
}

// rangeSlice is what x[lo..hi] takes of a string or array of length n:
// the start and count, or in false when Ruby gives nil.
func rangeSlice(n int, rg rrange) (start, count int, in bool) {
	lo, hi, size := rg.lo, rg.hi, int64(n)
	if lo < 0 {
		lo += size
	}
	if lo < 0 || lo > size {
		return 0, 0, false
	}
	if hi < 0 {
		hi += size
	}
	if rg.excl {
		hi--
	}
	c := max(hi-lo+1, 0)
	c = min(c, size-lo)
	return int(lo), int(c), true
}
