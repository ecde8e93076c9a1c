package engine

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
)

// revIndex knows which reversal state may exist under the prefix, so that
// forgetting the state of a resource that never had any (the common case:
// every Reversible resource without Meta:reverse is launched with a forget)
// touches no file. It answers "may exist": a path it cannot rule out is
// removed as before; a path it rules out is one that no listing showed and
// that this engine did not write since.
type revIndex struct {
	mu sync.Mutex
	// saved holds the saved reversals (PREFIX/reverse/*.json paths) of the
	// last listing of the reverse directory and those written since; nil
	// while no listing succeeded.
	saved map[string]bool
	// names maps a kind to the escaped resource names that
	// PREFIX/vardir/KIND held when first asked about that kind; a nil
	// value means the listing failed.
	names map[string]map[string]bool
	// made holds "KIND/NAME" (escaped) of every VarDir this engine made.
	made map[string]bool
}

// listedSaved records a listing of the reverse directory: paths are its
// entries, err the error of the listing (a missing directory is empty).
func (x *revIndex) listedSaved(paths []string, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		x.saved = nil
		return
	}
	x.saved = make(map[string]bool, len(paths))
	for _, p := range paths {
		x.saved[p] = true
	}
}

// wroteSaved records that a saved reversal was written at path.
func (x *revIndex) wroteSaved(path string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.saved != nil {
		x.saved[path] = true
	}
}

// savedMayExist reports whether a saved reversal may exist at the path
// that path returns (called only when there is one to look for).
func (x *revIndex) savedMayExist(path func() string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.saved != nil && len(x.saved) == 0 {
		return false
	}
	return x.saved == nil || x.saved[path()]
}

// madeVarDir records that the VarDir of kind and name is being made. It
// is called before the directory is created.
func (x *revIndex) madeVarDir(kind, name string) {
	k := url.PathEscape(kind) + "/" + url.PathEscape(name)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.made == nil {
		x.made = map[string]bool{}
	}
	x.made[k] = true
}

// varDirMayExist reports whether PREFIX/vardir/KIND/NAME may exist. The
// first question about a kind lists PREFIX/vardir/KIND once.
func (x *revIndex) varDirMayExist(prefix, kind, name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.made) == 0 {
		// Nothing made by this engine: only what the kind's listing
		// holds may exist, and there is often nothing.
		if set, ok := x.names[kind]; ok && set != nil && len(set) == 0 {
			return false
		}
	}
	ek, en := url.PathEscape(kind), url.PathEscape(name)
	if en == "." || en == ".." || ek == "." || ek == ".." {
		return true // not one entry of the kind's directory
	}
	if x.made[ek+"/"+en] {
		return true
	}
	set, ok := x.names[kind]
	if !ok {
		set = listNames(filepath.Join(prefix, "vardir", ek))
		if x.names == nil {
			x.names = map[string]map[string]bool{}
		}
		x.names[kind] = set
	}
	return set == nil || set[en]
}

// listNames returns the set of entry names of dir: empty when dir does not
// exist, nil when it cannot be listed.
func listNames(dir string) map[string]bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return map[string]bool{}
		}
		return nil
	}
	set := make(map[string]bool, len(ents))
	for _, ent := range ents {
		set[ent.Name()] = true
	}
	return set
}
