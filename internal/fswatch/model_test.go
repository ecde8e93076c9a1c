package fswatch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// A model is the expected state of a directory tree: the reference the
// randomized test checks the watcher against. Every operation is applied
// to the model and to the real tree; the two are compared at each
// quiescent point, so the model can be trusted to say which paths changed.
type model struct {
	root *node
	next int // identity of the next node made
}

// A node is a file or a directory of the model. id changes whenever the
// path names a new object (created, or renamed over); ver changes with
// every write.
type node struct {
	dir     bool
	id, ver int
	mode    os.FileMode
	content []byte
	kids    map[string]*node
}

func newModel() *model {
	return &model{root: &node{dir: true, kids: map[string]*node{}}}
}

func (m *model) newNode(dir bool, mode os.FileMode) *node {
	m.next++
	n := &node{dir: dir, id: m.next, mode: mode}
	if dir {
		n.kids = map[string]*node{}
	}
	return n
}

// lookup returns the node at rel ("" is the root), or nil.
func (m *model) lookup(rel string) *node {
	n := m.root
	if rel == "" {
		return n
	}
	for _, c := range strings.Split(rel, "/") {
		if n == nil || !n.dir {
			return nil
		}
		n = n.kids[c]
	}
	return n
}

// underFile reports whether a component of rel names a file.
func (m *model) underFile(rel string) bool {
	n := m.root
	for _, c := range strings.Split(rel, "/") {
		if n = n.kids[c]; n == nil {
			return false
		}
		if !n.dir {
			return true
		}
	}
	return false
}

func split(rel string) (dir, base string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

// within reports whether rel is p or below it.
func within(rel, p string) bool { return rel == p || strings.HasPrefix(rel, p+"/") }

// An op is one operation on the tree: it returns false when the model says
// it cannot apply (the test then picks another), and otherwise an error
// when the real operation failed.
type op struct {
	name string
	do   func(m *model, root string) (bool, error)
}

func (o op) String() string { return o.name }

func writeOp(p string, content []byte) op {
	return op{"write " + p, func(m *model, root string) (bool, error) {
		d, b := split(p)
		parent, cur := m.lookup(d), m.lookup(p)
		if parent == nil || !parent.dir || cur != nil && cur.dir {
			return false, nil
		}
		if cur == nil {
			cur = m.newNode(false, 0o644)
			parent.kids[b] = cur
		}
		cur.ver++
		cur.content = content
		return true, os.WriteFile(filepath.Join(root, p), content, 0o644)
	}}
}

func mkdirAllOp(p string) op {
	return op{"mkdir -p " + p, func(m *model, root string) (bool, error) {
		n := m.root
		for _, c := range strings.Split(p, "/") {
			k := n.kids[c]
			if k != nil && !k.dir {
				return false, nil
			}
			if k == nil {
				break
			}
			n = k
		}
		n = m.root
		for _, c := range strings.Split(p, "/") {
			if n.kids[c] == nil {
				n.kids[c] = m.newNode(true, 0o755)
			}
			n = n.kids[c]
		}
		return true, os.MkdirAll(filepath.Join(root, p), 0o755)
	}}
}

func removeAllOp(p string) op {
	return op{"rm -rf " + p, func(m *model, root string) (bool, error) {
		d, b := split(p)
		parent := m.lookup(d)
		if parent != nil && !parent.dir || parent == nil && m.underFile(d) {
			return false, nil // rm -rf fails with "not a directory"
		}
		if parent != nil {
			delete(parent.kids, b)
		}
		return true, os.RemoveAll(filepath.Join(root, p))
	}}
}

func renameOp(p, q string) op {
	return op{"mv " + p + " " + q, func(m *model, root string) (bool, error) {
		src, dst := m.lookup(p), m.lookup(q)
		qd, qb := split(q)
		pd, pb := split(p)
		parent := m.lookup(qd)
		switch {
		case src == nil || p == q || within(q, p) || within(p, q):
			return false, nil
		case parent == nil || !parent.dir:
			return false, nil
		case dst != nil && (dst.dir != src.dir || dst.dir && len(dst.kids) > 0):
			return false, nil
		}
		delete(m.lookup(pd).kids, pb)
		parent.kids[qb] = src
		// rename(2) itself: os.Rename refuses to replace a directory.
		return true, syscall.Rename(filepath.Join(root, p), filepath.Join(root, q))
	}}
}

func chmodOp(p string) op {
	return op{"chmod " + p, func(m *model, root string) (bool, error) {
		n := m.lookup(p)
		if n == nil {
			return false, nil
		}
		n.mode ^= 0o004
		if n.dir {
			n.mode ^= 0o001
		}
		return true, os.Chmod(filepath.Join(root, p), n.mode)
	}}
}

// What a subscription follows, and so what counts as a change for it.
const (
	followPath = iota
	followContents
	followTree
)

// state describes what a subscription following rel can observe, from
// the model: the node itself, and its entries or whole subtree.
func (m *model) state(rel string, follow int) string {
	var b strings.Builder
	var show func(name string, n *node, depth int)
	show = func(name string, n *node, depth int) {
		if n == nil {
			fmt.Fprintf(&b, "%s: absent\n", name)
			return
		}
		fmt.Fprintf(&b, "%s: dir=%v id=%d ver=%d mode=%o\n", name, n.dir, n.id, n.ver, n.mode)
		if !n.dir || depth == 0 {
			return
		}
		for _, k := range sortedKids(n) {
			show(name+"/"+k, n.kids[k], depth-1)
		}
	}
	depth := map[int]int{followPath: 0, followContents: 1, followTree: 1 << 20}[follow]
	show(rel, m.lookup(rel), depth)
	return b.String()
}

func sortedKids(n *node) []string {
	names := make([]string, 0, len(n.kids))
	for k := range n.kids {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// check compares the real tree below root with the model (kinds, modes
// and file contents) and describes the first difference.
func (m *model) check(root string) error {
	var walk func(rel string, n *node) error
	walk = func(rel string, n *node) error {
		full := filepath.Join(root, rel)
		fi, err := os.Lstat(full)
		if err != nil {
			return fmt.Errorf("%s: %v, model has it", rel, err)
		}
		if fi.IsDir() != n.dir || rel != "" && fi.Mode().Perm() != n.mode {
			return fmt.Errorf("%s: real %v, model dir=%v mode %o", rel, fi.Mode(), n.dir, n.mode)
		}
		if !n.dir {
			data, err := os.ReadFile(full)
			if err != nil || !bytes.Equal(data, n.content) {
				return fmt.Errorf("%s: real content %q (%v), model %q", rel, data, err, n.content)
			}
			return nil
		}
		ents, err := os.ReadDir(full)
		if err != nil {
			return err
		}
		if len(ents) != len(n.kids) {
			return fmt.Errorf("%s: real entries %v, model %v", rel, ents, sortedKids(n))
		}
		for _, k := range sortedKids(n) {
			if err := walk(filepath.Join(rel, k), n.kids[k]); err != nil {
				return err
			}
		}
		return nil
	}
	return walk("", m.root)
}
