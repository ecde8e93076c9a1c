package system

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
)

// PackageKit's D-Bus names and the enum values it uses (bitfields are
// 1<<value).
const (
	pkName            = "org.freedesktop.PackageKit"
	pkPath            = "/org/freedesktop/PackageKit"
	pkTransIf         = "org.freedesktop.PackageKit.Transaction"
	pkFilterNo        = 1 << 1  // PK_FILTER_ENUM_NONE
	pkFilterFree      = 1 << 8  // PK_FILTER_ENUM_FREE
	pkFilterSupported = 1 << 12 // PK_FILTER_ENUM_SUPPORTED

	pkInfoInstalled = 1 // PK_INFO_ENUM_INSTALLED

	pkFlagOnlyTrusted    = 1 << 1 // PK_TRANSACTION_FLAG_ENUM_ONLY_TRUSTED
	pkFlagAllowDowngrade = 1 << 6 // PK_TRANSACTION_FLAG_ENUM_ALLOW_DOWNGRADE

	pkExitSuccess = 1 // PK_EXIT_ENUM_SUCCESS
)

// pkBackend talks to the PackageKit daemon over the system bus.
type pkBackend struct {
	conn  *dbus.Conn
	local bool // the bus is this host's, so its dpkg status file is ours
}

// newPKBackend connects to the bus at addr and checks that PackageKit is
// running or activatable there.
func newPKBackend(ctx context.Context, addr string) (*pkBackend, error) {
	conn, err := dialBus(context.Background(), addr, false)
	if err != nil {
		return nil, err
	}
	if !nameAvailable(ctx, conn, pkName) {
		conn.Close()
		return nil, fmt.Errorf("packagekit is not available on the system bus")
	}
	return &pkBackend{conn: conn, local: isDefaultSystemBus(addr)}, nil
}

func (b *pkBackend) name() string { return "packagekit" }
func (b *pkBackend) close()       { b.conn.Close() }

// pkPackage is one Package signal of a transaction.
type pkPackage struct {
	info uint32
	id   string
}

// pkSplitID splits a package ID "name;version;arch;data".
func pkSplitID(id string) (name, version, arch, data string) {
	f := strings.SplitN(id, ";", 4)
	for len(f) < 4 {
		f = append(f, "")
	}
	return f[0], f[1], f[2], f[3]
}

// transaction creates a transaction, calls method on it and collects its
// Package signals until it finishes.
func (b *pkBackend) transaction(ctx context.Context, method string, args ...any) ([]pkPackage, error) {
	var tpath dbus.ObjectPath
	err := b.conn.Object(pkName, pkPath).CallWithContext(ctx, pkName+".CreateTransaction", 0).Store(&tpath)
	if err != nil {
		return nil, fmt.Errorf("packagekit: create transaction: %v", err)
	}
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(tpath), dbus.WithMatchInterface(pkTransIf)}
	if err := b.conn.AddMatchSignalContext(ctx, match...); err != nil {
		return nil, fmt.Errorf("packagekit: d-bus match: %v", err)
	}
	defer b.conn.RemoveMatchSignal(match...)
	ch := make(chan *dbus.Signal, 256)
	b.conn.Signal(ch)
	defer b.conn.RemoveSignal(ch)
	obj := b.conn.Object(pkName, tpath)
	if err := obj.CallWithContext(ctx, pkTransIf+".SetHints", 0, []string{"interactive=false"}).Err; err != nil {
		return nil, fmt.Errorf("packagekit: set hints: %v", err)
	}
	if err := obj.CallWithContext(ctx, pkTransIf+"."+method, 0, args...).Err; err != nil {
		return nil, fmt.Errorf("packagekit: %s: %v", method, err)
	}
	var pkgs []pkPackage
	var errMsg string
	for {
		select {
		case <-ctx.Done():
			obj.Call(pkTransIf+".Cancel", 0)
			return nil, ctx.Err()
		case sig, ok := <-ch:
			if !ok {
				return nil, fmt.Errorf("packagekit: d-bus connection closed")
			}
			if sig.Path != tpath {
				continue
			}
			switch sig.Name {
			case pkTransIf + ".Package":
				if len(sig.Body) >= 2 {
					info, _ := sig.Body[0].(uint32)
					id, _ := sig.Body[1].(string)
					pkgs = append(pkgs, pkPackage{info: info, id: id})
				}
			case pkTransIf + ".ErrorCode":
				if len(sig.Body) >= 2 {
					errMsg, _ = sig.Body[1].(string)
				}
			case pkTransIf + ".Finished":
				exit, _ := sig.Body[0].(uint32)
				if exit != pkExitSuccess {
					if errMsg == "" {
						errMsg = fmt.Sprintf("exit code %d", exit)
					}
					return nil, fmt.Errorf("packagekit: %s: %s", method, oneLine(errMsg))
				}
				return pkgs, nil
			case pkTransIf + ".Destroy":
				return nil, fmt.Errorf("packagekit: %s: transaction destroyed before it finished", method)
			}
		}
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func (b *pkBackend) query(ctx context.Context, names []string) (map[string]pkgState, error) {
	pkgs, err := b.transaction(ctx, "Resolve", uint64(pkFilterNo), names)
	if err != nil {
		return nil, err
	}
	return pkStates(pkgs), nil
}

// pkStates folds Resolve results into package states. PackageKit may
// report the same ID more than once (two versions of a package in one
// repository); duplicates are dropped. The candidate is the newest version.
func pkStates(pkgs []pkPackage) map[string]pkgState {
	res := map[string]pkgState{}
	seen := map[string]bool{}
	for _, p := range pkgs {
		if seen[p.id] {
			continue
		}
		seen[p.id] = true
		name, ver, _, _ := pkSplitID(p.id)
		st := res[name]
		if st.ids == nil {
			st.ids = map[string]string{}
		}
		if p.info == pkInfoInstalled {
			st.installed = ver
			st.installedID = p.id
		}
		if _, ok := st.ids[ver]; !ok || p.info != pkInfoInstalled {
			st.ids[ver] = p.id // prefer the installable ID of a version
		}
		if !st.has(ver) {
			st.versions = append(st.versions, ver)
		}
		res[name] = st
	}
	for name, st := range res {
		sort.Slice(st.versions, func(i, j int) bool { return compareDebVersions(st.versions[i], st.versions[j]) < 0 })
		if len(st.versions) > 0 {
			st.candidate = st.versions[len(st.versions)-1]
		}
		res[name] = st
	}
	return res
}

func (b *pkBackend) refresh(ctx context.Context) error {
	_, err := b.transaction(ctx, "RefreshCache", false)
	return err
}

// apply resolves the wanted package IDs and runs at most three calls: one
// InstallPackages, one UpdatePackages (newer versions of installed
// packages) and one RemovePackages.
func (b *pkBackend) apply(ctx context.Context, acts []pkgAction, opts pkgOpts) error {
	names := make([]string, len(acts))
	for i, a := range acts {
		names[i] = a.name
	}
	states, err := b.query(ctx, names)
	if err != nil {
		return err
	}
	if err := b.checkAllowed(ctx, acts, opts); err != nil {
		return err
	}
	var install, update, remove []string
	for _, a := range acts {
		st := states[a.name]
		if a.remove {
			remove = append(remove, st.installedID)
			continue
		}
		v := a.version
		if v == "" {
			v = st.candidate
		}
		id, ok := st.ids[v]
		if !ok {
			return fmt.Errorf("package %s: version %s is not available", a.name, v)
		}
		if st.installed != "" && compareDebVersions(v, st.installed) > 0 {
			update = append(update, id)
		} else {
			install = append(install, id)
		}
	}
	var flags uint64
	if opts.downgrade {
		flags |= pkFlagAllowDowngrade
	}
	if !opts.untrusted {
		flags |= pkFlagOnlyTrusted
	}
	if len(install) > 0 {
		if _, err := b.transaction(ctx, "InstallPackages", flags, install); err != nil {
			return err
		}
	}
	if len(update) > 0 {
		if _, err := b.transaction(ctx, "UpdatePackages", flags, update); err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		if _, err := b.transaction(ctx, "RemovePackages", flags&^pkFlagAllowDowngrade, remove, false, false); err != nil {
			return err
		}
	}
	return nil
}

// checkAllowed refuses to install packages that PackageKit's free or
// supported filters hide, unless the options allow them. The filters are
// applied only here: the installed state is always read unfiltered, so that
// an unsupported package can still be removed.
func (b *pkBackend) checkAllowed(ctx context.Context, acts []pkgAction, opts pkgOpts) error {
	var filter uint64
	if !opts.nonFree {
		filter |= pkFilterFree
	}
	if !opts.unsupported {
		filter |= pkFilterSupported
	}
	var names []string
	for _, a := range acts {
		if !a.remove {
			names = append(names, a.name)
		}
	}
	if filter == 0 || len(names) == 0 {
		return nil
	}
	pkgs, err := b.transaction(ctx, "Resolve", filter, names)
	if err != nil {
		return err
	}
	visible := pkStates(pkgs)
	for _, n := range names {
		if len(visible[n].versions) == 0 {
			return fmt.Errorf("package %s is not free or not supported by the distribution: "+
				"set allownonfree or allowunsupported to install it", n)
		}
	}
	return nil
}

// watch waits for PackageKit's signals about changed packages and, when the
// bus is this host's own, for changes of dpkg's status file (packages
// changed without PackageKit).
func (b *pkBackend) watch(ctx context.Context, running, event func()) error {
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(pkPath), dbus.WithMatchInterface(pkName)}
	if err := b.conn.AddMatchSignalContext(ctx, match...); err != nil {
		return fmt.Errorf("packagekit: d-bus match: %v", err)
	}
	ch := make(chan *dbus.Signal, 64)
	b.conn.Signal(ch)
	defer b.conn.RemoveSignal(ch)
	errc := make(chan error, 1)
	if b.local {
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ready := make(chan struct{})
		go func() { errc <- watchFiles(fctx, []string{"/var/lib/dpkg/status"}, func() { close(ready) }, event) }()
		select {
		case <-ready:
		case err := <-errc:
			return err
		}
	}
	running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			return err
		case sig, ok := <-ch:
			if !ok {
				return fmt.Errorf("packagekit: d-bus connection closed")
			}
			// TransactionListChanged is left out: our own queries would
			// trigger it and loop.
			if sig.Name == pkName+".UpdatesChanged" || sig.Name == pkName+".RepoListChanged" {
				event()
			}
		}
	}
}
