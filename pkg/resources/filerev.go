package resources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// Files of the reversal state, in the resource's VarDir(ReverseVarDir).
const (
	origFile    = "orig.json" // the fileOrig, written last
	contentFile = "content"   // the original content, byte for byte
	createdFile = "created"   // entries created below a directory, NUL-terminated
)

// fileOrig is the state of a path before a file resource first changed it,
// saved so that a reversal restores it even after a restart.
type fileOrig struct {
	Existed bool   `json:"existed"`
	IsDir   bool   `json:"isdir,omitempty"`
	Mode    uint32 `json:"mode,omitempty"`
	UID     int    `json:"uid,omitempty"`
	GID     int    `json:"gid,omitempty"`
	Content bool   `json:"content,omitempty"` // saved in contentFile
	Link    string `json:"link,omitempty"`    // the target of a symbolic link
}

// reverseDir returns the directory of the reversal state, or "" when the
// engine gives no VarDir.
func (obj *FileRes) reverseDir() (string, error) {
	if obj.init == nil {
		return "", nil
	}
	d, err := obj.init.VarDir(engine.ReverseVarDir)
	if errors.Is(err, engine.ErrNoVarDir) {
		return "", nil
	}
	return d, err
}

func (obj *FileRes) loadOrig() (*fileOrig, error) {
	d, err := obj.reverseDir()
	if err != nil || d == "" {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(d, origFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	o := &fileOrig{}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, fmt.Errorf("reverse: %s: %v", filepath.Join(d, origFile), err)
	}
	return o, nil
}

// saveOrig records the current state before the first change, when the
// resource is reversible (Meta:reverse): the content of a regular file is
// copied, whatever its size, into the reversal state, and the metadata is
// written after it, so a state that was saved is complete.
func (obj *FileRes) saveOrig(c *fileCheck) error {
	if r := obj.rev(); r != nil && r.orig != nil || !obj.MetaParams().Reverse {
		return nil
	}
	d, err := obj.reverseDir()
	if err != nil {
		return fmt.Errorf("reverse: %v", err)
	}
	o := &fileOrig{}
	if c.fi != nil {
		o.Existed, o.IsDir = true, c.fi.IsDir()
		o.Mode, o.UID, o.GID = statBits(c.fi)
		if c.fi.Mode()&os.ModeSymlink != 0 {
			t, err := os.Readlink(c.path)
			if err != nil {
				return fmt.Errorf("reverse: %v", err)
			}
			o.Link = t
		}
		if c.fi.Mode().IsRegular() && d != "" {
			if err := copyOut(c.ctx, c.path, c.fi, filepath.Join(d, contentFile)); err != nil {
				return fmt.Errorf("reverse: saving the original content: %v", err)
			}
			o.Content = true
		}
	}
	if d != "" {
		if !o.Existed && obj.isDir() {
			// The reversal removes what the resource creates below the
			// directory, and the directory itself if nothing else is left.
			if err := writeAtomic(c.ctx, filepath.Join(d, createdFile), nil, 0o600, -1, -1); err != nil {
				return fmt.Errorf("reverse: %v", err)
			}
		}
		b, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if err := writeAtomic(c.ctx, filepath.Join(d, origFile), b, 0o600, -1, -1); err != nil {
			return fmt.Errorf("reverse: %v", err)
		}
	}
	obj.revs().orig = o
	return nil
}

// copyOut copies the regular file at path, described by fi, to dst (mode
// 0600), without following a symbolic link that replaced it meanwhile.
func copyOut(ctx context.Context, path string, fi os.FileInfo, dst string) error {
	fd, err := openNoFollow(path, syscall.O_RDONLY)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if err := sameFile(f, fi); err != nil {
		return err
	}
	return writeAtomicFrom(ctx, dst, f, 0o600)
}

// treeGuard returns, for a reversible resource, the hook its tree copy
// calls before creating or changing an entry below the directory: a new
// entry is recorded for the reversal to remove; an entry that was there
// before the resource (not one it created) is refused, since the reversal
// could not restore it.
func (obj *FileRes) treeGuard(c *fileCheck) func(d string, existed bool) error {
	if !obj.MetaParams().Reverse {
		return nil
	}
	dir := c.path
	return func(d string, existed bool) error {
		if err := obj.saveOrig(c); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, d)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("%s is not below %s", d, dir)
		}
		if r := obj.rev(); r != nil && r.ours[rel] {
			return nil
		}
		if existed {
			return fmt.Errorf("refusing to change %s, which this resource did not create: Meta:reverse could not restore it", d)
		}
		return obj.recordCreated(rel)
	}
}

// recordCreated appends the entry rel, about to be created below the
// resource's directory, to the reversal state, for a reversal to remove
// it.
func (obj *FileRes) recordCreated(rel string) error {
	d, err := obj.reverseDir()
	if err != nil || d == "" {
		return err
	}
	f, err := os.OpenFile(filepath.Join(d, createdFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("reverse: %v", err)
	}
	_, err = f.WriteString(rel + "\x00")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("reverse: %v", err)
	}
	r := obj.revs()
	if r.ours == nil {
		r.ours = map[string]bool{}
	}
	r.ours[rel] = true
	return nil
}

// loadCreated reads, for a reversal, the entries the resource created
// below the directory it created; nil when it did not create one.
func (obj *FileRes) loadCreated() ([]string, error) {
	d, err := obj.reverseDir()
	if err != nil || d == "" {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(d, createdFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, rel := range strings.Split(string(b), "\x00") {
		if rel != "" && filepath.IsLocal(rel) {
			out = append(out, rel)
		}
	}
	return out, nil
}

// Reversed returns the resource that undoes what this one did: it removes
// a path that did not exist before (for a directory, only what the
// resource created in it), or restores the previous content, byte for
// byte from the copy in the reversal state, and the mode and owner. It
// returns nil when nothing was changed.
func (obj *FileRes) Reversed() (engine.Res, error) {
	var o *fileOrig
	if r := obj.rev(); r != nil {
		o = r.orig
	}
	if o == nil {
		var err error
		if o, err = obj.loadOrig(); err != nil || o == nil {
			return nil, err
		}
	}
	r := &FileRes{Path: obj.path()}
	if sd := obj.rare().ShowDiff; sd != nil {
		r.setRare().ShowDiff = sd
	}
	r.SetKind(obj.Kind())
	r.SetName(obj.Name())
	meta := *obj.MetaParams()
	meta.Reverse = false
	r.SetMetaParams(&meta)
	if !o.Existed {
		r.State = FileStateAbsent
		return r, nil
	}
	if o.IsDir != obj.isDir() {
		return nil, nil // a replaced kind is not restored
	}
	r.State = FileStateExists
	if o.Link != "" {
		rr := r.setRare()
		rr.Symlink, rr.Source = true, o.Link
		// A link replaced by a file (links "replace") takes its place
		// again.
		rr.Force = obj.links() == LinksReplace
		r.Owner, r.Group = strconv.Itoa(o.UID), strconv.Itoa(o.GID)
		return r, nil
	}
	if obj.rare().Symlink {
		return nil, nil // a replaced kind is not restored
	}
	r.Mode = "0" + strconv.FormatUint(uint64(o.Mode), 8)
	r.Owner = strconv.Itoa(o.UID)
	r.Group = strconv.Itoa(o.GID)
	if o.Content && !o.IsDir {
		d, err := obj.reverseDir()
		if err != nil {
			return nil, err
		}
		r.setRare().Source = filepath.Join(d, contentFile)
	}
	return r, nil
}

// undoCreated is the reversal of what the resource created below its
// directory: it removes those entries, deepest first, and, with
// removeDir (the resource created the directory too), the directory if
// nothing else is left. Entries added by others stay (so does a directory
// of ours that holds some), and are logged.
func (obj *FileRes) undoCreated(c *fileCheck, removeDir bool) error {
	rels := append([]string(nil), obj.createdList()...)
	sort.Sort(sort.Reverse(sort.StringSlice(rels))) // a child sorts after its parent
	var ours []string                               // created entries still there
	for i, rel := range rels {
		if i > 0 && rel == rels[i-1] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(c.path, rel)); err == nil {
			ours = append(ours, rel)
		}
	}
	if !c.apply {
		if len(ours) > 0 {
			c.change(fmt.Sprintf("removed %d entries it created", len(ours)))
		} else if ents, err := os.ReadDir(c.path); removeDir && err == nil && len(ents) == 0 {
			c.change("removed")
		}
		return nil
	}
	removed := 0
	for _, rel := range ours {
		switch err := removeBelow(c.path, rel); {
		case err == nil:
			removed++
		case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST), errors.Is(err, fs.ErrNotExist),
			errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENOTDIR):
			// A directory of ours holding entries of others stays; so
			// does what lies behind a link that replaced one of ours.
		default:
			return err
		}
	}
	if removed > 0 {
		c.change(fmt.Sprintf("removed %d entries it created", removed))
	}
	if !removeDir {
		return nil
	}
	err := os.Remove(c.path)
	if err == nil {
		c.change("removed")
		return nil
	}
	if !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return err
	}
	ents, err := os.ReadDir(c.path)
	if err != nil {
		return err
	}
	var names []string
	for i, e := range ents {
		if i == 5 {
			names = append(names, "...")
			break
		}
		names = append(names, e.Name())
	}
	if obj.init != nil {
		obj.init.Logf("kept %s: it holds entries this resource did not create (%s)", c.path, strings.Join(names, ", "))
	}
	return nil
}

// FileUID identifies a file resource for automatic edges by its cleaned
// path (no trailing slash).
type FileUID struct {
	engine.BaseUID
	Path string
}

// IFF reports whether uid names the same path.
func (u *FileUID) IFF(uid engine.ResUID) bool {
	if o, ok := uid.(*FileUID); ok {
		return o.Path == u.Path
	}
	return uid.GetKind() == "file" && filepath.Clean(uid.GetName()) == u.Path
}

func newFileUID(path string, reversed bool) *FileUID {
	u := &FileUID{}
	u.set(path, reversed)
	return u
}

// set makes u the UID of path.
func (u *FileUID) set(path string, reversed bool) {
	p := filepath.Clean(path)
	*u = FileUID{BaseUID: engine.BaseUID{Kind: "file", Name: p}, Path: p}
	if reversed {
		t := true
		u.Reversed = &t
	}
}

// fileUIDs is a file's list of UIDs and its one UID, made at once.
type fileUIDs struct {
	list [1]engine.ResUID
	uid  FileUID
}

// UIDs returns the path's UID.
func (obj *FileRes) UIDs() []engine.ResUID {
	u := &fileUIDs{}
	u.uid.set(obj.path(), false)
	u.list[0] = &u.uid
	return u.list[:]
}

// AutoEdges looks for the file resources of the fragments (a fragment
// file, or the directory whose entries a fragment ending in / takes), for
// the nearest managed parent directory (walking up the path), and for user
// and group resources named by owner and group.
func (obj *FileRes) AutoEdges() (engine.AutoEdge, error) {
	var extra []engine.ResUID
	for _, f := range obj.rare().Fragments {
		extra = append(extra, newFileUID(f, false))
	}
	if obj.Owner != "" {
		extra = append(extra, &engine.BaseUID{Kind: "user", Name: obj.Owner})
	}
	if obj.Group != "" {
		extra = append(extra, &engine.BaseUID{Kind: "group", Name: obj.Group})
	}
	return newParentAutoEdge(extra, obj.cleanPath()), nil
}

// parentAutoEdge proposes the extra UIDs together with the first parent
// directory of an absolute path, then each further parent up to "/" until
// one is found. Each parent is computed when its turn comes: the first
// is found most often, and its UID and the list that proposes it alone
// are made with the parentAutoEdge.
type parentAutoEdge struct {
	extra   []engine.ResUID
	dir     string // the parent to propose next; "" once past "/"
	started bool   // the extra UIDs were proposed
	first   FileUID
	list    [1]engine.ResUID
}

func newParentAutoEdge(extra []engine.ResUID, path string) *parentAutoEdge {
	a := &parentAutoEdge{extra: extra}
	if path != "/" {
		a.dir = filepath.Dir(path)
	}
	return a
}

// Next returns the next UIDs to look for.
func (a *parentAutoEdge) Next() []engine.ResUID {
	if !a.started && len(a.extra) == 0 && a.dir != "" {
		a.first.set(a.dir, false)
		a.list[0] = &a.first
		return a.list[:]
	}
	var out []engine.ResUID
	if !a.started {
		out = append(out, a.extra...)
	}
	if a.dir != "" {
		out = append(out, newFileUID(a.dir, false))
	}
	return out
}

// Test stops the walk at the first parent found.
func (a *parentAutoEdge) Test(found []bool) bool {
	if a.dir != "" && len(found) > 0 && found[len(found)-1] {
		return false
	}
	a.started = true
	switch a.dir {
	case "", "/", ".":
		a.dir = ""
	default:
		a.dir = filepath.Dir(a.dir)
	}
	return a.dir != ""
}
