package system

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("mount", func() engine.Res { return &MountRes{} })
}

// MountRes manages a mount point: its /etc/fstab entry and the live mount.
// The name is the mount point. With state "exists" the entry is written and
// the file system mounted (unmounted first if something else is mounted
// there); with "absent" it is unmounted and the entry removed.
type MountRes struct {
	traits.Base

	// State is "exists" (mounted, with its fstab entry) or "absent".
	State string `lang:"state" yaml:"state"`
	// Device is what to mount: a device path, UUID=..., LABEL=..., or a
	// remote file system's source.
	Device string `lang:"device" yaml:"device"`
	// Type is the file system type (ext4, xfs, nfs, tmpfs, ...).
	Type string `lang:"type" yaml:"type"`
	// Options are the mount options, name to value ("" for a flag such
	// as ro); none means "defaults".
	Options map[string]string `lang:"options" yaml:"options"`
	// Freq is the dump frequency field of the fstab entry.
	Freq int `lang:"freq" yaml:"freq"`
	// PassNo is the fsck pass field of the fstab entry (0, 1 or 2).
	PassNo int `lang:"passno" yaml:"passno"`

	// Fstab is the fstab file to manage (default /etc/fstab).
	Fstab string `yaml:"-"`

	init *engine.Init
}

// Default returns a new mount resource wanting the mount to exist.
func (r *MountRes) Default() engine.Res { return &MountRes{State: "exists"} }

func (r *MountRes) fstab() string { return orDefault(r.Fstab, "/etc/fstab") }

// Validate checks the parameters.
func (r *MountRes) Validate() error {
	if !filepath.IsAbs(r.Name()) || filepath.Clean(r.Name()) != r.Name() {
		return fmt.Errorf("mount point %q: want a clean absolute path", r.Name())
	}
	switch r.State {
	case "absent":
		return nil
	case "exists":
	default:
		return fmt.Errorf("state: got %q, want exists or absent", r.State)
	}
	if r.Device == "" || r.Type == "" {
		return fmt.Errorf("device and type are required when state is exists")
	}
	if r.Freq < 0 || r.PassNo < 0 || r.PassNo > 2 {
		return fmt.Errorf("freq must be >= 0 and passno 0, 1 or 2")
	}
	for k, v := range r.Options {
		if k == "" || strings.ContainsAny(k+v, " \t\n,") || strings.Contains(k, "=") {
			return fmt.Errorf("invalid mount option %q=%q", k, v)
		}
	}
	return nil
}

// optionString renders the options map the fstab way, sorted by key.
func optionString(opts map[string]string) string {
	if len(opts) == 0 {
		return "defaults"
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if opts[k] != "" {
			keys[i] = k + "=" + opts[k]
		}
	}
	return strings.Join(keys, ",")
}

// fstabEscape escapes a field the way fstab and mountinfo do: control
// characters, space and backslash become octal escapes.
func fstabEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == '\\' || c == 0x7f {
			fmt.Fprintf(&b, "\\%03o", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// fstabFields splits an fstab or mountinfo line on blanks (spaces and tabs
// only, as libmount does).
func fstabFields(l string) []string {
	return strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' })
}

// fstabUnescape undoes fstabEscape.
func fstabUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// fstabLine is the entry this resource wants.
func (r *MountRes) fstabLine() string {
	return fmt.Sprintf("%s %s %s %s %d %d", fstabEscape(r.Device), fstabEscape(r.Name()), r.Type,
		optionString(r.Options), r.Freq, r.PassNo)
}

// editFstab returns the fstab text with the entry for mount point mp
// replaced by line (or removed when line is ""), and whether it changed.
func editFstab(text, mp, line string) (string, bool) {
	var out []string
	found, changed := false, false
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	for _, l := range lines {
		f := fstabFields(l)
		if len(f) >= 2 && !strings.HasPrefix(f[0], "#") && fstabUnescape(f[1]) == mp {
			if found || line == "" {
				changed = true
				continue
			}
			found = true
			if strings.Join(f, " ") != strings.Join(fstabFields(line), " ") {
				changed = true
				l = line
			}
		}
		out = append(out, l)
	}
	if !found && line != "" {
		out = append(out, line)
		changed = true
	}
	if len(out) == 0 {
		return "", changed
	}
	return strings.Join(out, "\n") + "\n", changed
}

// liveMount is a mount point's entry in mountinfo.
type liveMount struct{ source, fstype string }

// parseMountinfo returns the last (topmost) mount on mp in mountinfo text.
func parseMountinfo(text, mp string) (liveMount, bool) {
	var m liveMount
	found := false
	for _, l := range strings.Split(text, "\n") {
		f := fstabFields(l)
		if len(f) < 10 || fstabUnescape(f[4]) != mp {
			continue
		}
		for i := 6; i < len(f)-2; i++ {
			if f[i] == "-" {
				m, found = liveMount{source: fstabUnescape(f[i+2]), fstype: f[i+1]}, true
				break
			}
		}
	}
	return m, found
}

// Init keeps the handle.
func (r *MountRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *MountRes) Cleanup() error { return nil }

// Watch reports fstab edits and every mount table change.
func (r *MountRes) Watch(ctx context.Context) error {
	errc := make(chan error, 2)
	ready := make(chan struct{}, 2)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run := func() { ready <- struct{}{} }
	go func() { errc <- watchFiles(wctx, []string{r.fstab()}, run, r.init.Event) }()
	go func() { errc <- watchPollPri(wctx, "/proc/self/mountinfo", run, r.init.Event) }()
	for i := 0; i < 2; i++ {
		select {
		case <-ready:
		case err := <-errc:
			return err
		}
	}
	r.init.Running()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return err
	}
}

// sameDevice reports whether the mounted source is the wanted device,
// resolving UUID=, LABEL= and symlinks such as /dev/disk/by-*.
func sameDevice(want, have string) bool {
	if want == have {
		return true
	}
	for _, p := range []string{"UUID", "LABEL", "PARTUUID", "PARTLABEL"} {
		if v, ok := strings.CutPrefix(want, p+"="); ok {
			want = "/dev/disk/by-" + strings.ToLower(p) + "/" + v
		}
	}
	a, err1 := filepath.EvalSymlinks(want)
	b, err2 := filepath.EvalSymlinks(have)
	return err1 == nil && err2 == nil && a == b
}

// CheckApply repairs the fstab entry and the live mount.
func (r *MountRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	old := readFileString(r.fstab())
	line := ""
	if r.State == "exists" {
		line = r.fstabLine()
	}
	text, fstabChanged := editFstab(old, r.Name(), line)
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false, err
	}
	live, mounted := parseMountinfo(string(info), r.Name())
	wrong := mounted && r.State == "exists" && (live.fstype != r.Type || !sameDevice(r.Device, live.source))
	needMount := r.State == "exists" && (!mounted || wrong)
	needUmount := (r.State == "absent" && mounted) || wrong
	if !fstabChanged && !needMount && !needUmount {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	if needUmount {
		r.logf("%s: umount", r)
		if _, err := runCmd(ctx, "umount", "--", r.Name()); err != nil {
			return false, err
		}
	}
	if fstabChanged {
		r.logf("%s: update %s", r, r.fstab())
		if err := writeFileAtomic(r.fstab(), []byte(text), 0o644); err != nil {
			return false, err
		}
	}
	if needMount {
		if err := os.MkdirAll(r.Name(), 0o755); err != nil {
			return false, err
		}
		r.logf("%s: mount", r)
		_, err := runCmd(ctx, "mount", "-t", r.Type, "-o", optionString(r.Options), "--", r.Device, r.Name())
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

func (r *MountRes) logf(format string, v ...any) {
	if r.init != nil {
		r.init.Logf(format, v...)
	}
}

// Cmp compares two mount resources.
func (r *MountRes) Cmp(other engine.Res) error {
	o, ok := other.(*MountRes)
	if !ok {
		return fmt.Errorf("not a mount resource")
	}
	if r.State != o.State || r.Device != o.Device || r.Type != o.Type || r.Freq != o.Freq ||
		r.PassNo != o.PassNo || r.Fstab != o.Fstab || optionString(r.Options) != optionString(o.Options) {
		return fmt.Errorf("mount parameters differ")
	}
	return nil
}
