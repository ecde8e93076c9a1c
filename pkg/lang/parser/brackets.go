package parser

// brackets tracks the brackets the parser has read and not closed. The
// parser itself pairs them; the stack is for recovery, which skips the
// rest of a statement that failed: it ends at a newline outside the
// brackets the statement opened, or at the "}" of the enclosing block.
type brackets struct {
	stack []openBracket
	// last is the index in stack of the last "(", "[" and "{" (-1 when
	// none), so that a closing bracket finds its partner at once.
	last [3]int
	// floor is the number of brackets recovery keeps: a closing bracket
	// whose partner lies below it is skipped as stray.
	floor int
}

type openBracket struct {
	kind int // index in last
	prev int // the previous bracket of the kind (its last before this)
}

// bracketKind returns the kind of bracket s opens or closes.
func bracketKind(s string) (kind int, opens, ok bool) {
	switch s {
	case "(", ")":
		kind = 0
	case "[", "]":
		kind = 1
	case "{", "}":
		kind = 2
	default:
		return 0, false, false
	}
	return kind, s == "(" || s == "[" || s == "{", true
}

func (b *brackets) init() { b.last = [3]int{-1, -1, -1} }

// bracket records a punctuation token read: an opening bracket is pushed;
// a closing one pops the stack down to its partner, ignoring one that has
// no partner above the floor.
func (b *brackets) bracket(s string) {
	kind, opens, ok := bracketKind(s)
	switch {
	case !ok:
	case opens:
		b.stack = append(b.stack, openBracket{kind: kind, prev: b.last[kind]})
		b.last[kind] = len(b.stack) - 1
	case b.last[kind] >= b.floor:
		b.popTo(b.last[kind])
	}
}

// popTo drops the brackets from index n on.
func (b *brackets) popTo(n int) {
	for len(b.stack) > n {
		top := b.stack[len(b.stack)-1]
		b.last[top.kind] = top.prev
		b.stack = b.stack[:len(b.stack)-1]
	}
}

// skipStmt skips the tokens up to the end of the statement that failed:
// the next newline or EOF outside the brackets the statement opened (level
// is the number of brackets open at its start), or the "}" that closes the
// enclosing block. Refused input it skips is reported too. A flood of
// unclosed brackets (hostile input) ends the parse. Each call reads at
// least one token unless the statement already ends there, so recovery
// always makes progress.
func (p *parser) skipStmt(top bool, level int) {
	defer func(floor int) { p.floor = floor }(p.floor)
	p.floor = level
	for {
		t := p.peek()
		switch {
		case t.kind == tEOF:
			return
		case t.kind == tInvalid:
			p.report(t.err)
		case t.kind == tNewline && len(p.stack) <= level:
			return
		case !top && t.kind == tPunct && t.text == "}" && p.last[2] < level:
			p.popTo(level)
			return
		case len(p.stack) > level+maxRecursion:
			panic(stopParse{})
		}
		p.adv()
	}
}
