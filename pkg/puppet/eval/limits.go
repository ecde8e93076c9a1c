package eval

import (
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/internal/bounded"
	"github.com/mgmtpipe/mgmt/pkg/puppet/syntax"
)

// The largest values the engine makes. A manifest makes values
// exponentially larger than itself in a few lines ($a = $a + $a, or
// [$a, $a] printed, repeated sixty times), and Hiera's YAML aliases do it
// with data; Puppet takes the host's memory on those. The engine refuses
// the first value past these sizes at the expression that makes it.
const (
	// maxText is the longest string: bounded.Max, the largest input a
	// tool reads whole and the largest graph document mgmt-apply takes
	// by default.
	maxText = bounded.Max
	// maxElements is the most elements of an array, and the most numbers
	// an iteration over an integer visits: 16,777,216, each at least 16
	// bytes, bounded.Max in all.
	maxElements = bounded.Max / 16
)

// A tooLarge panic stops an evaluation that would make a value larger
// than the engine holds where no position is at hand (the text of a
// value, a resource's parameters); Compile positions it at the
// expression being evaluated.
type tooLarge struct{ msg string }

var (
	textTooLarge     = tooLarge{fmt.Sprintf("a string longer than %d MiB: more than the native engine holds", maxText>>20)}
	elementsTooLarge = tooLarge{fmt.Sprintf("an array of more than %d elements: more than the native engine holds", maxElements)}
	paramTooLarge    = tooLarge{fmt.Sprintf("a parameter larger than %d MiB in the graph: more than the native engine holds", maxText>>20)}
)

// checkElements fails at p when an array of n elements is more than
// the engine holds.
func (e *evaluator) checkElements(p syntax.Pos, n int) {
	if n > maxElements {
		e.fail(p, "%s", elementsTooLarge.msg)
	}
}

// checkText fails at p when a string of n bytes is longer than the
// engine holds.
func (e *evaluator) checkText(p syntax.Pos, n int) {
	if n > maxText {
		e.fail(p, "%s", textTooLarge.msg)
	}
}

// joinText is open + strings.Join(parts, sep) + close for the text of a
// collection; a text longer than maxText panics with tooLarge before it
// is made. Elements a collection shares make its text exponentially
// longer than the collection in memory.
func joinText(open string, parts []string, sep, close string) string {
	n := len(open) + len(close)
	for i, p := range parts {
		if i > 0 {
			n += len(sep)
		}
		n += len(p)
		if n > maxText {
			panic(textTooLarge)
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(open)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	b.WriteString(close)
	return b.String()
}

// checkTextLen panics with tooLarge when v is a collection whose text
// would be longer than maxText, before any of it is made.
func checkTextLen(v any) {
	switch v.(type) {
	case []any, *hash:
		if textLen(v, nil) > maxText {
			panic(textTooLarge)
		}
	}
}

// textLen is at most the length of v's text (by toString or quoted),
// found without making it: an array or hash held in several places is
// measured once (in seen, made when the first is met). It stops counting
// past maxText.
func textLen(v any, seen map[any]int) int {
	var key any
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		if len(x) == 0 {
			return 2
		}
		key = sharedArray{&x[0], len(x)}
	case *hash:
		key = x
	default:
		return 1
	}
	if n, ok := seen[key]; ok {
		return n
	}
	n := 2
	switch x := v.(type) {
	case []any:
		for _, el := range x {
			if n > maxText {
				break
			}
			if _, isStr := el.(string); !isStr && seen == nil {
				seen = map[any]int{}
			}
			n += 2 + textLen(el, seen)
		}
	case *hash:
		for _, k := range x.keys {
			if n > maxText {
				break
			}
			if _, isStr := x.m[k].(string); !isStr && seen == nil {
				seen = map[any]int{}
			}
			n += 6 + len(k) + textLen(x.m[k], seen)
		}
	}
	if seen != nil {
		seen[key] = n
	}
	return n
}

// part adds the text s of an element to the n bytes of its collection's
// text so far and returns it; a text longer than maxText panics with
// tooLarge before the next element is rendered.
func part(n *int, s string) string {
	*n += len(s) + 2
	if *n > maxText {
		panic(textTooLarge)
	}
	return s
}

// paramBudget counts the bytes the conversion of a resource's parameter
// to the catalog's form has made, about: its values, and each string
// once for every place that holds it, as the graph document writes it.
type paramBudget int

func (b *paramBudget) spend(n int) {
	*b += paramBudget(n)
	if *b > maxText {
		panic(paramTooLarge)
	}
}
