package resources

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("file", func() engine.Res { return &FileRes{} })
}

// File states.
const (
	FileStateExists = "exists"
	FileStateAbsent = "absent"
)

// FileRes manages a file or, when its path ends with a slash, a directory;
// with symlink, a symbolic link. With purge, a recursive directory loses
// every entry below it that is not in its source and that no other
// resource of the graph manages: file resources (a recursive directory
// with everything below it), and every kind that names the files it
// edits (line, ssh:authorized_key, json:edit, sysctl, tar, gzip, a
// Puppet file run through pippet); the directories on the way to a
// managed entry stay too. The purge walks through directory descriptors:
// it never follows a symbolic link (a link is removed as a link, what it
// points to is left alone, inside the tree or out of it), a directory
// swapped for a link during the walk stops it with an error, and it
// neither enters nor removes another mounted file system. What the graph
// does not know of is purged: files a program, another engine, or an
// exec's creates keeps there.
type FileRes struct {
	traits.Base
	traits.Edgeable
	traits.Recvable

	init *engine.Init
	// subs are the subscriptions of Subscribe, for followLink.
	subs atomic.Pointer[fileSubs]

	// Path is the absolute path; it defaults to the resource name. A
	// trailing slash means a directory. A collected file's path, if set,
	// must equal its name.
	Path string `lang:"path" yaml:"path" collect:"name"`
	// State is "exists", "absent" or "" (undefined: the file's existence
	// is not managed, and the other parameters apply only if it exists;
	// content, source or fragments for a missing file is an error).
	State string `lang:"state" yaml:"state"`
	// Content is the wanted content of a file; nil leaves it unmanaged.
	Content *string `lang:"content" yaml:"content"`
	// Mode is an octal ("0644") or symbolic ("u=rw,go=r") mode. Without
	// it a new file gets 0644 and a new directory 0777 less the umask of
	// mgmt-apply, as mkdir(1) and Puppet make one; a symbolic mode
	// applies to 0644 or 0755.
	Mode string `lang:"mode" yaml:"mode"`
	// Owner is a user name or uid.
	Owner string `lang:"owner" yaml:"owner"`
	// Group is a group name or gid.
	Group string `lang:"group" yaml:"group"`
	// Rare holds the parameters few files set; nil when a file sets none
	// of them. They are parameters of the file kind as its own fields
	// are: FileRare's fields document them.
	Rare *FileRare `lang:",inline"`

	mode *fileMode
	x    *fileExtra // what few files need; nil otherwise
}

// A fileExtra holds what few file resources of a graph need, made when
// one does: a file without owner, group and Meta:reverse has none.
type fileExtra struct {
	uid, gid int      // resolved owner and group, -1 until resolved
	rev      *fileRev // with Meta:reverse or as a reversal; nil otherwise
	// selinuxOn reports, with an error saying why not, whether SELinux
	// runs on the host; nil is selinuxPresent, the check of this host.
	selinuxOn func() error
}

// extra returns the fileExtra of the resource, made on first use.
func (obj *FileRes) extra() *fileExtra {
	if obj.x == nil {
		obj.x = &fileExtra{uid: -1, gid: -1}
	}
	return obj.x
}

// rev returns the fileRev of the resource, or nil.
func (obj *FileRes) rev() *fileRev {
	if obj.x == nil {
		return nil
	}
	return obj.x.rev
}

// selinuxOn returns the check of whether SELinux runs on the host.
func (obj *FileRes) selinuxOn() func() error {
	if obj.x == nil || obj.x.selinuxOn == nil {
		return selinuxPresent
	}
	return obj.x.selinuxOn
}

// A fileRev is the state of a file resource that reverses, or is the
// reversal of another: few files of a graph have one.
type fileRev struct {
	orig    *fileOrig       // the state before our first change (Meta:reverse)
	created []string        // as a reversal: what the resource created below its directory
	ours    map[string]bool // with Meta:reverse: what it created below its directory
}

// revs returns the fileRev of the resource, made on first use.
func (obj *FileRes) revs() *fileRev {
	x := obj.extra()
	if x.rev == nil {
		x.rev = &fileRev{}
	}
	return x.rev
}

// createdList returns, as a reversal of a directory, what the resource
// created below it; nil otherwise.
func (obj *FileRes) createdList() []string {
	if r := obj.rev(); r != nil {
		return r.created
	}
	return nil
}

// Default returns a file resource with its defaults.
func (obj *FileRes) Default() engine.Res { return &FileRes{} }

// hidesDiff reports whether the content is kept out of logs and events
// (show_diff false).
func (obj *FileRes) hidesDiff() bool { return obj.rare().ShowDiff != nil && !*obj.rare().ShowDiff }

// path returns the managed path, with its trailing slash for a directory:
// path (or the name), its parts replaced by dirname and basename.
func (obj *FileRes) path() string {
	p := obj.Path
	if p == "" {
		p = obj.Name()
	}
	if obj.rare().Dirname == "" && obj.rare().Basename == "" {
		return p
	}
	dir, base := pathParts(p)
	if obj.rare().Dirname != "" {
		dir = obj.rare().Dirname
	}
	if obj.rare().Basename != "" {
		base = obj.rare().Basename
	}
	return dir + base
}

// pathParts cuts p after the "/" that precedes its last part: "/a/b/" is
// "/a/" and "b/", "/a/b" is "/a/" and "b".
func pathParts(p string) (dir, base string) {
	i := strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/')
	return p[:i+1], p[i+1:]
}

// isDir reports whether a directory is managed.
func (obj *FileRes) isDir() bool { return strings.HasSuffix(obj.path(), "/") }

// cleanPath returns the managed path without its trailing slash. Every
// CheckApply asks for it (twice), and Validate makes the path clean but
// for that slash: the path is then returned as it is, without the
// byte-by-byte rewriting of filepath.Clean, which only runs for a path
// that is not (a resource never validated).
func (obj *FileRes) cleanPath() string {
	p := obj.path()
	if q := strings.TrimSuffix(p, "/"); isCleanAbs(q) {
		return q
	}
	return filepath.Clean(p)
}

// isCleanAbs reports whether q is an absolute path that filepath.Clean
// returns unchanged, "/" aside: no empty, "." or ".." part, and no slash
// at the end.
func isCleanAbs(q string) bool {
	if len(q) < 2 || q[0] != '/' {
		return false
	}
	rest := q[1:]
	for {
		i := strings.IndexByte(rest, '/')
		part := rest
		if i >= 0 {
			part = rest[:i]
		}
		if part == "" || part == "." || part == ".." {
			return false
		}
		if i < 0 {
			return true
		}
		rest = rest[i+1:]
	}
}

// Validate checks the parameters.
func (obj *FileRes) Validate() error {
	if d := obj.rare().Dirname; d != "" && (!filepath.IsAbs(d) || !strings.HasSuffix(d, "/")) {
		return fmt.Errorf("dirname %q must be an absolute directory ending in /", d)
	}
	if strings.HasPrefix(obj.rare().Basename, "/") {
		return fmt.Errorf("basename %q must not start with /", obj.rare().Basename)
	}
	p := obj.path()
	if p == "" || !filepath.IsAbs(p) {
		return fmt.Errorf("path %q must be absolute", p)
	}
	if err := obj.validateLinkPurge(); err != nil {
		return err
	}
	for _, name := range append([]string{p, obj.rare().Source}, obj.rare().Fragments...) {
		if strings.IndexByte(name, 0) >= 0 {
			// No file can be named so, and the system calls refuse it.
			return fmt.Errorf("path %q holds a NUL byte", name)
		}
	}
	if c := filepath.Clean(p); c != strings.TrimSuffix(p, "/") && p != "/" {
		return fmt.Errorf("path %q is not clean (want %q)", p, c)
	}
	switch obj.State {
	case FileStateAbsent:
		if filepath.Clean(p) == "/" {
			return fmt.Errorf("refusing to remove /")
		}
	case "", FileStateExists:
	default:
		return fmt.Errorf("state %q must be %q, %q or empty", obj.State, FileStateExists, FileStateAbsent)
	}
	n := 0
	for _, set := range []bool{obj.Content != nil, obj.rare().Source != "", len(obj.rare().Fragments) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("content, source and fragments are mutually exclusive")
	}
	if obj.State == FileStateAbsent && (n > 0 || obj.Mode != "" || obj.Owner != "" || obj.Group != "" || obj.rare().SELinux != nil) {
		return fmt.Errorf("state absent cannot be combined with content, source, fragments, mode, owner, group or selinux")
	}
	if err := obj.validateBackup(); err != nil {
		return err
	}
	if err := obj.validateValidateCmd(); err != nil {
		return err
	}
	if err := obj.validateReplace(); err != nil {
		return err
	}
	if err := obj.validateLinks(); err != nil {
		return err
	}
	if obj.rare().Symlink {
		return obj.validateSELinux()
	}
	if obj.isDir() {
		if obj.Content != nil || len(obj.rare().Fragments) > 0 {
			return fmt.Errorf("a directory (path ending in /) cannot have content or fragments")
		}
		if obj.rare().Source != "" && !strings.HasSuffix(obj.rare().Source, "/") {
			return fmt.Errorf("the source of a directory must be a directory (ending in /)")
		}
	} else if strings.HasSuffix(obj.rare().Source, "/") {
		return fmt.Errorf("the source of a file cannot be a directory")
	}
	if obj.rare().Source != "" && !filepath.IsAbs(obj.rare().Source) {
		return fmt.Errorf("source %q must be absolute", obj.rare().Source)
	}
	for _, f := range obj.rare().Fragments {
		if !filepath.IsAbs(f) {
			return fmt.Errorf("fragment %q must be absolute", f)
		}
	}
	if obj.Mode != "" {
		m, err := parseMode(obj.Mode)
		if err != nil {
			return err
		}
		obj.mode = m
	}
	return obj.validateSELinux()
}

// Init keeps the handle and loads a saved reversal state.
func (obj *FileRes) Init(init *engine.Init) error {
	obj.init = init
	if obj.x != nil {
		obj.x.uid, obj.x.gid = -1, -1
	}
	if obj.Mode != "" && obj.mode == nil {
		m, err := parseMode(obj.Mode)
		if err != nil {
			return err
		}
		obj.mode = m
	}
	sweepStaleTemps(filepath.Dir(obj.cleanPath()), time.Now())
	if obj.MetaParams().Reverse {
		o, err := obj.loadOrig()
		if err != nil {
			return err
		}
		obj.revs().orig = o
	}
	if (obj.MetaParams().Reverse || init.Reversal) && obj.isDir() {
		created, err := obj.loadCreated()
		if err != nil {
			return err
		}
		if init.Reversal {
			obj.revs().created = created
		} else {
			ours := map[string]bool{}
			for _, rel := range created {
				ours[rel] = true
			}
			obj.revs().ours = ours
		}
	}
	return nil
}

// Cleanup does nothing: the file resource holds nothing between calls.
func (obj *FileRes) Cleanup() error { return nil }

// fileCheck is the state of one CheckApply run.
type fileCheck struct {
	ctx     context.Context
	apply   bool
	path    string
	fi      os.FileInfo // nil when the path does not exist
	changes []engine.Change
	st      statInfo // the first look at path (firstLook): fi, unless replaced
	// the content was written with the wanted mode and owner: fi
	// describes the file it replaced
	attrsSet bool
	// fd is the regular file firstLook opened, its content to compare,
	// when hasFD is set; CheckApply closes it (closeFD)
	fd    int
	hasFD bool
}

// change records a change described by a word or a phrase.
func (c *fileCheck) change(what string) { c.report(engine.Change{What: what}) }

// report records a change with its values or texts. The list starts with
// room for two: a file made is "created" and its content.
func (c *fileCheck) report(ch engine.Change) {
	if c.changes == nil {
		c.changes = make([]engine.Change, 0, 2)
	}
	c.changes = append(c.changes, ch)
}

// CheckApply checks the file and, if apply is set, repairs it. An already
// right file costs one lstat, or, when its content is managed, an open, an
// fstat, a read (when the size matches) and a close (firstLook).
func (obj *FileRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	c := fileChecks.Get().(*fileCheck)
	defer putFileCheck(c)
	*c = fileCheck{ctx: ctx, apply: apply, path: obj.cleanPath()}
	err := obj.checkApply(c)
	// Someone removing the file (or something below the directory)
	// while we work is drift like any other: check again from the start
	// rather than fail.
	for try := 0; try < 5 && vanished(err, c.path, obj.cleanPath()); try++ {
		c.closeFD()
		*c = fileCheck{ctx: ctx, apply: apply, path: obj.cleanPath(), changes: c.changes}
		err = obj.checkApply(c)
	}
	c.closeFD()
	// The engine prefixes "changed" or "would change".
	reportChanges(obj.init, c.changes...)
	if err != nil {
		return false, err
	}
	return len(c.changes) == 0, nil
}

// fileChecks keeps the state of finished checks for the next ones: a
// fileCheck (about 250 bytes, with the lstat it holds) was the largest
// garbage of a run that finds every file right. Nothing keeps a check's
// state past its CheckApply: reportChanges copies the changes.
var fileChecks = sync.Pool{New: func() any { return new(fileCheck) }}

func putFileCheck(c *fileCheck) {
	c.closeFD()
	*c = fileCheck{}
	fileChecks.Put(c)
}

func (obj *FileRes) checkApply(c *fileCheck) error {
	if err := obj.checkSELParts(); err != nil {
		return err
	}
	var fi os.FileInfo
	err := obj.firstLook(c)
	if err == nil {
		fi = &c.st
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	c.fi = fi
	if fi != nil && fi.Mode()&os.ModeSymlink != 0 && obj.followsLinks() {
		obj.followLink()
	}
	if obj.rare().Symlink {
		return obj.checkLink(c)
	}
	if obj.State == FileStateAbsent {
		return obj.checkAbsent(c)
	}
	if fi != nil && obj.keepsContent() {
		return obj.checkKept(c)
	}
	if fi != nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 && obj.replacesOthers() {
		if err := obj.replaceSpecial(c); err != nil || c.fi != nil {
			return err
		}
	} else if fi != nil && fi.Mode()&os.ModeSymlink != 0 && !obj.followsLinks() {
		if err := obj.linkInTheWay(c); err != nil || c.fi != nil {
			return err
		}
	} else if fi != nil && fi.Mode()&os.ModeSymlink != 0 {
		// A symbolic link is followed, unless others may have planted
		// it: its target is managed, and the link stays.
		target, tfi, err := followLinks(c.path, fi)
		if err != nil {
			return err
		}
		if tfi == nil {
			return fmt.Errorf("%s: a symbolic link to %s, which does not exist", c.path, target)
		}
		c.path, c.fi = target, tfi
	}
	if c.fi != nil && c.fi.IsDir() && !obj.isDir() && obj.links() == LinksKeep {
		return obj.keepEntry(c) // Puppet's present takes a directory as present
	}
	if c.fi != nil && c.fi.IsDir() != obj.isDir() {
		if err := obj.replaceKind(c); err != nil || c.fi != nil {
			return err
		}
	}
	if c.fi == nil {
		if obj.State != FileStateExists {
			// Mode and owner apply to a file that is there; content
			// aimed at a missing file is an error, not a silent no.
			if obj.managesContent() {
				return fmt.Errorf("%s does not exist, and its content is managed without state \"exists\" to create it", c.path)
			}
			return nil
		}
		if err := obj.create(c); err != nil || c.fi == nil {
			return err // a new file got its content, mode and owner at once
		}
	}
	if obj.isDir() {
		if obj.createdList() != nil {
			// The reversal of a directory that was there: only what
			// the resource created in it goes.
			if err := obj.undoCreated(c, false); err != nil {
				return err
			}
		}
		if err := obj.checkTree(c); err != nil {
			return err
		}
		if err := obj.checkPurge(c); err != nil {
			return err
		}
	} else if err := obj.checkContent(c); err != nil {
		return err
	}
	if err := obj.checkAttrs(c); err != nil {
		return err
	}
	return obj.checkSELinux(c)
}

// treeAttrs returns the mode and owner of the entries below a managed
// directory: the resource's own when it recurses, none otherwise (a
// shallow copy keeps the source's bits).
func (obj *FileRes) treeAttrs() (treeAttrs, error) {
	if !obj.rare().Recurse {
		return treeAttrs{uid: -1, gid: -1}, nil
	}
	uid, gid, err := obj.owner()
	return treeAttrs{mode: obj.mode, uid: uid, gid: gid}, err
}

// checkTree copies the source into a managed directory and, with recurse,
// gives everything below it the resource's mode and owner.
func (obj *FileRes) checkTree(c *fileCheck) error {
	attrs, err := obj.treeAttrs()
	if err != nil {
		return err
	}
	t := &treeSync{ctx: c.ctx, apply: c.apply, recurse: obj.rare().Recurse, attrs: attrs, before: obj.treeGuard(c)}
	switch {
	case obj.rare().Source != "":
		if err := obj.checkSourceDir(obj.rare().Source); err != nil {
			return err
		}
		err = t.tree(obj.rare().Source, c.path)
		if len(t.changed) > 0 {
			c.change(fmt.Sprintf("copied %d entries from %s", len(t.changed), obj.rare().Source))
		}
	case obj.rare().Recurse && (attrs.mode != nil || attrs.uid >= 0 || attrs.gid >= 0):
		err = t.attrsBelow(c.path)
		if len(t.changed) > 0 {
			c.change(fmt.Sprintf("mode or owner of %d entries below", len(t.changed)))
		}
	}
	return err
}

// checkAbsent removes the path if it exists.
func (obj *FileRes) checkAbsent(c *fileCheck) error {
	if c.fi == nil {
		return nil
	}
	isDir := c.fi.IsDir()
	if obj.createdList() != nil && isDir {
		return obj.undoCreated(c, true)
	}
	if isDir != obj.isDir() && !obj.rare().Force {
		if isDir && obj.links() == LinksKeep {
			// as Puppet's ensure => absent without force
			obj.init.Logf("kept the directory %s (links keep): set force to remove it", c.path)
			return nil
		}
		return fmt.Errorf("%s is a %s, not a %s (set force to remove it)", c.path, kindWord(isDir), kindWord(obj.isDir()))
	}
	if isDir && obj.MetaParams().Reverse {
		if ents, err := os.ReadDir(c.path); err != nil || len(ents) > 0 {
			return fmt.Errorf("refusing to remove %s, which holds %d entries: Meta:reverse could not restore them (%v)", c.path, len(ents), err)
		}
	}
	c.change("removed")
	if !c.apply {
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err
	}
	if err := obj.backupOld(c); err != nil {
		return err
	}
	if isDir && (obj.rare().Recurse || obj.rare().Force) {
		return os.RemoveAll(c.path)
	}
	if err := os.Remove(c.path); err != nil {
		if isDir {
			return fmt.Errorf("removing %s: %v (set recurse to remove a non-empty directory)", c.path, err)
		}
		return err
	}
	return nil
}

func kindWord(dir bool) string {
	if dir {
		return "directory"
	}
	return "file"
}

// replaceKind removes a file where a directory is wanted, or the reverse,
// when force is set.
func (obj *FileRes) replaceKind(c *fileCheck) error {
	if obj.State != FileStateExists {
		return nil // not ours to manage: content and mode of an unexpected kind are left alone
	}
	if !obj.rare().Force {
		return fmt.Errorf("%s is a %s, want a %s (set force to replace it)", c.path, kindWord(c.fi.IsDir()), kindWord(obj.isDir()))
	}
	if obj.MetaParams().Reverse {
		return fmt.Errorf("refusing to replace the %s %s: Meta:reverse could not restore it", kindWord(c.fi.IsDir()), c.path)
	}
	c.change("replaced a " + kindWord(c.fi.IsDir()))
	if !c.apply {
		return nil
	}
	if err := obj.backupOld(c); err != nil {
		return err
	}
	if err := os.RemoveAll(c.path); err != nil {
		return err
	}
	c.fi = nil
	return nil
}

// create makes the missing file (with its content) or directory.
func (obj *FileRes) create(c *fileCheck) error {
	var data []byte
	var dataErr error
	if !obj.isDir() {
		if data, dataErr = obj.wantContent(); dataErr != nil && c.apply {
			return dataErr
		}
	}
	c.change("created")
	// In noop mode a source that is not there yet (another resource
	// would make it first) leaves only the diff out.
	switch {
	case dataErr != nil || data == nil:
	case obj.hidesDiff():
		c.report(hiddenChange("content", -1, len(data)))
	case len(data) <= engine.MaxDiffInput:
		c.report(textChange("content", c.path, nil, data))
	}
	if !c.apply {
		return nil
	}
	if err := obj.saveOrig(c); err != nil {
		return err
	}
	perm := uint32(0o644)
	switch {
	case obj.isDir() && obj.mode != nil:
		perm = obj.wantPerm(0o755, true)
	case obj.isDir():
		perm = 0o777 &^ processUmask() // as mkdir(1) and Puppet make it
	case obj.mode != nil:
		perm = obj.wantPerm(perm, false)
	}
	uid, gid, err := obj.owner()
	if err != nil {
		return err
	}
	if obj.isDir() {
		if err := os.Mkdir(c.path, 0o700); err != nil {
			return missingParent(c.path, err)
		}
		if err := setAttrs(c.path, perm, uid, gid); err != nil {
			return err
		}
	} else {
		var linked func()
		if c.path == obj.cleanPath() {
			linked = obj.madeByLink
		}
		if err := createAtomic(c.ctx, c.path, data, perm, uid, gid, obj.validator(c.ctx), linked); err != nil {
			return missingParent(c.path, err)
		}
		return nil // content, mode and owner were all set by the write
	}
	fi, err := os.Lstat(c.path)
	c.fi = fi
	return err
}
