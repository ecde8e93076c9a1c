// Package local holds the mcl module "local": state kept on this machine
// under the state directory (the compiler's --prefix, /var/lib/mgmt when
// unset).
//
// vardir(p) creates and returns the directory <prefix>/vardir/<p>/ (p is
// relative and stays inside vardir). pool(namespace, uid) hands out small
// integers: the first call for a uid in a namespace gets the lowest
// positive integer not yet taken there, and later calls (in this run or
// the next) get the same one. A namespace is the directory
// <prefix>/pool/<escaped namespace>/ holding one file per uid with its
// number; allocation holds an flock on its .lock file, so concurrent
// programs never hand out a number twice.
package local

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/statedir"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// DefaultPrefix is the state directory used when the compiler has none
// (the tools always give one: --prefix, or the user's default).
const DefaultPrefix = statedir.System

func init() {
	if funcs.IsModule("local") {
		return // registered by another package already (the core's packages initialise first)
	}
	funcs.RegisterFunc(&funcs.Func{Module: "local", Name: "vardir", Sigs: funcs.Sigs("func(path str) str"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			d, err := Vardir(prefix(c), string(c.Args[0].(values.Str)))
			if err != nil {
				return nil, err
			}
			return values.Str(d), nil
		}, Doc: "Creates and returns a private directory <prefix>/vardir/<path>/ on this host.", Example: `local.vardir("myapp")`})
	funcs.RegisterFunc(&funcs.Func{Module: "local", Name: "pool", Sigs: funcs.Sigs("func(namespace str, uid str) int"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			n, err := Pool(prefix(c), string(c.Args[0].(values.Str)), string(c.Args[1].(values.Str)))
			if err != nil {
				return nil, err
			}
			return values.Int(n), nil
		}, Doc: "A small positive int for a uid in a namespace, the same in every run on this host (kept under the state directory); for ports, ids, ...", Example: `local.pool("vm-ports", "web")`})
}

func prefix(c *funcs.Call) string {
	if c.Env != nil && c.Env.Prefix != "" {
		if abs, err := filepath.Abs(c.Env.Prefix); err == nil {
			return abs
		}
		return c.Env.Prefix
	}
	return DefaultPrefix
}

// Vardir creates <prefix>/vardir/<p> and returns it with a trailing slash.
func Vardir(prefix, p string) (string, error) {
	clean := filepath.Clean(strings.TrimSuffix(p, "/"))
	if p == "" || filepath.IsAbs(p) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("vardir: path %q must be relative and inside the vardir", p)
	}
	d := filepath.Join(prefix, "vardir", clean)
	if err := statedir.Prepare(prefix); err != nil {
		return "", fmt.Errorf("vardir: %v", err)
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("vardir: %v", err)
	}
	return d + "/", nil
}

// Pool returns the number of uid in namespace, allocating the lowest free
// positive one on first use.
func Pool(prefix, namespace, uid string) (int64, error) {
	if namespace == "" || uid == "" {
		return 0, fmt.Errorf("pool: namespace and uid must not be empty")
	}
	dir := filepath.Join(prefix, "pool", url.PathEscape(namespace))
	if err := statedir.Prepare(prefix); err != nil {
		return 0, fmt.Errorf("pool: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("pool: %v", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return 0, fmt.Errorf("pool: %v", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("pool: lock: %v", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	taken, err := readPool(dir)
	if err != nil {
		return 0, err
	}
	if n, ok := taken[uid]; ok {
		return n, nil
	}
	used := map[int64]bool{}
	for _, n := range taken {
		used[n] = true
	}
	n := int64(1)
	for used[n] {
		n++
	}
	f := filepath.Join(dir, url.PathEscape(uid))
	tmp := filepath.Join(dir, "."+url.PathEscape(uid)+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(n, 10)+"\n"), 0o644); err != nil {
		return 0, fmt.Errorf("pool: %v", err)
	}
	if err := os.Rename(tmp, f); err != nil {
		return 0, fmt.Errorf("pool: %v", err)
	}
	return n, nil
}

// readPool returns the numbers allocated in a namespace directory by uid.
func readPool(dir string) (map[string]int64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("pool: %v", err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("pool: %v", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("pool: corrupt entry %s: %q", e.Name(), b)
		}
		uid, err := url.PathUnescape(e.Name())
		if err != nil {
			return nil, fmt.Errorf("pool: corrupt entry name %s", e.Name())
		}
		out[uid] = n
	}
	return out, nil
}
