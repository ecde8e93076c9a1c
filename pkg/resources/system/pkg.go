package system

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("pkg", func() engine.Res { return &PkgRes{} })
}

// PkgRes manages one system package. The name is the package name.
// Several pkg resources are grouped by the engine into one vertex, whose
// CheckApply makes all their changes in one package-manager transaction.
type PkgRes struct {
	traits.Base
	traits.Edgeable
	traits.Groupable

	// State is "installed" (the default), "uninstalled", "newest" or an
	// exact version. Two declarations of one package that want it
	// "installed" and "newest" are one resource wanting it "newest".
	State string `lang:"state" yaml:"state" adapt:"installed newest"`
	// AllowUntrusted allows packages that are not signed by a trusted key.
	// Only the applying host decides that: an exporter may not set it.
	AllowUntrusted bool `lang:"allowuntrusted" yaml:"allowuntrusted" collect:"local"`
	// AllowNonFree allows installing non-free packages (PackageKit's free
	// filter; with apt, a section starting with "non-free").
	AllowNonFree bool `lang:"allownonfree" yaml:"allownonfree"`
	// AllowDowngrade allows a version state older than the installed
	// version to downgrade the package; without it that is an error.
	// Through PackageKit, which resolves only the newest version of a
	// package, an older version is reported not available: downgrade
	// with the apt backend.
	AllowDowngrade bool `lang:"allowdowngrade" yaml:"allowdowngrade"`
	// AllowUnsupported allows installing packages that PackageKit does not
	// report as supported by the distribution (packages of local or
	// third-party repositories). apt has no such notion and ignores it.
	AllowUnsupported bool `lang:"allowunsupported" yaml:"allowunsupported"`

	// Backend forces "apt" or "packagekit"; by default PackageKit is used
	// when its daemon is reachable and apt otherwise. MGMT_PKG_BACKEND sets
	// the same for a whole run.
	Backend string `yaml:"-"`
	// Bus is the D-Bus address of the system bus PackageKit is on.
	Bus string `yaml:"-"`

	init  *engine.Init
	files *[]string // pkgFiles of the package, once looked up
}

// Default returns a new pkg resource wanting the package installed.
func (r *PkgRes) Default() engine.Res { return &PkgRes{State: "installed"} }

// Validate checks the parameters.
func (r *PkgRes) Validate() error {
	if !validPkgName(r.Name()) {
		return fmt.Errorf("invalid package name %q", r.Name())
	}
	if r.State == "" {
		return fmt.Errorf("state is empty: want installed, uninstalled, newest or a version")
	}
	if strings.ContainsAny(r.State, " \t\n;=") {
		return fmt.Errorf("invalid state %q", r.State)
	}
	switch r.Backend {
	case "", "apt", "packagekit":
	default:
		return fmt.Errorf("backend: got %q, want apt or packagekit", r.Backend)
	}
	return nil
}

func validPkgName(n string) bool {
	if n == "" || strings.HasPrefix(n, "-") {
		return false
	}
	for _, c := range n {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.ContainsRune("+-.:_", c)
		if !ok {
			return false
		}
	}
	return true
}

// Init keeps the handle.
func (r *PkgRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *PkgRes) Cleanup() error { return nil }

func (r *PkgRes) logf(format string, v ...any) {
	if r.init != nil {
		r.init.Logf(format, v...)
	}
}

// members returns the receiver and the pkg resources grouped into it.
func (r *PkgRes) members() []*PkgRes {
	out := []*PkgRes{r}
	for _, g := range r.GetGroup() {
		if p, ok := g.(*PkgRes); ok {
			out = append(out, p)
		}
	}
	return out
}

// backend opens the package backend this resource uses.
func (r *PkgRes) backend(ctx context.Context) (pkgBackend, error) {
	want := r.Backend
	if want == "" {
		want = os.Getenv("MGMT_PKG_BACKEND")
	}
	switch want {
	case "apt":
		return &aptBackend{}, nil
	case "packagekit":
		return newPKBackend(ctx, r.Bus)
	case "":
	default:
		return nil, fmt.Errorf("MGMT_PKG_BACKEND: got %q, want apt or packagekit", want)
	}
	if b, err := newPKBackend(ctx, r.Bus); err == nil {
		return b, nil
	}
	return &aptBackend{}, nil
}

// Watch reports changes of the package database.
func (r *PkgRes) Watch(ctx context.Context) error {
	b, err := r.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	return b.watch(ctx, r.init.Running, r.init.Event)
}

// pkgAction is what one package needs.
type pkgAction struct {
	name    string
	install bool   // install or upgrade to version
	remove  bool   // remove
	version string // version to install, "" for the candidate
	refresh bool   // the package index may be stale: refresh and retry
	// downgrade: version is older than the installed one (from is).
	downgrade bool
	from      string
}

// decidePkg returns what package name needs to reach state, given what the
// package manager reports.
func decidePkg(name, state string, st pkgState) pkgAction {
	a := pkgAction{name: name}
	switch state {
	case "installed":
		if st.installed == "" {
			a.install = true
			a.refresh = st.candidate == ""
		}
	case "uninstalled":
		a.remove = st.installed != ""
	case "newest":
		if st.installed == "" || (st.candidate != "" && compareDebVersions(st.candidate, st.installed) > 0) {
			a.install = true
			a.version = st.candidate
			a.refresh = st.candidate == ""
		}
	default:
		if st.installed != state {
			a.install = true
			a.version = state
			a.refresh = !st.has(state)
			if st.installed != "" && compareDebVersions(state, st.installed) < 0 {
				a.downgrade, a.from = true, st.installed
			}
		}
	}
	return a
}

// plan queries the backend and decides what every member needs. It
// refreshes the package index once when a wanted package or version is
// unknown.
func (r *PkgRes) plan(ctx context.Context, b pkgBackend, apply bool) ([]pkgAction, error) {
	ms := r.members()
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name()
	}
	refreshed := false
	for {
		states, err := b.query(ctx, names)
		if err != nil {
			return nil, err
		}
		var acts []pkgAction
		stale := false
		for _, m := range ms {
			a := decidePkg(m.Name(), m.State, states[m.Name()])
			if a.downgrade && !m.AllowDowngrade {
				return nil, fmt.Errorf("package %s: version %s is older than the installed %s: set allowdowngrade to downgrade it", a.name, a.version, a.from)
			}
			stale = stale || a.refresh
			if a.install || a.remove {
				acts = append(acts, a)
			}
		}
		if !stale || refreshed || !apply {
			for _, a := range acts {
				if a.refresh && apply {
					return nil, fmt.Errorf("package %s: %s", a.name, missingWhat(a))
				}
			}
			return acts, nil
		}
		r.logf("%s: refreshing the package index", r)
		if err := b.refresh(ctx); err != nil {
			return nil, err
		}
		refreshed = true
	}
}

func missingWhat(a pkgAction) string {
	if a.version != "" {
		return "version " + a.version + " is not available"
	}
	return "no installable candidate"
}

// CheckApply installs, upgrades and removes the packages of the group in one
// transaction.
func (r *PkgRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	b, err := r.backend(ctx)
	if err != nil {
		return false, err
	}
	defer b.close()
	acts, err := r.plan(ctx, b, apply)
	if err != nil {
		return false, err
	}
	if len(acts) == 0 {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	// GroupCmp keeps the options of a group's members equal
	opts := pkgOpts{untrusted: r.AllowUntrusted, nonFree: r.AllowNonFree, unsupported: r.AllowUnsupported}
	for _, a := range acts {
		// plan refused every downgrade its member did not allow
		opts.downgrade = opts.downgrade || a.downgrade
	}
	start := time.Now()
	if err := b.apply(ctx, acts, opts); err != nil {
		return false, err
	}
	r.logf("%s: %s: one %s transaction for %d package(s): %s in %v", r, b.name(), b.name(),
		len(acts), describeActions(acts), time.Since(start).Round(time.Millisecond))
	return false, nil
}

func describeActions(acts []pkgAction) string {
	var parts []string
	for _, a := range acts {
		switch {
		case a.remove:
			parts = append(parts, "remove "+a.name)
		case a.version != "":
			parts = append(parts, "install "+a.name+"="+a.version)
		default:
			parts = append(parts, "install "+a.name)
		}
	}
	return strings.Join(parts, ", ")
}

// Cmp compares two pkg resources.
func (r *PkgRes) Cmp(other engine.Res) error {
	o, ok := other.(*PkgRes)
	if !ok {
		return fmt.Errorf("not a pkg resource")
	}
	if err := r.cmpOpts(o); err != nil {
		return err
	}
	if r.State != o.State {
		return fmt.Errorf("state differs: %q vs %q", r.State, o.State)
	}
	if r.AllowDowngrade != o.AllowDowngrade {
		return fmt.Errorf("allowdowngrade differs")
	}
	a, b := r.members(), o.members()
	if len(a) != len(b) {
		return fmt.Errorf("group sizes differ")
	}
	for i := 1; i < len(a); i++ {
		if a[i].Name() != b[i].Name() {
			return fmt.Errorf("group members differ")
		}
		if err := a[i].Cmp(b[i]); err != nil {
			return err
		}
	}
	return nil
}

func (r *PkgRes) cmpOpts(o *PkgRes) error {
	switch {
	case r.AllowUntrusted != o.AllowUntrusted:
		return fmt.Errorf("allowuntrusted differs")
	case r.AllowNonFree != o.AllowNonFree:
		return fmt.Errorf("allownonfree differs")
	case r.AllowUnsupported != o.AllowUnsupported:
		return fmt.Errorf("allowunsupported differs")
	case r.Backend != o.Backend:
		return fmt.Errorf("backend differs")
	case r.Bus != o.Bus:
		return fmt.Errorf("bus differs")
	}
	return nil
}

// GroupCmp accepts another ungrouped pkg resource with the same options.
func (r *PkgRes) GroupCmp(g engine.Groupable) error {
	o, ok := g.(*PkgRes)
	if !ok {
		return fmt.Errorf("not a pkg resource")
	}
	if o.IsGrouped() || len(o.GetGroup()) > 0 {
		return fmt.Errorf("%s is already part of a group", o)
	}
	return r.cmpOpts(o)
}

// GroupRes merges g into the receiver.
func (r *PkgRes) GroupRes(g engine.Groupable) error {
	if err := r.GroupCmp(g); err != nil {
		return err
	}
	g.SetGrouped(true)
	r.SetGroup(append(r.GetGroup(), g))
	return nil
}

// A PkgFileUID matches a file that the package ships: svc resources look
// for it to come after the package providing their unit file. Its name is
// the path (never a valid package name, so it cannot be confused with the
// package's own UID).
type PkgFileUID struct {
	engine.BaseUID
	Path string
}

func newPkgFileUID(path string) *PkgFileUID {
	return &PkgFileUID{BaseUID: engine.BaseUID{Kind: "pkg", Name: path}, Path: path}
}

// IFF matches another PkgFileUID of the same path.
func (u *PkgFileUID) IFF(uid engine.ResUID) bool {
	o, ok := uid.(*PkgFileUID)
	return ok && o.Path == u.Path
}

// shippedFiles returns the files the package ships, looked up once, or
// nil when it is to be removed (nothing needs to come after it then).
func (r *PkgRes) shippedFiles() []string {
	if r.State == "uninstalled" {
		return nil
	}
	if r.files == nil {
		fs := pkgFiles(r.Name())
		r.files = &fs
	}
	return *r.files
}

// UIDs identifies the packages of the group and every file they ship.
func (r *PkgRes) UIDs() []engine.ResUID {
	var out []engine.ResUID
	for _, m := range r.members() {
		out = append(out, &engine.BaseUID{Kind: "pkg", Name: m.Name()})
		for _, f := range m.shippedFiles() {
			out = append(out, newPkgFileUID(f))
		}
	}
	return out
}

// AutoEdges puts the file resources of paths a managed package ships after
// the package.
func (r *PkgRes) AutoEdges() (engine.AutoEdge, error) {
	rev := true
	var files []engine.ResUID
	for _, m := range r.members() {
		for _, f := range m.shippedFiles() {
			files = append(files, &engine.BaseUID{Kind: "file", Name: f, Reversed: &rev})
		}
	}
	return &uidBatches{batches: [][]engine.ResUID{files}}, nil
}

// pkgFiles returns the paths a package ships: dpkg's list when it is
// installed, else the contents of its .deb when apt would fetch it from a
// local (file:) repository. Packages from remote repositories that are not
// installed yet have no known files: nothing is downloaded to find them.
func pkgFiles(name string) []string {
	if fs := dpkgFiles("", name); fs != nil {
		return fs
	}
	if !aptLocalSources("/etc/apt") {
		return nil // apt can only name remote files: no need to ask it
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "apt-get", "download", "--print-uris", "-q", "--", name).Output()
	if err != nil {
		return nil
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return nil
	}
	uri := strings.Trim(f[0], "'")
	path, ok := strings.CutPrefix(uri, "file:")
	if !ok {
		return nil
	}
	path = strings.TrimPrefix(path, "//")
	list, err := exec.CommandContext(ctx, "dpkg-deb", "--fsys-tarfile", path).Output()
	if err != nil {
		return nil
	}
	return tarFiles(list)
}

// tarFiles lists the regular files and symlinks of a tar archive as
// absolute paths.
func tarFiles(b []byte) []string {
	var out []string
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		out = append(out, filepath.Clean("/"+h.Name))
	}
	sort.Strings(out)
	return out
}

// dpkgFiles returns the regular paths dpkg lists for an installed package
// (directories excluded), or nil.
func dpkgFiles(root, name string) []string {
	base := joinRoot(root, "/var/lib/dpkg/info/")
	f, err := os.Open(base + name + ".list")
	if err != nil {
		matches, _ := globArch(base, name)
		if len(matches) == 0 {
			return nil
		}
		if f, err = os.Open(matches[0]); err != nil {
			return nil
		}
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := sc.Text()
		if p == "" || p == "/." {
			continue
		}
		if fi, err := os.Lstat(joinRoot(root, p)); err == nil && fi.IsDir() {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
