package eval

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A modIndex answers which modules of the module path hold a file, reading
// each directory at most once per compilation. Looking a type, function or
// fact up with filepath.Glob read the listing of every module directory
// again at each lookup; a manifest that declares a hundred resources of
// module types made thousands of such reads.
type modIndex struct {
	path []string            // the module path
	dirs map[string][]string // a directory's sorted entry names; nil when it cannot be read
}

func newModIndex(path []string) *modIndex {
	return &modIndex{path: path, dirs: map[string][]string{}}
}

// names returns the sorted entry names of dir, read once.
func (ix *modIndex) names(dir string) []string {
	if n, ok := ix.dirs[dir]; ok {
		return n
	}
	var n []string
	if f, err := os.Open(dir); err == nil {
		n, _ = f.Readdirnames(-1)
		f.Close()
		sort.Strings(n)
	}
	ix.dirs[dir] = n
	return n
}

// has reports whether dir holds an entry named name.
func (ix *modIndex) has(dir, name string) bool {
	n := ix.names(dir)
	i := sort.SearchStrings(n, name)
	return i < len(n) && n[i] == name
}

// find returns the files DIR/MODULE/rel of every module of the path, in
// the order filepath.Glob(DIR/*/rel) gives them, path entry by entry.
func (ix *modIndex) find(rel string) []string {
	sub, base := filepath.Split(rel)
	var out []string
	for _, dir := range ix.path {
		for _, mod := range ix.names(dir) {
			parent := filepath.Join(dir, mod, sub)
			if ix.has(parent, base) {
				out = append(out, filepath.Join(parent, base))
			}
		}
	}
	return out
}

// findSuffix returns the files DIR/MODULE/sub/NAME whose NAME ends with
// suffix, in the order filepath.Glob(DIR/*/sub/*suffix) gives them.
func (ix *modIndex) findSuffix(sub, suffix string) []string {
	var out []string
	for _, dir := range ix.path {
		for _, mod := range ix.names(dir) {
			parent := filepath.Join(dir, mod, sub)
			for _, n := range ix.names(parent) {
				if strings.HasSuffix(n, suffix) {
					out = append(out, filepath.Join(parent, n))
				}
			}
		}
	}
	return out
}

// modules returns the module index of the compilation, made on first use.
func (e *evaluator) modules() *modIndex {
	if e.mods == nil {
		e.mods = newModIndex(e.opts.ModulePath)
	}
	return e.mods
}
