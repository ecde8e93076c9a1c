package graph

import (
	"runtime"
	"sync"
)

// defaultSplitMin is the size, in bytes from the start of a document's
// resources array to the end of the frame, from which the array is decoded
// in two halves at once (resourcesSplit); below it, one goroutine is
// faster than starting another.
const defaultSplitMin = 256 << 10

// resourcesSplit decodes the resources array that starts at p.i into doc
// in two halves, one of them on another goroutine, when the document is
// large enough and the runtime has more than one processor; it reports
// whether it did. The halves meet at a comma between two elements that a
// scan of the array's brackets and strings finds past its middle; each is
// decoded by the parser's own rules. Anything out of the ordinary (an
// error in either half, a first half that does not end at that comma)
// makes it put the parser back at the array's start and report false, so
// that the array is decoded again on one goroutine: the document, or the
// error and its position, are always those of that decoding.
func (p *jsonParser) resourcesSplit(doc *Document) bool {
	start := p.peekOff()
	least := p.splitMin
	if least <= 0 {
		least = defaultSplitMin
	}
	if len(p.data)-start < least || runtime.GOMAXPROCS(0) < 2 || p.data[start] != '[' {
		return false
	}
	cut, index, ok := splitPoint(p.data, start)
	if !ok {
		return false
	}
	// the second half: its own parser (strings, slabs, positions) on the
	// same bytes, from the element after the cut
	q := &jsonParser{data: p.data, i: cut + 1, start: p.start, intern: map[string]string{}, values: map[string]any{},
		posLine: p.start.Line, posLineStart: -(p.start.Col - 1)}
	q.keys = append(q.keys, p.keys...)
	q.idxs = append(q.idxs, p.idxs...)
	var second []*Resource
	var secondOK bool
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				if _, isJSON := r.(jsonErr); !isJSON {
					panic(r)
				}
			}
		}()
		for n := index; ; n++ {
			q.push("", n)
			second = append(second, q.resource())
			q.pop()
			c := q.peek()
			q.i++
			if c == ']' {
				secondOK = true
				return
			}
			if c != ',' {
				return
			}
		}
	})
	first, firstOK := p.resourcesUntil(start, cut)
	wg.Wait()
	if !firstOK || !secondOK {
		p.i = start
		return false
	}
	// after those of an earlier "resources" key, as the array's own
	// decoding does
	doc.Resources = append(append(doc.Resources, first...), second...)
	p.i = q.i
	return true
}

// resourcesUntil decodes the elements of the array at start up to the
// comma at cut, and reports whether they end exactly there without an
// error (the parser's path is as it was, either way).
func (p *jsonParser) resourcesUntil(start, cut int) (rs []*Resource, ok bool) {
	depth := len(p.keys)
	defer func() {
		if r := recover(); r != nil {
			if _, isJSON := r.(jsonErr); !isJSON {
				panic(r)
			}
			p.keys, p.idxs = p.keys[:depth], p.idxs[:depth]
			rs, ok = nil, false
		}
	}()
	p.i = start + 1
	for n := 0; ; n++ {
		p.push("", n)
		rs = append(rs, p.resource())
		p.pop()
		if c := p.peek(); c != ',' || p.i > cut {
			return nil, false
		}
		if p.i == cut {
			return rs, true
		}
		p.i++
	}
}

// splitPoint scans the array that starts at data[start] ('[') for the
// first comma between two of its elements past the middle of the rest of
// data, and returns its offset and the index of the element after it. It
// follows strings (with their escapes) and nesting only: it trusts the
// bytes to be JSON, which the decoding of the two halves then checks.
func splitPoint(data []byte, start int) (cut, index int, ok bool) {
	mid := start + (len(data)-start)/2
	depth := 0
	elems := 1
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return 0, 0, false // the array ended before its middle
			}
			depth--
		case ',':
			if depth == 0 {
				if i >= mid {
					return i, elems, true
				}
				elems++
			}
		}
	}
	return 0, 0, false
}
