package resources

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("sysctl", func() engine.Res { return &SysctlRes{Runtime: true, Persist: true} })
}

// SysctlRes sets a kernel parameter now (under /proc/sys) and keeps it in
// a sysctl.d file for the next boot. See the package documentation.
type SysctlRes struct {
	traits.Base
	traits.Edgeable

	init *engine.Init

	// Value is the wanted value, as sysctl(8) shows it.
	Value string `lang:"value" yaml:"value"`
	// Runtime enforces the live value.
	Runtime bool `lang:"runtime" yaml:"runtime"`
	// Persist enforces the assignment in the conf file.
	Persist bool `lang:"persist" yaml:"persist"`
	// Path is the conf file; it defaults to
	// /etc/sysctl.d/99-<name>.conf. An exporter may not set it.
	Path string `lang:"path" yaml:"path" collect:"local"`

	procRoot string // /proc/sys, unless a test points elsewhere
}

// Default returns a sysctl resource with its defaults.
func (s *SysctlRes) Default() engine.Res { return &SysctlRes{Runtime: true, Persist: true} }

// Validate checks the name, the value and the conf file.
func (s *SysctlRes) Validate() error {
	if err := validSysctlName(s.Name()); err != nil {
		return err
	}
	switch {
	case s.Value == "":
		return fmt.Errorf("value is empty")
	case strings.TrimSpace(s.Value) != s.Value:
		return fmt.Errorf("value %q has white space around it", s.Value)
	case strings.ContainsAny(s.Value, "\n\x00"):
		return fmt.Errorf("value %q spans lines", s.Value)
	case !s.Runtime && !s.Persist:
		return fmt.Errorf("runtime and persist are both off: nothing to manage")
	}
	if s.Persist {
		if err := validEditPath("path", s.path(), false); err != nil {
			return err
		}
		if !strings.HasSuffix(s.path(), ".conf") {
			return fmt.Errorf("path %q must end in .conf (sysctl.d reads no other files)", s.path())
		}
	}
	return nil
}

// validSysctlName checks a sysctl name: dotted ("net.ipv4.ip_forward") or
// slashed ("net/ipv4/conf/eth0.1/rp_filter"), without empty, "." or ".."
// components, white space or "=".
func validSysctlName(n string) error {
	if n == "" || strings.ContainsAny(n, " \t\r\n=\x00") {
		return fmt.Errorf("sysctl name %q is empty or holds white space or '='", n)
	}
	for _, c := range strings.Split(sysctlPath(n), "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("sysctl name %q has an empty, '.' or '..' component", n)
		}
	}
	return nil
}

// sysctlPath returns the path of a sysctl under /proc/sys, as sysctl.d(5)
// reads names: when the first separator is a dot, dots and slashes are
// swapped ("net.ipv4.conf.eth0/1.rp_filter" is
// net/ipv4/conf/eth0.1/rp_filter); when it is a slash, the name is the
// path.
func sysctlPath(n string) string {
	if i := strings.IndexAny(n, "./"); i < 0 || n[i] == '/' {
		return n
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.':
			return '/'
		case '/':
			return '.'
		}
		return r
	}, n)
}

// path returns the conf file.
func (s *SysctlRes) path() string {
	if s.Path != "" {
		return s.Path
	}
	return "/etc/sysctl.d/99-" + strings.ReplaceAll(sysctlPath(s.Name()), "/", ".") + ".conf"
}

// procFile returns the file of the sysctl under /proc/sys.
func (s *SysctlRes) procFile() string {
	root := s.procRoot
	if root == "" {
		root = "/proc/sys"
	}
	return filepath.Join(root, sysctlPath(s.Name()))
}

// Init keeps the handle.
func (s *SysctlRes) Init(init *engine.Init) error {
	s.init = init
	if s.Persist {
		sweepBeside(s.path())
	}
	return nil
}

// Cleanup does nothing.
func (s *SysctlRes) Cleanup() error { return nil }

// Watch follows the /proc/sys file (a write to it through the file system
// is seen; a change the kernel makes by itself is not) and the conf file.
func (s *SysctlRes) Watch(ctx context.Context) error {
	var paths []string
	if s.Runtime {
		paths = append(paths, s.procFile())
	}
	if s.Persist {
		paths = append(paths, s.path())
	}
	return watchFiles(ctx, s.init, paths, fswatch.Options{})
}

// CheckApply checks and sets the live value, then the conf file.
func (s *SysctlRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	var changes []engine.Change
	if s.Runtime {
		old, changed, err := s.runtime(apply)
		if err != nil {
			return false, err
		}
		if changed {
			changes = append(changes, engine.Change{What: "live value", From: old, To: s.Value})
		}
	}
	if s.Persist {
		create := &newFileAttrs{perm: 0o644, uid: -1, gid: -1}
		ed, err := editFile(ctx, s.path(), apply, create, linesEdit(s.persistEdit))
		if err != nil {
			return false, err
		}
		if ed.changed {
			changes = append(changes, ed.change(s.path()))
		}
	}
	reportChanges(s.init, changes...)
	return len(changes) == 0, nil
}

// runtime compares and writes the live value; it returns the value it
// found when it differs.
func (s *SysctlRes) runtime(apply bool) (string, bool, error) {
	p := s.procFile()
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("no sysctl %s: %s does not exist", s.Name(), p)
	}
	if err != nil {
		return "", false, err
	}
	old := strings.TrimSuffix(string(b), "\n")
	if sameSysctl(old, s.Value) {
		return "", false, nil
	}
	if !apply {
		return old, true, nil
	}
	f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return old, true, err
	}
	_, err = f.WriteString(s.Value + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return old, true, fmt.Errorf("setting %s to %q: %v", s.Name(), s.Value, bareErr(err))
	}
	return old, true, nil
}

// sameSysctl reports whether the live value have is the wanted value
// want: the same text, or the same list of integers however they are
// spaced (the kernel separates them with tabs).
func sameSysctl(have, want string) bool {
	if have == want {
		return true
	}
	h, w := strings.Fields(have), strings.Fields(want)
	if len(h) != len(w) {
		return false
	}
	for i := range h {
		a, err1 := strconv.ParseInt(h[i], 10, 64)
		b, err2 := strconv.ParseInt(w[i], 10, 64)
		if err1 != nil || err2 != nil || a != b {
			return false
		}
	}
	return true
}

// persistEdit makes "name = value" the only assignment of the sysctl in
// the conf file (in place of the first one, or appended), keeping every
// other line.
func (s *SysctlRes) persistEdit(t *textLines) error {
	want := s.Name() + " = " + s.Value
	me := sysctlPath(s.Name())
	out := t.lines[:0:0]
	found := false
	for _, l := range t.lines {
		k, _, ok := strings.Cut(l, "=")
		k = strings.TrimPrefix(strings.TrimSpace(k), "-")
		if !ok || strings.HasPrefix(k, "#") || strings.HasPrefix(k, ";") || sysctlPath(k) != me {
			out = append(out, l)
			continue
		}
		if !found {
			out = append(out, want)
		}
		found = true
	}
	t.lines = out
	if !found {
		t.ensure([]string{want})
	}
	return nil
}

// UIDs returns the sysctl's UID.
func (s *SysctlRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: s.Kind(), Name: s.Name()}}
}

// AutoEdges makes the sysctl wait for the file resources of its conf file
// and of the nearest directory above it.
func (s *SysctlRes) AutoEdges() (engine.AutoEdge, error) {
	if !s.Persist {
		return nil, nil
	}
	return fileAutoEdges(s.path()), nil
}

// Cmp compares two sysctl resources.
func (s *SysctlRes) Cmp(r engine.Res) error {
	return cmpParams(s, r)
}
