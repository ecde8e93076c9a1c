package system

import (
	"context"
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("nspawn", func() engine.Res { return &NspawnRes{State: "running"} })
}

const (
	machinedName = "org.freedesktop.machine1"
	machinedPath = "/org/freedesktop/machine1"
	machinedMgr  = machinedName + ".Manager"
)

// NspawnRes keeps a systemd-nspawn container, registered with
// systemd-machined, running or stopped: it starts and stops the unit
// systemd-nspawn@NAME.service, which boots the image NAME (under
// /var/lib/machines). See the package documentation.
type NspawnRes struct {
	traits.Base
	traits.Refreshable

	// State is "running" or "stopped".
	State string `lang:"state" yaml:"state"`

	// Bus is the D-Bus address to use instead of the system bus.
	Bus string `yaml:"-"`

	init *engine.Init
}

// Default returns an nspawn resource.
func (r *NspawnRes) Default() engine.Res { return &NspawnRes{State: "running"} }

// Validate checks the machine name (as machined does: a host name of at
// most 64 characters) and the state.
func (r *NspawnRes) Validate() error {
	n := r.Name()
	if n == "" || len(n) > 64 || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".") ||
		strings.HasPrefix(n, "-") || strings.Contains(n, "..") {
		return fmt.Errorf("invalid machine name %q", n)
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return fmt.Errorf("invalid machine name %q: only letters, digits, '-', '_' and '.'", n)
		}
	}
	switch r.State {
	case "running", "stopped":
	default:
		return fmt.Errorf("state: got %q, want running or stopped", r.State)
	}
	return nil
}

// Init keeps the handle.
func (r *NspawnRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *NspawnRes) Cleanup() error { return nil }

// unit returns the nested svc resource of the container's unit; its Init
// handle is the container's, with the calls hooks sets answered by hooks.
func (r *NspawnRes) unit(hooks engine.Funcs) *SvcRes {
	s := &SvcRes{State: r.State, Bus: r.Bus}
	s.SetKind("svc")
	s.SetName("systemd-nspawn@" + r.Name() + ".service")
	if r.init != nil {
		sub := *r.init
		hooks.Base = r.init.Hooks
		sub.Hooks = &hooks
		s.init = &sub
	}
	return s
}

// Watch reports machined's MachineNew and MachineRemoved signals about
// this machine, a restart of machined, and every change of the
// container's unit (as svc does).
func (r *NspawnRes) Watch(ctx context.Context) error {
	conn, err := dialBus(ctx, r.Bus, false)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, m := range [][]dbus.MatchOption{
		{dbus.WithMatchInterface(machinedMgr), dbus.WithMatchMember("MachineNew"), dbus.WithMatchArg(0, r.Name())},
		{dbus.WithMatchInterface(machinedMgr), dbus.WithMatchMember("MachineRemoved"), dbus.WithMatchArg(0, r.Name())},
		{dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
			dbus.WithMatchArg(0, machinedName)},
	} {
		if err := conn.AddMatchSignalContext(ctx, m...); err != nil {
			return fmt.Errorf("d-bus match: %v", err)
		}
	}
	ch := make(chan *dbus.Signal, 64)
	conn.Signal(ch)
	unitRunning := make(chan struct{})
	unit := r.unit(engine.Funcs{RunningFunc: func() { close(unitRunning) }})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	unitDone := make(chan error, 1)
	go func() { unitDone <- unit.Watch(ctx) }()
	select {
	case <-unitRunning:
	case err := <-unitDone:
		return err
	}
	r.init.Running()
	for {
		select {
		case <-ctx.Done():
			return <-unitDone
		case err := <-unitDone:
			return err
		case sig, ok := <-ch:
			if !ok {
				cancel()
				<-unitDone
				return fmt.Errorf("d-bus connection to machined closed")
			}
			if strings.HasPrefix(sig.Name, machinedMgr+".") || sig.Name == "org.freedesktop.DBus.NameOwnerChanged" {
				r.init.Event()
			}
		}
	}
}

// machineState asks machined for the machine's state ("opening",
// "running", "closing"); "" when it has no such machine.
func (r *NspawnRes) machineState(ctx context.Context, conn *dbus.Conn) (string, error) {
	var path dbus.ObjectPath
	err := conn.Object(machinedName, machinedPath).CallWithContext(ctx, machinedMgr+".GetMachine", 0, r.Name()).Store(&path)
	if dbusErrName(err) == machinedName+".NoSuchMachine" {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("machined GetMachine %s: %v", r.Name(), err)
	}
	v, err := conn.Object(machinedName, path).GetProperty(machinedName + ".Machine.State")
	if err != nil {
		return "", fmt.Errorf("machined: state of %s: %v", r.Name(), err)
	}
	s, _ := v.Value().(string)
	return s, nil
}

// CheckApply compares machined's view of the machine with the state and
// starts or stops its unit. A machine to start needs an image of its name.
func (r *NspawnRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	conn, err := dialBus(ctx, r.Bus, false)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	st, err := r.machineState(ctx, conn)
	if err != nil {
		return false, err
	}
	refresh := r.init != nil && r.init.Refresh() && r.State == "running"
	if (st == "" && r.State == "stopped" || st == "running" && r.State == "running") && !refresh {
		return true, nil
	}
	if st == "" && r.State == "running" {
		var img dbus.ObjectPath
		err := conn.Object(machinedName, machinedPath).CallWithContext(ctx, machinedMgr+".GetImage", 0, r.Name()).Store(&img)
		if err != nil {
			return false, fmt.Errorf("no image %s to start the machine from: %v", r.Name(), err)
		}
	}
	if !apply {
		return false, nil
	}
	unit := r.unit(engine.Funcs{RefreshFunc: func() bool { return refresh }})
	if _, err := unit.CheckApply(ctx, true); err != nil {
		return false, err
	}
	return false, nil
}

// Cmp compares two nspawn resources.
func (r *NspawnRes) Cmp(other engine.Res) error {
	o, ok := other.(*NspawnRes)
	if !ok {
		return fmt.Errorf("not an nspawn resource")
	}
	if r.State != o.State || r.Bus != o.Bus {
		return fmt.Errorf("state differs")
	}
	return nil
}
