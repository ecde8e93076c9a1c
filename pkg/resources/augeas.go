//go:build augeas

package resources

/*
#cgo pkg-config: augeas
#include <stdlib.h>
#include <augeas.h>
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("augeas", func() engine.Res { return &AugeasRes{} })
}

// AugeasSet is one value to keep: the node at Path (relative to the
// file's tree) holds Value.
type AugeasSet struct {
	Path  string `lang:"path" yaml:"path"`
	Value string `lang:"value" yaml:"value"`
}

// AugeasRes keeps values in a configuration file through libaugeas and
// one of its lenses, which parse the file into a tree and write back only
// what changed. It exists in binaries built with the build tag augeas
// (cgo, libaugeas). See the package documentation.
type AugeasRes struct {
	traits.Base
	traits.Edgeable

	init *engine.Init

	// File is the file; it defaults to the name.
	File string `lang:"file" yaml:"file" collect:"name"`
	// Lens is the lens that reads it, such as "Shellvars.lns".
	Lens string `lang:"lens" yaml:"lens"`
	// Sets are the values to keep.
	Sets []AugeasSet `lang:"sets" yaml:"sets"`
}

// Default returns an augeas resource.
func (r *AugeasRes) Default() engine.Res { return &AugeasRes{} }

func (r *AugeasRes) file() string {
	if r.File != "" {
		return r.File
	}
	return r.Name()
}

// Validate checks the file, the lens and the paths.
func (r *AugeasRes) Validate() error {
	f := r.file()
	if !filepath.IsAbs(f) || filepath.Clean(f) != f || strings.ContainsAny(f, "\x00[]*") {
		return fmt.Errorf("file %q is not a clean absolute path", f)
	}
	if !strings.HasSuffix(r.Lens, ".lns") || strings.ContainsAny(r.Lens, "/\x00") {
		return fmt.Errorf("lens %q: want a lens name such as Shellvars.lns", r.Lens)
	}
	if len(r.Sets) == 0 {
		return fmt.Errorf("sets is empty: nothing to manage")
	}
	for _, s := range r.Sets {
		if s.Path == "" || strings.HasPrefix(s.Path, "/") || strings.Contains(s.Path, "..") || strings.ContainsRune(s.Path, 0) {
			return fmt.Errorf("sets: path %q must be relative to the file's tree, without '..'", s.Path)
		}
		if strings.ContainsRune(s.Value, 0) {
			return fmt.Errorf("sets: value of %s holds a NUL byte", s.Path)
		}
	}
	return nil
}

// Init keeps the handle.
func (r *AugeasRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *AugeasRes) Cleanup() error { return nil }

// Watch follows the file through the shared watcher.
func (r *AugeasRes) Watch(ctx context.Context) error {
	return watchFiles(ctx, r.init, []string{r.file()}, fswatch.Options{})
}

// augeas is one libaugeas handle, used by one goroutine.
type augeas struct{ h *C.augeas }

func (a *augeas) close() { C.aug_close(a.h) }

// errorf returns libaugeas' last error with what was being done.
func (a *augeas) errorf(what string) error {
	msg := C.GoString(C.aug_error_message(a.h))
	if minor := C.aug_error_minor_message(a.h); minor != nil {
		msg += ": " + C.GoString(minor)
	}
	if det := C.aug_error_details(a.h); det != nil {
		msg += ": " + C.GoString(det)
	}
	return fmt.Errorf("augeas: %s: %s", what, msg)
}

func (a *augeas) get(path string) (string, int, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var v *C.char
	n := C.aug_get(a.h, cp, &v)
	if n < 0 {
		return "", int(n), a.errorf("get " + path)
	}
	if v == nil {
		return "", int(n), nil
	}
	return C.GoString(v), int(n), nil
}

func (a *augeas) set(path, value string) error {
	cp, cv := C.CString(path), C.CString(value)
	defer C.free(unsafe.Pointer(cp))
	defer C.free(unsafe.Pointer(cv))
	if C.aug_set(a.h, cp, cv) < 0 {
		return a.errorf("set " + path)
	}
	return nil
}

// openAugeas starts libaugeas with only the lens loaded, for only the file.
func openAugeas(lens, file string) (*augeas, error) {
	root := C.CString("/")
	defer C.free(unsafe.Pointer(root))
	h := C.aug_init(root, nil, C.AUG_NO_MODL_AUTOLOAD|C.AUG_NO_LOAD)
	if h == nil {
		return nil, fmt.Errorf("augeas: cannot start libaugeas")
	}
	a := &augeas{h}
	if C.aug_error(h) != C.AUG_NOERROR {
		err := a.errorf("init")
		a.close()
		return nil, err
	}
	for _, s := range [][2]string{{"/augeas/load/Xmgmt/lens", lens}, {"/augeas/load/Xmgmt/incl", file}} {
		if err := a.set(s[0], s[1]); err != nil {
			a.close()
			return nil, err
		}
	}
	if C.aug_load(h) < 0 {
		err := a.errorf("load " + file)
		a.close()
		return nil, err
	}
	if msg, n, _ := a.get("/augeas/load/Xmgmt/error"); n == 1 {
		a.close()
		return nil, fmt.Errorf("augeas: lens %s: %s", lens, msg)
	}
	if msg, n, _ := a.get("/augeas/files" + file + "/error/message"); n == 1 {
		pos, _, _ := a.get("/augeas/files" + file + "/error/line")
		a.close()
		return nil, fmt.Errorf("augeas: %s:%s: %s cannot read it: %s", file, pos, lens, msg)
	}
	return a, nil
}

// CheckApply reads each path's value and sets those that differ, then
// saves the file.
func (r *AugeasRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	res, err := resolveTrusted(r.file())
	if err != nil {
		return false, err
	}
	file := res.path
	res.close()
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%s is not a regular file (a file resource can create it)", file)
	}
	a, err := openAugeas(r.Lens, file)
	if err != nil {
		return false, err
	}
	defer a.close()
	var changed []string
	for _, s := range r.Sets {
		p := "/files" + file + "/" + s.Path
		have, n, err := a.get(p)
		if err != nil {
			return false, err
		}
		if n == 1 && have == s.Value {
			continue
		}
		changed = append(changed, s.Path)
		if !apply {
			return false, nil
		}
		if err := a.set(p, s.Value); err != nil {
			return false, err
		}
	}
	if len(changed) == 0 {
		return true, nil
	}
	if C.aug_save(a.h) < 0 {
		msg, _, _ := a.get("/augeas/files" + file + "/error/message")
		return false, fmt.Errorf("augeas: saving %s: %v %s", file, a.errorf("save"), msg)
	}
	if r.init != nil {
		r.init.Logf("%s: %s", file, strings.Join(changed, ", "))
	}
	return false, nil
}

// UIDs identifies the resource by its file.
func (r *AugeasRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "augeas", Name: r.file()}}
}

// AutoEdges makes the edit wait for the file resources of the file and of
// the nearest directory above it.
func (r *AugeasRes) AutoEdges() (engine.AutoEdge, error) { return fileAutoEdges(r.file()), nil }

// Cmp compares two augeas resources.
func (r *AugeasRes) Cmp(o engine.Res) error { return cmpParams(r, o) }
