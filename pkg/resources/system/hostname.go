package system

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("hostname", func() engine.Res { return &HostnameRes{} })
}

const (
	hostnamedName = "org.freedesktop.hostname1"
	hostnamedPath = "/org/freedesktop/hostname1"
)

// HostnameRes manages the static, transient and pretty host names: through
// systemd-hostnamed over D-Bus when it is available, else by writing
// /etc/hostname and /etc/machine-info and calling sethostname(2). Empty
// names are left alone; Hostname is the fallback of the other three.
type HostnameRes struct {
	traits.Base

	// Hostname is the default of the three names below; "" leaves a name
	// without its own value unmanaged.
	Hostname string `lang:"hostname" yaml:"hostname"`
	// PrettyHostname is the free-form name of /etc/machine-info.
	PrettyHostname string `lang:"pretty_hostname" yaml:"pretty_hostname"`
	// StaticHostname is the name of /etc/hostname, kept across boots.
	StaticHostname string `lang:"static_hostname" yaml:"static_hostname"`
	// TransientHostname is the kernel's current host name.
	TransientHostname string `lang:"transient_hostname" yaml:"transient_hostname"`

	// Bus is the D-Bus address of the system bus hostnamed is on.
	Bus string `yaml:"-"`

	init *engine.Init
}

// Default returns a new hostname resource.
func (r *HostnameRes) Default() engine.Res { return &HostnameRes{} }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// wanted returns the static, transient and pretty names to enforce.
func (r *HostnameRes) wanted() (static, transient, pretty string) {
	return orDefault(r.StaticHostname, r.Hostname), orDefault(r.TransientHostname, r.Hostname),
		orDefault(r.PrettyHostname, r.Hostname)
}

// Validate checks the names.
func (r *HostnameRes) Validate() error {
	s, t, p := r.wanted()
	for _, h := range []string{s, t} {
		if h == "" {
			continue
		}
		if len(h) > 64 || strings.HasPrefix(h, "-") || strings.HasPrefix(h, ".") ||
			strings.ContainsFunc(h, func(c rune) bool {
				return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')
			}) {
			return fmt.Errorf("invalid host name %q", h)
		}
	}
	if strings.ContainsAny(p, "\n\"") {
		return fmt.Errorf("invalid pretty host name %q", p)
	}
	return nil
}

// Init keeps the handle.
func (r *HostnameRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *HostnameRes) Cleanup() error { return nil }

// Watch reports hostnamed's property changes, changes of /etc/hostname and
// /etc/machine-info, and sethostname(2) calls.
func (r *HostnameRes) Watch(ctx context.Context) error {
	errc := make(chan error, 3)
	ready := make(chan struct{}, 3)
	n := 0
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := func(fn func(running func()) error) {
		n++
		go func() { errc <- fn(func() { ready <- struct{}{} }) }()
	}
	local := isDefaultSystemBus(r.Bus)
	if local {
		start(func(run func()) error {
			return watchFiles(wctx, []string{"/etc/hostname", "/etc/machine-info"}, run, r.init.Event)
		})
		start(func(run func()) error { return watchPollPri(wctx, "/proc/sys/kernel/hostname", run, r.init.Event) })
	}
	conn, err := dialBus(wctx, r.Bus, false)
	if err == nil {
		defer conn.Close()
		start(func(run func()) error { return r.watchBus(wctx, conn, run) })
	} else if !local {
		return err
	}
	for i := 0; i < n; i++ {
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

func (r *HostnameRes) watchBus(ctx context.Context, conn *dbus.Conn, running func()) error {
	err := conn.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(hostnamedPath),
		dbus.WithMatchInterface("org.freedesktop.DBus.Properties"), dbus.WithMatchMember("PropertiesChanged"))
	if err != nil {
		return fmt.Errorf("d-bus match: %v", err)
	}
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-ch:
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("d-bus connection closed")
			}
			r.init.Event()
		}
	}
}

// hostNames is one reading of the three names.
type hostNames struct{ static, transient, pretty string }

// hostnameBackend reads and sets the names one way or the other.
type hostnameBackend interface {
	get(ctx context.Context) (hostNames, error)
	set(ctx context.Context, which, value string) error
}

// CheckApply compares the names and sets those that differ.
func (r *HostnameRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	var b hostnameBackend = fileHostname{}
	if conn, err := dialBus(ctx, r.Bus, false); err == nil {
		defer conn.Close()
		if nameAvailable(ctx, conn, hostnamedName) {
			b = &busHostname{conn: conn}
		}
	} else if !isDefaultSystemBus(r.Bus) {
		return false, err
	}
	have, err := b.get(ctx)
	if err != nil {
		return false, err
	}
	s, t, p := r.wanted()
	todo := [][2]string{}
	if s != "" && have.static != s {
		todo = append(todo, [2]string{"Static", s})
	}
	if t != "" && have.transient != t {
		todo = append(todo, [2]string{"", t})
	}
	if p != "" && have.pretty != p {
		todo = append(todo, [2]string{"Pretty", p})
	}
	if len(todo) == 0 {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	for _, td := range todo {
		if r.init != nil {
			r.init.Logf("%s: set %shostname %q", r, strings.ToLower(td[0]), td[1])
		}
		if err := b.set(ctx, td[0], td[1]); err != nil {
			return false, err
		}
	}
	return false, nil
}

// Cmp compares two hostname resources.
func (r *HostnameRes) Cmp(other engine.Res) error {
	o, ok := other.(*HostnameRes)
	if !ok {
		return fmt.Errorf("not a hostname resource")
	}
	if r.Hostname != o.Hostname || r.PrettyHostname != o.PrettyHostname ||
		r.StaticHostname != o.StaticHostname || r.TransientHostname != o.TransientHostname || r.Bus != o.Bus {
		return fmt.Errorf("host names differ")
	}
	return nil
}

// busHostname uses systemd-hostnamed.
type busHostname struct{ conn *dbus.Conn }

func (b *busHostname) get(ctx context.Context) (hostNames, error) {
	obj := b.conn.Object(hostnamedName, hostnamedPath)
	var props map[string]dbus.Variant
	err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.GetAll", 0, hostnamedName).Store(&props)
	if err != nil {
		return hostNames{}, fmt.Errorf("hostnamed: %v", err)
	}
	str := func(k string) string { s, _ := props[k].Value().(string); return s }
	return hostNames{static: str("StaticHostname"), transient: str("Hostname"), pretty: str("PrettyHostname")}, nil
}

func (b *busHostname) set(ctx context.Context, which, value string) error {
	obj := b.conn.Object(hostnamedName, hostnamedPath)
	if err := obj.CallWithContext(ctx, hostnamedName+".Set"+which+"Hostname", 0, value, false).Err; err != nil {
		return fmt.Errorf("hostnamed: set %shostname: %v", strings.ToLower(which), err)
	}
	return nil
}

// fileHostname writes the files and calls sethostname(2) directly.
type fileHostname struct{}

func (fileHostname) get(context.Context) (hostNames, error) {
	var h hostNames
	if b, err := os.ReadFile("/etc/hostname"); err == nil {
		h.static = strings.TrimSpace(string(b))
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return h, err
	}
	h.transient = unix.ByteSliceToString(u.Nodename[:])
	h.pretty = machineInfo(readFileString("/etc/machine-info"))["PRETTY_HOSTNAME"]
	return h, nil
}

func (fileHostname) set(_ context.Context, which, value string) error {
	switch which {
	case "Static":
		return writeFileAtomic("/etc/hostname", []byte(value+"\n"), 0o644)
	case "Pretty":
		return writeFileAtomic("/etc/machine-info",
			[]byte(setMachineInfo(readFileString("/etc/machine-info"), "PRETTY_HOSTNAME", value)), 0o644)
	}
	if err := unix.Sethostname([]byte(value)); err != nil {
		return fmt.Errorf("sethostname: %v", err)
	}
	return nil
}

func readFileString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// machineInfo parses the KEY=value lines of /etc/machine-info.
func machineInfo(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		out[k] = strings.Trim(v, `"'`)
	}
	return out
}

// setMachineInfo sets key in the machine-info text s, keeping other lines.
func setMachineInfo(s, key, value string) string {
	var out []string
	done := false
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if k, _, ok := strings.Cut(strings.TrimSpace(line), "="); ok && k == key {
			line, done = key+`="`+value+`"`, true
		}
		if line != "" || len(out) > 0 {
			out = append(out, line)
		}
	}
	if !done {
		out = append(out, key+`="`+value+`"`)
	}
	return strings.Join(out, "\n") + "\n"
}

// writeFileAtomic replaces path by a file holding data.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".mgmt-tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
