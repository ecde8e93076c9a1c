package system

import (
	"context"
	"fmt"
	"strings"

	sdbus "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("svc", func() engine.Res { return &SvcRes{} })
}

// SvcRes manages a systemd unit over systemd's D-Bus API: whether it runs
// and whether it is enabled at boot. A refresh notification restarts a
// running unit, or reloads it when the unit supports reloading (refresh
// "restart" always restarts it). The name is
// the unit name; ".service" is appended when it has no unit suffix.
// Shell commands may replace single actions: statuscmd decides whether the
// service runs, startcmd, stopcmd and restartcmd (on a refresh) act
// instead of the unit's start, stop and reload or restart; enabling stays
// with systemd. They run with /bin/sh -c as the user of mgmt-apply, in a
// session of their own, without HOME, USER and LOGNAME.
type SvcRes struct {
	traits.Base
	traits.Edgeable
	traits.Refreshable

	// State is "running", "stopped", or empty to leave it alone.
	State string `lang:"state" yaml:"state"`
	// Startup is "enabled", "disabled", or empty to leave it alone.
	Startup string `lang:"startup" yaml:"startup"`
	// Session manages a unit of the user's session manager instead of the
	// system's.
	Session bool `lang:"session" yaml:"session"`

	// StatusCmd, when set, is a shell command (run with /bin/sh -c) that
	// tells whether the service runs, instead of the unit's state: exit
	// status 0 means running, any other stopped. It decides whether state
	// holds and whether a refresh restarts.
	StatusCmd string `lang:"statuscmd" yaml:"statuscmd" collect:"local"`
	// StartCmd, when set, is the shell command run to start the service
	// instead of starting the unit; a non-zero exit status is an error.
	StartCmd string `lang:"startcmd" yaml:"startcmd" collect:"local"`
	// StopCmd, when set, is the shell command run to stop the service
	// instead of stopping the unit; a non-zero exit status is an error.
	StopCmd string `lang:"stopcmd" yaml:"stopcmd" collect:"local"`
	// RestartCmd, when set, is the shell command a refresh runs when the
	// service runs, instead of reloading or restarting the unit; a
	// non-zero exit status is an error.
	RestartCmd string `lang:"restartcmd" yaml:"restartcmd" collect:"local"`
	// Refresh is what a refresh notification does to a running unit:
	// "reload-or-restart" (the default when empty) reloads a unit that
	// supports reloading and restarts any other, "restart" always
	// restarts it (systemctl restart).
	Refresh string `lang:"refresh" yaml:"refresh"`

	// Bus is the D-Bus address to use instead of the default system (or
	// session) bus, e.g. unix:path=/proc/PID/root/run/dbus/system_bus_socket
	// to reach the systemd of a container.
	Bus string `yaml:"-"`

	init *engine.Init
}

var unitSuffixes = []string{".service", ".socket", ".timer", ".target", ".mount",
	".path", ".slice", ".scope", ".swap", ".automount", ".device"}

// Unit returns the full unit name.
func (r *SvcRes) Unit() string {
	for _, s := range unitSuffixes {
		if strings.HasSuffix(r.Name(), s) {
			return r.Name()
		}
	}
	return r.Name() + ".service"
}

// Default returns a new svc resource.
func (r *SvcRes) Default() engine.Res { return &SvcRes{} }

// Validate checks the parameters.
func (r *SvcRes) Validate() error {
	if r.Name() == "" || strings.ContainsAny(r.Name(), "/ \t\n") {
		return fmt.Errorf("invalid unit name %q", r.Name())
	}
	switch r.State {
	case "", "running", "stopped":
	default:
		return fmt.Errorf("state: got %q, want running or stopped", r.State)
	}
	switch r.Startup {
	case "", "enabled", "disabled":
	default:
		return fmt.Errorf("startup: got %q, want enabled or disabled", r.Startup)
	}
	switch r.Refresh {
	case "", "reload-or-restart", "restart":
	default:
		return fmt.Errorf("refresh: got %q, want reload-or-restart or restart", r.Refresh)
	}
	if r.Refresh != "" && r.RestartCmd != "" {
		return fmt.Errorf("refresh and restartcmd cannot be combined: restartcmd replaces the refresh action")
	}
	return nil
}

// Init keeps the handle.
func (r *SvcRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *SvcRes) Cleanup() error { return nil }

func (r *SvcRes) logf(format string, v ...any) {
	if r.init != nil {
		r.init.Logf(format, v...)
	}
}

// Watch subscribes to systemd's signals and reports every property change
// of the unit, unit file changes (enable/disable) and daemon reloads.
func (r *SvcRes) Watch(ctx context.Context) error {
	conn, err := dialBus(ctx, r.Bus, r.Session)
	if err != nil {
		return err
	}
	defer conn.Close()
	path := dbus.ObjectPath("/org/freedesktop/systemd1/unit/" + sdbus.PathBusEscape(r.Unit()))
	matches := [][]dbus.MatchOption{
		{dbus.WithMatchObjectPath(path), dbus.WithMatchInterface("org.freedesktop.DBus.Properties"),
			dbus.WithMatchMember("PropertiesChanged")},
		{dbus.WithMatchObjectPath("/org/freedesktop/systemd1"),
			dbus.WithMatchInterface("org.freedesktop.systemd1.Manager")},
	}
	for _, m := range matches {
		if err := conn.AddMatchSignalContext(ctx, m...); err != nil {
			return fmt.Errorf("d-bus match: %v", err)
		}
	}
	ch := make(chan *dbus.Signal, 128)
	conn.Signal(ch)
	mgr := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1")
	if err := mgr.CallWithContext(ctx, "org.freedesktop.systemd1.Manager.Subscribe", 0).Err; err != nil {
		return fmt.Errorf("systemd subscribe: %v", err)
	}
	r.init.Running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case sig, ok := <-ch:
			if !ok {
				return fmt.Errorf("d-bus connection to systemd closed")
			}
			if r.relevant(sig) {
				r.init.Event()
			}
		}
	}
}

// relevant reports whether a systemd signal may concern the unit. UnitNew
// and UnitRemoved are ignored on purpose: reading the properties of an
// unloaded unit loads it (UnitNew) and systemd unloads it again later
// (UnitRemoved), so reacting to them would make CheckApply feed its own
// Watch forever. A state change of a loaded unit comes as PropertiesChanged.
func (r *SvcRes) relevant(sig *dbus.Signal) bool {
	switch sig.Name {
	case "org.freedesktop.DBus.Properties.PropertiesChanged":
		return true
	case "org.freedesktop.systemd1.Manager.UnitFilesChanged":
		return true
	case "org.freedesktop.systemd1.Manager.Reloading":
		// sent with true before and false after a daemon-reload
		return len(sig.Body) == 1 && sig.Body[0] == false
	}
	return false
}

// svcStatus is what CheckApply reads from systemd.
type svcStatus struct {
	load, active, fileState string
	needReload, canReload   bool
}

func (st svcStatus) running() bool {
	return st.active == "active" || st.active == "reloading" || st.active == "activating"
}

func (st svcStatus) enabled() bool {
	return st.fileState == "enabled" || st.fileState == "enabled-runtime"
}

func (r *SvcRes) status(ctx context.Context, conn *sdbus.Conn) (svcStatus, error) {
	props, err := conn.GetUnitPropertiesContext(ctx, r.Unit())
	if err != nil {
		return svcStatus{}, fmt.Errorf("unit %s: %v", r.Unit(), err)
	}
	var st svcStatus
	st.load, _ = props["LoadState"].(string)
	st.active, _ = props["ActiveState"].(string)
	st.fileState, _ = props["UnitFileState"].(string)
	st.needReload, _ = props["NeedDaemonReload"].(bool)
	st.canReload, _ = props["CanReload"].(bool)
	return st, nil
}

func (r *SvcRes) connect(ctx context.Context) (*sdbus.Conn, error) {
	return sdbus.NewConnection(func() (*dbus.Conn, error) { return dialBus(ctx, r.Bus, r.Session) })
}

// CheckApply compares the unit's state with the wanted one and repairs it.
func (r *SvcRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := r.init != nil && r.init.Refresh()
	if r.State == "" && r.Startup == "" && !refresh {
		return true, nil
	}
	conn, err := r.connect(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	st, err := r.status(ctx, conn)
	if err != nil {
		return false, err
	}
	if (st.load == "not-found" || st.needReload) && apply {
		// a unit file was added or changed since systemd last read them
		r.logf("%s: daemon-reload", r)
		if err := conn.ReloadContext(ctx); err != nil {
			return false, fmt.Errorf("daemon-reload: %v", err)
		}
		if st, err = r.status(ctx, conn); err != nil {
			return false, err
		}
	}
	running, err := r.running(ctx, st)
	if err != nil {
		return false, err
	}
	okStartup := r.Startup == "" || (r.Startup == "enabled") == st.enabled()
	okState := r.State == "" || (r.State == "running") == running
	if st.load == "not-found" && (r.Startup == "enabled" || r.State == "running" && !okState && r.StartCmd == "") {
		return false, fmt.Errorf("unit %s not found", r.Unit())
	}
	if okStartup && okState && !refresh {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	if !okStartup {
		if err := r.setStartup(ctx, conn); err != nil {
			return false, err
		}
	}
	started := false
	if !okState {
		if err := r.setState(ctx, conn); err != nil {
			return false, err
		}
		started = r.State == "running"
	}
	if refresh && !started && running && r.State != "stopped" {
		if r.RestartCmd != "" {
			return false, r.command(ctx, "restartcmd", r.RestartCmd)
		}
		if r.Refresh == "restart" {
			return false, r.job(ctx, "restart", conn.RestartUnitContext)
		}
		return false, r.job(ctx, "reload-or-restart", conn.ReloadOrRestartUnitContext)
	}
	return false, nil
}

func (r *SvcRes) setStartup(ctx context.Context, conn *sdbus.Conn) error {
	r.logf("%s: startup %s", r, r.Startup)
	var err error
	if r.Startup == "enabled" {
		_, _, err = conn.EnableUnitFilesContext(ctx, []string{r.Unit()}, false, true)
	} else {
		_, err = conn.DisableUnitFilesContext(ctx, []string{r.Unit()}, false)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %v", strings.TrimSuffix(r.Startup, "d"), r.Unit(), err)
	}
	return conn.ReloadContext(ctx)
}

func (r *SvcRes) setState(ctx context.Context, conn *sdbus.Conn) error {
	r.logf("%s: %s", r, r.State)
	switch {
	case r.State == "running" && r.StartCmd != "":
		return r.command(ctx, "startcmd", r.StartCmd)
	case r.State == "running":
		return r.job(ctx, "start", conn.StartUnitContext)
	case r.StopCmd != "":
		return r.command(ctx, "stopcmd", r.StopCmd)
	}
	return r.job(ctx, "stop", conn.StopUnitContext)
}

type jobFunc func(ctx context.Context, name, mode string, ch chan<- string) (int, error)

// job queues a systemd job for the unit and waits for its result.
func (r *SvcRes) job(ctx context.Context, what string, fn jobFunc) error {
	ch := make(chan string, 1)
	if _, err := fn(ctx, r.Unit(), "replace", ch); err != nil {
		return fmt.Errorf("%s %s: %v", what, r.Unit(), err)
	}
	select {
	case res := <-ch:
		if res != "done" {
			return fmt.Errorf("%s %s: job %s", what, r.Unit(), res)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Cmp compares two svc resources.
func (r *SvcRes) Cmp(other engine.Res) error {
	o, ok := other.(*SvcRes)
	if !ok {
		return fmt.Errorf("not a svc resource")
	}
	switch {
	case r.State != o.State:
		return fmt.Errorf("state differs: %q vs %q", r.State, o.State)
	case r.Startup != o.Startup:
		return fmt.Errorf("startup differs: %q vs %q", r.Startup, o.Startup)
	case r.Session != o.Session:
		return fmt.Errorf("session differs")
	case r.Refresh != o.Refresh:
		return fmt.Errorf("refresh differs: %q vs %q", r.Refresh, o.Refresh)
	case r.Bus != o.Bus:
		return fmt.Errorf("bus differs")
	}
	return r.cmpCommands(o)
}

// UIDs identifies the unit.
func (r *SvcRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "svc", Name: r.Name()}}
}

// unitFilePaths returns where the unit file may live.
func (r *SvcRes) unitFilePaths() []string {
	dirs := []string{"/etc/systemd/system/", "/lib/systemd/system/", "/usr/lib/systemd/system/"}
	if r.Session {
		dirs = []string{"/etc/systemd/user/", "/lib/systemd/user/", "/usr/lib/systemd/user/"}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = d + r.Unit()
	}
	return out
}

// AutoEdges puts the unit after the file resources that write its unit file
// and after the pkg resources whose package ships it.
func (r *SvcRes) AutoEdges() (engine.AutoEdge, error) {
	var files, pkgs []engine.ResUID
	for _, p := range r.unitFilePaths() {
		files = append(files, &engine.BaseUID{Kind: "file", Name: p})
		pkgs = append(pkgs, newPkgFileUID(p))
	}
	return &uidBatches{batches: [][]engine.ResUID{files, pkgs}}, nil
}

// uidBatches is an AutoEdge that offers fixed batches of UIDs in turn.
type uidBatches struct {
	batches [][]engine.ResUID
	i       int
}

// Next returns the next batch, or nil when done.
func (u *uidBatches) Next() []engine.ResUID {
	if u.i >= len(u.batches) {
		return nil
	}
	u.i++
	return u.batches[u.i-1]
}

// Test continues while batches remain.
func (u *uidBatches) Test([]bool) bool { return u.i < len(u.batches) }
