package system

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A pkg resource that is not installed looks for the files it would ship
// (its automatic edges) in dpkg's info directory and apt's source lists.
// A graph of many such packages would read them once per package; the
// caches below read them once while they are unchanged. A file or
// directory is unchanged while its stamp is (a changed directory has new
// entries and a new modification time); a stamp newer than stampSettle is
// used once and not kept, since a change within the file system's
// timestamp granularity of the reading may leave the time as it was.
const stampSettle = 2 * time.Second

// A stamp identifies one state of a file or directory; a missing one has
// the zero stamp.
type stamp struct {
	dev, ino, size uint64
	mtime          time.Time
}

// stamps records the stamp of each of paths.
type stamps struct {
	paths []string
	of    []stamp
}

func takeStamps(paths ...string) stamps {
	s := stamps{paths: paths, of: make([]stamp, len(paths))}
	for i, p := range paths {
		s.of[i] = stampOf(p)
	}
	return s
}

func stampOf(path string) stamp {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	s := stamp{mtime: st.ModTime(), size: uint64(st.Size())}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(sys.Dev), sys.Ino
	}
	return s
}

// current reports whether every path still has its stamp.
func (s stamps) current() bool {
	for i, p := range s.paths {
		if stampOf(p) != s.of[i] {
			return false
		}
	}
	return len(s.paths) > 0
}

// settled reports whether every stamp is older than stampSettle.
func (s stamps) settled() bool {
	for _, st := range s.of {
		if time.Since(st.mtime) <= stampSettle {
			return false
		}
	}
	return true
}

// dpkgListCache keeps the arch-qualified .list files ("NAME:ARCH.list")
// of dpkg's info directory, by package name.
type dpkgListCache struct {
	mu    sync.Mutex
	dir   string
	st    stamps
	byPkg map[string][]string // package name -> paths, in name order
}

var dpkgLists dpkgListCache

// globArch returns the paths of base's "NAME:ARCH.list" files, in name
// order.
func globArch(base, name string) ([]string, error) {
	return dpkgLists.lookup(base, name)
}

func (c *dpkgListCache) lookup(base, name string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byPkg != nil && c.dir == base && c.st.current() {
		return c.byPkg[name], nil
	}
	st := takeStamps(base)
	ents, err := os.ReadDir(base)
	if err != nil {
		return nil, err
	}
	byPkg := map[string][]string{}
	for _, e := range ents {
		pkg, _, ok := strings.Cut(e.Name(), ":")
		if ok && strings.HasSuffix(e.Name(), ".list") {
			byPkg[pkg] = append(byPkg[pkg], base+e.Name())
		}
	}
	c.dir, c.st, c.byPkg = base, st, nil
	if st.settled() {
		c.byPkg = byPkg
	}
	return byPkg[name], nil
}

// aptSourcesCache keeps aptLocalSources' answer for one directory.
type aptSourcesCache struct {
	mu    sync.Mutex
	dir   string
	st    stamps
	local bool
	kept  bool
}

var aptSources aptSourcesCache

// aptLocalSources reports whether one of apt's sources under dir (the
// one-line sources.list files and the deb822 .sources files) may be a
// local file: repository, the only kind pkgFiles reads packages from.
// Asking apt-get costs a second or more, and its http method starts even
// for --print-uris; reading the lists costs microseconds. With APT_CONFIG
// set, apt may read other lists: then the answer is yes.
func aptLocalSources(dir string) bool {
	if os.Getenv("APT_CONFIG") != "" {
		return true
	}
	return aptSources.lookup(dir)
}

func (c *aptSourcesCache) lookup(dir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept && c.dir == dir && c.st.current() {
		return c.local
	}
	d := filepath.Join(dir, "sources.list.d")
	dirs := takeStamps(dir, d)
	files, _ := filepath.Glob(filepath.Join(d, "*.list"))
	more, _ := filepath.Glob(filepath.Join(d, "*.sources"))
	files = append(append(files, filepath.Join(dir, "sources.list")), more...)
	fst := takeStamps(files...)
	local := readsLocalSource(files)
	c.dir, c.local = dir, local
	c.st = stamps{paths: append(dirs.paths, fst.paths...), of: append(dirs.of, fst.of...)}
	c.kept = c.st.settled()
	return local
}

// readsLocalSource reports whether one of files names a file: source, or
// cannot be read.
func readsLocalSource(files []string) bool {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			return true // unreadable: let apt-get say
		}
		for _, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "#")
			if strings.Contains(line, "file:") {
				return true
			}
		}
	}
	return false
}
