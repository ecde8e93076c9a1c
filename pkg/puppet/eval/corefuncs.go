package eval

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// Functions of Puppet's core.
func init() {
	register(false, map[string]func(x *fcall) any{
		"include": includeFn, "require": includeFn, "contain": includeFn,
		"realize": realizeFn, "tag": tagFn, "tagged": taggedFn, "defined": definedFn,
		"notice": logFn, "warning": logFn, "info": logFn, "debug": logFn, "err": logFn,
		"alert": logFn, "crit": logFn, "emerg": logFn,
		"fail":             failFn,
		"template":         templateFn,
		"inline_template":  templateFn,
		"epp":              eppFn,
		"inline_epp":       eppFn,
		"file":             fileFn,
		"create_resources": createResourcesFn,
		"lookup":           lookupFn,
		"hiera":            hieraFn, "hiera_array": hieraFn, "hiera_hash": hieraFn,
		"sprintf":     sprintfFn,
		"versioncmp":  versioncmpFn,
		"regsubst":    regsubstFn,
		"split":       splitFn,
		"join":        joinFn,
		"assert_type": assertTypeFn,
		"type":        typeFn,
		"match":       matchFn,
		"sha1":        hashFn(func(b []byte) string { s := sha1.Sum(b); return hex.EncodeToString(s[:]) }),
		"md5":         hashFn(func(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }),
		"sha256":      hashFn(func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }),
		"dig":         digFn,
		"shellquote":  shellquoteFn,
		"new":         func(x *fcall) any { x.unsupported("as a function"); return nil },
	})
}

func includeFn(x *fcall) any {
	x.e.includeLike(x.s, x.c, x.args)
	return nil
}

// realizeFn realizes virtual resources by reference.
func realizeFn(x *fcall) any {
	for _, r := range x.e.refsOf(x.c.P, x.args) {
		en := x.e.entries[r.String()]
		if en == nil {
			x.fail("Failed to realize virtual resources %s", r)
		}
		x.e.realize(en)
	}
	return nil
}

// tagFn adds tags to the container of the calling code.
func tagFn(x *fcall) any {
	if en := x.e.entries[x.s.container.Ref()]; en != nil {
		en.tags = append(en.tags, tagList(x.args)...)
	}
	return nil
}

func taggedFn(x *fcall) any {
	en := x.e.entries[x.s.container.Ref()]
	if en == nil {
		return false
	}
	tags := x.e.tagsOf(en)
	for _, t := range tagList(x.args) {
		if !tags[strings.ToLower(t)] {
			return false
		}
	}
	return true
}

func logFn(x *fcall) any {
	if x.e.opts.Log != nil {
		parts := make([]string, len(x.args))
		for i, a := range x.args {
			parts[i] = toString(a)
		}
		level := strings.ToUpper(x.c.Name[:1]) + x.c.Name[1:]
		x.e.opts.Log(level + ": Scope(" + x.s.container.Ref() + "): " + strings.Join(parts, " "))
	}
	return nil
}

func failFn(x *fcall) any {
	parts := make([]string, len(x.args))
	for i, a := range x.args {
		parts[i] = toString(a)
	}
	x.fail("Evaluation Error: Error while evaluating a Function Call, %s", strings.Join(parts, " "))
	return nil
}

// templateFn renders ERB templates (template: files from modules'
// templates/, concatenated; inline_template: the strings).
func templateFn(x *fcall) any {
	var b strings.Builder
	for i, a := range x.args {
		src, path := toString(a), "inline_template"
		if x.c.Name == "template" {
			p, ok := x.e.findModuleFile(x.c.P, toString(a), "templates")
			if !ok {
				x.fail("Evaluation Error: Error while evaluating a Function Call, Could not find template '%s'", toString(a))
			}
			path, src = p, x.e.readFile(x.c.P, p)
		}
		b.WriteString(x.e.renderERB(x.s, x.c.Args[min(i, len(x.c.Args)-1)].At(), path, src))
	}
	return b.String()
}

// eppFn renders an EPP template with its parameters.
func eppFn(x *fcall) any {
	x.arity(1, 2)
	var params *hash
	if len(x.args) == 2 {
		params = x.hash(1)
	}
	src, path := x.str(0), "inline_epp"
	if x.c.Name == "epp" {
		p, ok := x.e.findModuleFile(x.c.P, src, "templates")
		if !ok {
			x.fail("Evaluation Error: Error while evaluating a Function Call, Could not find template '%s'", src)
		}
		path, src = p, x.e.readFile(x.c.P, p)
	}
	return x.e.renderEPP(x.s, x.c.P, path, src, params)
}

// fileFn returns the content of the first module file that exists.
func fileFn(x *fcall) any {
	for _, a := range x.args {
		if p, ok := x.e.findModuleFile(x.c.P, toString(a), "files"); ok {
			return x.e.readFile(x.c.P, p)
		}
	}
	x.fail("Evaluation Error: Error while evaluating a Function Call, Could not find any files from %s", toString(x.args))
	return nil
}

// definedFn reports whether every argument exists so far: a resource
// reference (declared), a "$var" (set), or the name of a class, defined
// type or resource type.
func definedFn(x *fcall) any {
	if len(x.args) == 0 {
		x.fail("defined() expects at least one argument")
	}
	e := x.e
	for _, a := range x.args {
		switch v := a.(type) {
		case ref:
			if e.entries[v.String()] == nil && (v.Type != "File" || e.files[filePathKey(v.Title)] == nil) {
				return false
			}
		case *ptype:
			if v.name == "Class" && len(v.params) == 1 {
				if e.declared[strings.ToLower(toString(v.params[0]))] == nil {
					return false
				}
				continue
			}
			if len(v.params) == 0 && !isCoreType(v.name) {
				if !e.isResourceType(strings.ToLower(v.name)) {
					return false
				}
				continue
			}
			x.unsupported("of the type " + v.String())
		case string:
			if name, ok := strings.CutPrefix(v, "$"); ok {
				if !e.varDefined(x.s, name) {
					return false
				}
				continue
			}
			name := strings.ToLower(strings.TrimPrefix(v, "::"))
			if e.classes[name] == nil && e.defines[name] == nil && !e.knownType(name) {
				e.loadModule(name)
				if e.classes[name] == nil && e.defines[name] == nil {
					return false
				}
			}
		default:
			x.unsupported("of " + typeName(a))
		}
	}
	return true
}

// varDefined reports whether a variable is set (qualified or along the
// lexical chain).
func (e *evaluator) varDefined(s *scope, name string) bool {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		cls, v := strings.TrimPrefix(name[:i], "::"), name[i+2:]
		sc := e.top
		if cls != "" {
			sc = e.declared[strings.ToLower(cls)]
		}
		if sc == nil {
			return false
		}
		_, ok := sc.vars[v]
		return ok
	}
	for sc := s; sc != nil; sc = sc.parent {
		if _, ok := sc.vars[name]; ok {
			return true
		}
	}
	return false
}

// createResourcesFn declares the resources of a hash (title =>
// attributes) with optional default attributes.
func createResourcesFn(x *fcall) any {
	x.arity(2, 3)
	typ := strings.ToLower(strings.TrimPrefix(toString(x.args[0]), "::"))
	titles := x.hash(1)
	defaults := newHash()
	if len(x.args) == 3 {
		defaults = x.hash(2)
	}
	x.e.declareHash(x.s, x.c.P, typ, titles, defaults, false)
	return nil
}

// declareHash declares title => attributes resources (create_resources,
// ensure_resources); virtual marks them virtual.
func (e *evaluator) declareHash(s *scope, p syntax.Pos, typ string, titles, defaults *hash, virtual bool) {
	stmt := &syntax.Resource{P: p, Type: typ, Virtual: virtual}
	for _, title := range titles.keys {
		attrs := newAttrSet(len(defaults.keys))
		for _, k := range defaults.keys {
			attrs.add(k, defaults.m[k])
		}
		switch body := titles.m[title].(type) {
		case *hash:
			for _, k := range body.keys {
				attrs.set(k, body.m[k])
			}
		case nil:
		default:
			e.fail(p, "create_resources(): the attributes of '%s' must be a Hash", title)
		}
		if typ == "class" {
			e.declareClass(s, p, title, attrs.toMap(), true)
			continue
		}
		e.declareOne(s, stmt, p, typ, title, attrs)
	}
}

// sprintfFn formats like Ruby's format with the common verbs.
func sprintfFn(x *fcall) any {
	if len(x.args) == 0 {
		x.fail("sprintf() expects a format")
	}
	return x.e.sprintf(x.c, toString(x.args[0]), x.args[1:])
}

// sprintfVerb matches a verb of a format, with its flags, width and
// precision.
var sprintfVerb = regexp.MustCompile(`%(?:<\w+>)?[-+ 0#]*([0-9]*)(?:\.([0-9]+))?[a-zA-Z%]`)

// maxWidth is the largest width or precision of a verb the engine formats,
// as Go's fmt does; Ruby's format takes larger ones.
const maxWidth = 1_000_000

// tooWide reports whether the digits d of a width or precision say more
// than maxWidth.
func tooWide(d string) bool {
	n, err := strconv.Atoi(d)
	return d != "" && (err != nil || n > maxWidth)
}

func (e *evaluator) sprintf(c *syntax.Call, format string, args []any) string {
	verbs := sprintfVerb.FindAllStringIndex(format, -1)
	var b strings.Builder
	last, i := 0, 0
	for _, m := range verbs {
		b.WriteString(format[last:m[0]])
		last = m[1]
		v := format[m[0]:m[1]]
		verb := v[len(v)-1]
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if strings.Contains(v, "<") {
			panic(syntax.Unsupported(c.P, "sprintf with named references"))
		}
		if n := sprintfVerb.FindStringSubmatch(v); tooWide(n[1]) || tooWide(n[2]) {
			panic(syntax.Unsupported(c.P, fmt.Sprintf("sprintf with a width or precision above %d", maxWidth)))
		}
		if i >= len(args) {
			e.fail(c.P, "sprintf(): too few arguments for %q", format)
		}
		b.WriteString(e.formatOne(c, v, verb, args[i]))
		e.checkText(c.P, b.Len())
		i++
	}
	b.WriteString(format[last:])
	return b.String()
}

func (e *evaluator) formatOne(c *syntax.Call, spec string, verb byte, a any) string {
	goSpec := spec
	switch verb {
	case 's':
		return sprintfGo(goSpec, toString(a))
	case 'p':
		return sprintfGo(spec[:len(spec)-1]+"s", quoted(a))
	case 'd', 'i', 'x', 'X', 'o', 'b', 'B':
		n, ok := a.(int64)
		if !ok {
			f, isF := a.(float64)
			if !isF {
				if s, isS := a.(string); isS {
					if v, ok := e.toNumber(s); ok {
						return e.formatOne(c, spec, verb, v)
					}
				}
				e.fail(c.P, "sprintf(): %%%c needs a number, got %s", verb, typeName(a))
			}
			n = int64(f)
		}
		if verb == 'i' {
			goSpec = spec[:len(spec)-1] + "d"
		}
		if strings.Contains(goSpec, "#") || verb == 'B' {
			panic(syntax.Unsupported(c.P, "sprintf verb "+spec))
		}
		return sprintfGo(goSpec, n)
	case 'f', 'e', 'E', 'g', 'G':
		f, ok := numeric(a)
		if !ok {
			if s, isS := a.(string); isS {
				if v, ok := e.toNumber(s); ok {
					f, _ = numeric(v)
					return sprintfGo(goSpec, f)
				}
			}
			e.fail(c.P, "sprintf(): %%%c needs a number, got %s", verb, typeName(a))
		}
		return sprintfGo(goSpec, f)
	}
	panic(syntax.Unsupported(c.P, "sprintf verb "+spec))
}

// versioncmpFn compares two version strings as Puppet does: -1, 0 or 1.
func versioncmpFn(x *fcall) any {
	x.arity(2, 2)
	return int64(versioncmp(x.str(0), x.str(1)))
}

var versionParts = regexp.MustCompile(`-|\.|\d+|[^-.\d]+`)

func versioncmp(a, b string) int {
	if a == b {
		return 0
	}
	ap, bp := versionParts.FindAllString(a, -1), versionParts.FindAllString(b, -1)
	for len(ap) > 0 && len(bp) > 0 {
		x, y := ap[0], bp[0]
		ap, bp = ap[1:], bp[1:]
		if x == y {
			continue
		}
		switch {
		case x == "-" && y == "-":
		case x == "-":
			return -1
		case y == "-":
			return 1
		case x == ".":
			return -1
		case y == ".":
			return 1
		case isDigits(x) && isDigits(y):
			if c := cmpDigits(x, y); c != 0 {
				return c
			}
			if c := strings.Compare(x, y); c != 0 {
				// leading zeros: Ruby compares "01" and "1" as strings
				return c
			}
		default:
			return strings.Compare(strings.ToUpper(x), strings.ToUpper(y))
		}
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func cmpDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// regsubstFn replaces the first (or with flag G every) match of a regexp
// in a string or in each string of an array.
func regsubstFn(x *fcall) any {
	x.arity(3, 5)
	var re *regexp.Regexp
	flags := ""
	if len(x.args) >= 4 {
		flags = toString(x.args[3])
	}
	if strings.ContainsAny(flags, "E") || len(x.args) == 5 {
		x.unsupported("with flags " + flags)
	}
	switch p := x.args[1].(type) {
	case *regexp.Regexp:
		re = p
	case string:
		pat := p
		if strings.Contains(flags, "I") {
			pat = "(?i)" + pat
		}
		if strings.Contains(flags, "M") {
			pat = "(?s)" + pat // Ruby's multiline: . matches a line break
		}
		re = x.e.regexp(x.c.P, pat)
	default:
		x.fail("regsubst() expects a pattern, got %s", typeName(x.args[1]))
	}
	repl := rubyReplacement(toString(x.args[2]))
	global := strings.Contains(flags, "G")
	sub := func(s string) string {
		if global {
			return re.ReplaceAllString(s, repl)
		}
		loc := re.FindStringSubmatchIndex(s)
		if loc == nil {
			return s
		}
		return s[:loc[0]] + string(re.ExpandString(nil, repl, s, loc)) + s[loc[1]:]
	}
	return x.eachString(func(s string) any { return sub(s) })
}

// eachString applies fn to the first argument, a String, or to each
// element of it, an Array (giving an Array): the rule of regsubst() and
// match().
func (x *fcall) eachString(fn func(string) any) any {
	switch v := x.args[0].(type) {
	case string:
		return fn(v)
	case []any:
		out := make([]any, len(v))
		for i, el := range v {
			out[i] = fn(toString(el))
		}
		return out
	}
	x.fail("%s() expects a String or an Array, got %s", x.c.Name, typeName(x.args[0]))
	return nil
}

// rubyReplacement turns Ruby's \0..\9 and \\ in a replacement into Go's
// ${n} and $$.
func rubyReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			b.WriteString("${" + string(r[i+1]) + "}")
			i++
		case c == '\\' && i+1 < len(r) && r[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func splitFn(x *fcall) any {
	x.arity(2, 2)
	s := x.str(0)
	re := x.pattern(1)
	if re == nil {
		x.fail("split() expects a pattern, got %s", typeName(x.args[1]))
	}
	out := []any{}
	if s == "" {
		return out
	}
	parts := re.Split(s, -1)
	if re.String() == "" {
		parts = strings.Split(s, "")
	}
	for _, part := range parts {
		out = append(out, part)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func joinFn(x *fcall) any {
	x.arity(1, 2)
	sep := ""
	if len(x.args) == 2 {
		sep = toString(x.args[1])
	}
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		if l, ok := v.([]any); ok {
			for _, el := range l {
				walk(el)
			}
			return
		}
		parts = append(parts, toString(v))
		x.e.checkElements(x.c.P, len(parts))
	}
	for _, el := range x.array(0) {
		walk(el)
	}
	return joinText("", parts, sep, "")
}

// assertTypeFn returns the value when it matches the type, else calls
// the lambda or fails.
func assertTypeFn(x *fcall) any {
	x.arity(2, 2)
	t, ok := x.args[0].(*ptype)
	if !ok {
		if s, isS := x.args[0].(string); isS {
			v, err := syntax.ParseExpr(x.c.P, s)
			if err != nil {
				panic(err)
			}
			t, ok = x.e.expr(x.s, v).(*ptype)
		}
		if !ok {
			x.fail("assert_type() expects a type, got %s", typeName(x.args[0]))
		}
	}
	if x.e.isInstance(x.c.P, x.args[1], t) {
		return x.args[1]
	}
	if x.lambda != nil {
		return x.e.callLambda(x.c.P, x.lambda, t, &ptype{name: typeName(x.args[1])})
	}
	x.fail("assert_type(): expects a %s value, got %s", t, typeName(x.args[1]))
	return nil
}

// typeFn returns the generalized type of a value.
func typeFn(x *fcall) any {
	x.arity(1, 2)
	if len(x.args) == 2 && x.args[1] != "generalized" {
		x.unsupported("with inference " + toString(x.args[1]))
	}
	if len(x.args) == 1 {
		x.unsupported("without 'generalized'")
	}
	switch x.args[0].(type) {
	case []any, *hash:
		x.unsupported("of a collection")
	}
	return &ptype{name: typeName(x.args[0])}
}

// pattern returns argument i, a Regexp or a String compiled as one, or
// nil when it is neither.
func (x *fcall) pattern(i int) *regexp.Regexp {
	switch p := x.args[i].(type) {
	case *regexp.Regexp:
		return p
	case string:
		return x.e.regexp(x.c.P, p)
	}
	return nil
}

// matchFn returns the match of a regexp (whole match and groups), or
// undef.
func matchFn(x *fcall) any {
	x.arity(2, 2)
	re := x.pattern(1)
	if re == nil {
		x.unsupported("with a " + typeName(x.args[1]))
	}
	one := func(s string) any {
		m := re.FindStringSubmatch(s)
		if m == nil {
			return nil
		}
		out := make([]any, len(m))
		for i, g := range m {
			out[i] = g
		}
		return out
	}
	return x.eachString(one)
}

func hashFn(f func([]byte) string) func(x *fcall) any {
	return func(x *fcall) any {
		x.arity(1, 1)
		return f([]byte(x.str(0)))
	}
}

// digFn follows keys and indexes; a missing step gives undef.
func digFn(x *fcall) any {
	if len(x.args) == 0 {
		x.fail("dig() expects a value")
	}
	v := x.args[0]
	for _, k := range x.args[1:] {
		switch c := v.(type) {
		case nil:
			return nil
		case *hash:
			ks, ok := k.(string)
			if !ok {
				return nil
			}
			nv, found := c.m[ks]
			if !found && c == x.e.top.vars["facts"] {
				nv, _ = x.e.factValue(x.c.P, ks)
			}
			v = nv
		case []any:
			i, ok := k.(int64)
			if !ok {
				x.fail("dig(): an Array index must be an Integer")
			}
			if i < 0 || i >= int64(len(c)) {
				return nil
			}
			v = c[i]
		default:
			x.fail("dig(): cannot dig into %s", typeName(v))
		}
	}
	return v
}

// sortValues sorts values as Puppet's sort does: numbers numerically,
// strings by their bytes.
func sortValues(x *fcall, arr []any) []any {
	out := append([]any{}, arr...)
	sort.SliceStable(out, func(i, j int) bool {
		a, aok := numeric(out[i])
		b, bok := numeric(out[j])
		if aok && bok {
			return a < b
		}
		as, aIsS := out[i].(string)
		bs, bIsS := out[j].(string)
		if aIsS && bIsS {
			return as < bs
		}
		x.fail("sort(): cannot compare %s with %s", typeName(out[i]), typeName(out[j]))
		return false
	})
	return out
}

func sprintfGo(spec string, v any) string { return fmt.Sprintf(spec, v) }

// shellquoteFn quotes its arguments (flattened) for a POSIX shell the way
// Puppet's shellquote does: words of safe characters as they are, others
// in double quotes, in single quotes when they hold characters double
// quotes do not protect, else in double quotes with those escaped.
func shellquoteFn(x *fcall) any {
	var words []string
	for _, w := range flatStrings(x.args3()) {
		switch {
		case w != "" && strings.Trim(w, shellSafe) == "":
			words = append(words, w)
		case !strings.ContainsAny(w, shellDangerous):
			words = append(words, `"`+w+`"`)
		case !strings.Contains(w, "'"):
			words = append(words, "'"+w+"'")
		default:
			var b strings.Builder
			b.WriteByte('"')
			for i := 0; i < len(w); i++ {
				if strings.IndexByte(shellDangerous, w[i]) >= 0 {
					b.WriteByte('\\')
				}
				b.WriteByte(w[i])
			}
			b.WriteByte('"')
			words = append(words, b.String())
		}
	}
	return strings.Join(words, " ")
}

const (
	shellSafe      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-"
	shellDangerous = "!\"`$\\"
)
