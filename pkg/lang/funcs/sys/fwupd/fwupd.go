// Package fwupd holds the mcl module "sys/fwupd": reboot_needed, streamed,
// true when a firmware update installed by fwupd waits for a reboot.
//
// It asks the fwupd daemon over the system D-Bus (service
// org.freedesktop.fwupd, object /, method GetDevices) for its devices and
// looks for the needs-reboot device flag (1<<8 in the Flags field). It
// subscribes to the daemon's signals (Changed, DeviceAdded, DeviceRemoved,
// DeviceChanged) and asks again after each. A daemon with no devices
// answers with its NothingToDo error, which reads as false; an unreachable
// bus or daemon is a runtime error naming the cause.
package fwupd

import (
	"context"
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

const (
	service = "org.freedesktop.fwupd"
	iface   = "org.freedesktop.fwupd"
	// flagNeedsReboot is FWUPD_DEVICE_FLAG_NEEDS_REBOOT.
	flagNeedsReboot = uint64(1) << 8
)

// dial connects to the bus the daemon is on (tests use a private bus).
var dial = func() (*dbus.Conn, error) { return dbus.ConnectSystemBus() }

func init() {
	funcs.RegisterStream("sys/fwupd", "reboot_needed", "func() bool", rebootNeeded, funcs.Doc("Whether fwupd reports that a firmware update waits for a reboot, following changes.", "fwupd.reboot_needed()"))
}

func rebootNeeded(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	conn, err := dial()
	if err != nil {
		return fmt.Errorf("sys/fwupd.reboot_needed: system bus: %v", err)
	}
	defer conn.Close()
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchSender(service), dbus.WithMatchInterface(iface)); err != nil {
		return fmt.Errorf("sys/fwupd.reboot_needed: subscribing to fwupd: %v", err)
	}
	for {
		need, err := NeedsReboot(ctx, conn)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("sys/fwupd.reboot_needed: %v", err)
		}
		emit(values.Bool(need))
		if !waitChange(ctx, signals) {
			return nil
		}
	}
}

// waitChange waits for a signal of fwupd's (the bus's own, such as
// NameAcquired, reach the connection too) and drains the burst that may
// follow: one question answers them all. It returns false once ctx is done
// or the connection is closed.
func waitChange(ctx context.Context, signals <-chan *dbus.Signal) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case sig, ok := <-signals:
			if !ok {
				return false
			}
			if !strings.HasPrefix(sig.Name, iface+".") {
				continue
			}
		}
		for {
			select {
			case <-signals:
			default:
				return true
			}
		}
	}
}

// NeedsReboot asks fwupd whether any device needs a reboot.
func NeedsReboot(ctx context.Context, conn *dbus.Conn) (bool, error) {
	var devs []map[string]dbus.Variant
	err := conn.Object(service, "/").CallWithContext(ctx, iface+".GetDevices", 0).Store(&devs)
	if err != nil {
		if de, ok := err.(dbus.Error); ok && strings.HasSuffix(de.Name, ".NothingToDo") {
			return false, nil
		}
		return false, err
	}
	for _, d := range devs {
		if f, ok := d["Flags"].Value().(uint64); ok && f&flagNeedsReboot != 0 {
			return true, nil
		}
	}
	return false, nil
}
