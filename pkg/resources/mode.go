package resources

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// A fileMode computes the wanted permission bits (07777) of a file from its
// current bits: octal modes ignore the current bits, symbolic ones (as in
// chmod(1): "u=rw,go=r", "a+x", "g-w", "u+s") modify them.
type fileMode struct {
	octal   bool
	bits    uint32
	clauses []modeClause
}

type modeClause struct {
	who uint32 // mask of the affected bits (users, then special bits)
	ops []modeOp
}

type modeOp struct {
	op    byte // '+', '-' or '='
	perm  uint32
	copy  byte // 'u', 'g' or 'o': copy the bits of that class, 0 otherwise
	bigX  bool // X: execute only for directories or if anyone has execute
	whoIs uint32
}

// parseMode parses an octal or symbolic mode.
func parseMode(s string) (*fileMode, error) {
	if s == "" {
		return nil, fmt.Errorf("empty mode")
	}
	if s[0] >= '0' && s[0] <= '7' {
		n, err := strconv.ParseUint(s, 8, 32)
		if err != nil || n > 07777 {
			return nil, fmt.Errorf("invalid octal mode %q", s)
		}
		return octalMode(uint32(n)), nil
	}
	m := &fileMode{}
	for _, part := range strings.Split(s, ",") {
		c, err := parseClause(part)
		if err != nil {
			return nil, fmt.Errorf("invalid mode %q: %v", s, err)
		}
		m.clauses = append(m.clauses, c)
	}
	return m, nil
}

// octalModes holds the mode of each octal value parsed so far: a mode is
// never changed once parsed, so every file resource that gives the same
// octal mode shares one (a graph of files mostly gives a few). The table
// is 32 KiB of zeroed memory, of which only the pages of the modes used
// are ever touched.
var octalModes [07777 + 1]atomic.Pointer[fileMode]

// octalMode returns the mode of the octal value bits (at most 07777).
func octalMode(bits uint32) *fileMode {
	p := &octalModes[bits]
	if m := p.Load(); m != nil {
		return m
	}
	m := &fileMode{octal: true, bits: bits}
	if !p.CompareAndSwap(nil, m) {
		m = p.Load()
	}
	return m
}

func parseClause(s string) (modeClause, error) {
	var c modeClause
	i := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case 'u':
			c.who |= 04700
		case 'g':
			c.who |= 02070
		case 'o':
			c.who |= 01007
		case 'a':
			c.who |= 07777
		default:
			goto ops
		}
	}
ops:
	if c.who == 0 {
		c.who = 07777
	}
	if i == len(s) {
		return c, fmt.Errorf("missing operator in %q", s)
	}
	for i < len(s) {
		op := modeOp{op: s[i], whoIs: c.who}
		if op.op != '+' && op.op != '-' && op.op != '=' {
			return c, fmt.Errorf("unexpected %q in %q", s[i], s)
		}
		i++
		for ; i < len(s) && !strings.ContainsRune("+-=", rune(s[i])); i++ {
			switch s[i] {
			case 'r':
				op.perm |= 0444
			case 'w':
				op.perm |= 0222
			case 'x':
				op.perm |= 0111
			case 'X':
				op.bigX = true
			case 's':
				op.perm |= 06000
			case 't':
				op.perm |= 01000
			case 'u', 'g', 'o':
				if op.copy != 0 || op.perm != 0 {
					return c, fmt.Errorf("cannot mix %q with other permissions in %q", s[i], s)
				}
				op.copy = s[i]
			default:
				return c, fmt.Errorf("unexpected %q in %q", s[i], s)
			}
		}
		c.ops = append(c.ops, op)
	}
	return c, nil
}

// apply returns the wanted bits for a file with the current bits cur.
func (m *fileMode) apply(cur uint32, isDir bool) uint32 {
	if m.octal {
		return m.bits
	}
	cur &= 07777
	for _, c := range m.clauses {
		for _, op := range c.ops {
			perm := op.perm
			switch op.copy {
			case 'u':
				perm = spread((cur >> 6) & 7)
			case 'g':
				perm = spread((cur >> 3) & 7)
			case 'o':
				perm = spread(cur & 7)
			}
			if op.bigX && (isDir || cur&0111 != 0) {
				perm |= 0111
			}
			perm &= c.who
			switch op.op {
			case '+':
				cur |= perm
			case '-':
				cur &^= perm
			case '=':
				// = clears the named classes; directories keep their
				// set-id bits unless they are named, as with chmod(1).
				clear := c.who
				if isDir {
					clear &^= 06000
				}
				cur = cur&^clear | perm
			}
		}
	}
	return cur
}

// spread copies a 3-bit rwx value to the user, group and other positions.
func spread(v uint32) uint32 { return v<<6 | v<<3 | v }

// String returns the mode as written.
func (m *fileMode) String() string {
	if m.octal {
		return fmt.Sprintf("%04o", m.bits)
	}
	return "symbolic"
}
