package types

import "testing"

// typeGen builds types from fuzz bytes, drawing variables from a small
// shared pool so that unifications interact.
type typeGen struct {
	data []byte
	vars []*Type
}

func (g *typeGen) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *typeGen) gen(depth int) *Type {
	b := g.next()
	if depth > 4 {
		b %= 5
	}
	switch b % 10 {
	case 0:
		return Int
	case 1:
		return Str
	case 2:
		return Bool
	case 3:
		return Float
	case 4:
		return g.vars[int(g.next())%len(g.vars)]
	case 5:
		return NewList(g.gen(depth + 1))
	case 6:
		return NewMap(g.gen(depth+1), g.gen(depth+1))
	case 7:
		n := int(g.next() % 3)
		fs := make([]Field, n)
		for i := range fs {
			fs[i] = Field{Name: string(rune('a' + i)), Type: g.gen(depth + 1)}
		}
		return NewStruct(fs...)
	default:
		n := int(g.next() % 3)
		ps := make([]*Type, n)
		for i := range ps {
			ps[i] = g.gen(depth + 1)
		}
		return NewFuncOf(g.gen(depth+1), ps...)
	}
}

// FuzzUnify checks the solver: no panics, successful unifications make
// both sides equal, TryUnify leaves no trace, and printed types parse.
func FuzzUnify(f *testing.F) {
	f.Add([]byte{5, 4, 0, 5, 0, 9})
	f.Add([]byte{6, 1, 4, 1, 6, 4, 2, 0})
	f.Add([]byte{8, 2, 4, 0, 4, 1, 4, 2, 8, 2, 0, 1, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &typeGen{data: data}
		for i := 0; i < 4; i++ {
			g.vars = append(g.vars, NewVar())
		}
		for len(g.data) > 0 {
			a, b := g.gen(0), g.gen(0)
			before := StringAll(a, b)
			ok := TryUnify(a, b)
			if after := StringAll(a, b); after[0] != before[0] || after[1] != before[1] {
				t.Fatalf("TryUnify changed %v into %v", before, after)
			}
			err := Unify(a, b)
			if (err == nil) != ok {
				t.Fatalf("TryUnify says %v, Unify says %v for %v", ok, err, before)
			}
			if err == nil && !Equal(a, b) {
				t.Fatalf("unified %s and %s are not equal", a, b)
			}
			if a.IsConcrete() {
				p, perr := Parse(a.String())
				if perr != nil || !Equal(p, a) {
					t.Fatalf("%s does not round-trip: %v", a, perr)
				}
			}
		}
	})
}
