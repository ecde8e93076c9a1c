package resources

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// maxSavedContent bounds the previous content kept for a reversal.
const maxSavedContent = 1 << 20

// fileOrig is the state of a path before a file resource first changed it,
// saved as JSON under the resource's VarDir ("reverse/orig.json") so that
// a reversal restores it even after a restart.
type fileOrig struct {
	Existed bool    `json:"existed"`
	IsDir   bool    `json:"isdir,omitempty"`
	Mode    uint32  `json:"mode,omitempty"`
	UID     int     `json:"uid,omitempty"`
	GID     int     `json:"gid,omitempty"`
	Content *string `json:"content,omitempty"`
}

func (obj *FileRes) origFile() (string, error) {
	if obj.init == nil || obj.init.VarDir == nil {
		return "", nil
	}
	d, err := obj.init.VarDir("reverse")
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "orig.json"), nil
}

func (obj *FileRes) loadOrig() (*fileOrig, error) {
	p, err := obj.origFile()
	if err != nil || p == "" {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	o := &fileOrig{}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, err
	}
	return o, nil
}

// saveOrig records the current state before the first change, when the
// resource is reversible (Meta:reverse).
func (obj *FileRes) saveOrig(c *fileCheck) error {
	if obj.orig != nil || !obj.MetaParams().Reverse {
		return nil
	}
	o := &fileOrig{}
	if c.fi != nil {
		o.Existed, o.IsDir = true, c.fi.IsDir()
		o.Mode, o.UID, o.GID = statBits(c.fi)
		if c.fi.Mode().IsRegular() && c.fi.Size() <= maxSavedContent {
			b, err := os.ReadFile(c.path)
			if err != nil {
				return err
			}
			s := string(b)
			o.Content = &s
		}
	}
	obj.orig = o
	p, err := obj.origFile()
	if err != nil || p == "" {
		return err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return writeAtomic(c.ctx, p, b, 0o600, -1, -1)
}

// Reversed returns the resource that undoes what this one did: it removes
// a path that did not exist before, or restores the previous content, mode
// and owner. It returns nil when nothing was changed.
func (obj *FileRes) Reversed() (engine.Res, error) {
	o := obj.orig
	if o == nil {
		var err error
		if o, err = obj.loadOrig(); err != nil || o == nil {
			return nil, err
		}
	}
	r := &FileRes{Path: obj.path()}
	r.SetKind(obj.Kind())
	r.SetName(obj.Name())
	meta := *obj.MetaParams()
	meta.Reverse = false
	r.SetMetaParams(&meta)
	if !o.Existed {
		r.State = FileStateAbsent
		r.Recurse = obj.isDir() && obj.Source != ""
		return r, nil
	}
	if o.IsDir != obj.isDir() {
		return nil, nil // a replaced kind is not restored
	}
	r.State = FileStateExists
	r.Mode = "0" + strconv.FormatUint(uint64(o.Mode), 8)
	r.Owner = strconv.Itoa(o.UID)
	r.Group = strconv.Itoa(o.GID)
	if !o.IsDir {
		r.Content = o.Content
	}
	return r, nil
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
	p := filepath.Clean(path)
	u := &FileUID{BaseUID: engine.BaseUID{Kind: "file", Name: p}, Path: p}
	if reversed {
		t := true
		u.Reversed = &t
	}
	return u
}

// UIDs returns the path's UID.
func (obj *FileRes) UIDs() []engine.ResUID {
	return []engine.ResUID{newFileUID(obj.path(), false)}
}

// AutoEdges looks for the nearest managed parent directory (walking up the
// path) and for user and group resources named by owner and group.
func (obj *FileRes) AutoEdges() (engine.AutoEdge, error) {
	var extra []engine.ResUID
	if obj.Owner != "" {
		extra = append(extra, &engine.BaseUID{Kind: "user", Name: obj.Owner})
	}
	if obj.Group != "" {
		extra = append(extra, &engine.BaseUID{Kind: "group", Name: obj.Group})
	}
	var parents []string
	for p := obj.cleanPath(); p != "/"; {
		p = filepath.Dir(p)
		parents = append(parents, p)
	}
	return &parentAutoEdge{extra: extra, parents: parents}, nil
}

// parentAutoEdge proposes the extra UIDs together with the first parent,
// then each further parent until one is found.
type parentAutoEdge struct {
	extra   []engine.ResUID
	parents []string
	i       int
}

// Next returns the next UIDs to look for.
func (a *parentAutoEdge) Next() []engine.ResUID {
	var out []engine.ResUID
	if a.i == 0 {
		out = append(out, a.extra...)
	}
	if a.i < len(a.parents) {
		out = append(out, newFileUID(a.parents[a.i], false))
	}
	return out
}

// Test stops the walk at the first parent found.
func (a *parentAutoEdge) Test(found []bool) bool {
	if a.i < len(a.parents) && len(found) > 0 && found[len(found)-1] {
		return false
	}
	a.i++
	return a.i < len(a.parents)
}
