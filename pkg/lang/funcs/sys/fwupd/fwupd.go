// Package fwupd holds the mcl module "sys/fwupd": reboot_needed, streamed,
// true when a firmware update installed by fwupd waits for a reboot.
//
// It asks the fwupd daemon (through the client of internal/fwupd, shared
// with the fwupd:* resource kinds) for its devices and looks for the
// needs-reboot device flag. It subscribes to the daemon's signals
// (Changed, DeviceAdded, DeviceRemoved, DeviceChanged, and its restarts)
// and asks again after each. A daemon with no devices answers with its
// NothingToDo error, which reads as false; an unreachable bus or daemon is
// a runtime error naming the cause.
package fwupd

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/internal/fwupd"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// dial connects to the system bus of env (funcs.Env.SystemBus), where the
// daemon is.
func dial(env *funcs.Env) (*dbus.Conn, error) {
	if env != nil && env.SystemBus != "" {
		return dbus.Connect(env.SystemBus)
	}
	return dbus.ConnectSystemBus()
}

func init() {
	funcs.RegisterStream("sys/fwupd", "reboot_needed", "func() bool", rebootNeeded, funcs.Doc("Whether fwupd reports that a firmware update waits for a reboot, following changes.", "fwupd.reboot_needed()"))
}

func rebootNeeded(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	conn, err := dial(c.Env)
	if err != nil {
		return fmt.Errorf("sys/fwupd.reboot_needed: system bus: %v", err)
	}
	defer conn.Close()
	signals := make(chan *dbus.Signal, 16)
	if err := fwupd.Subscribe(ctx, conn, signals); err != nil {
		return fmt.Errorf("sys/fwupd.reboot_needed: %v", err)
	}
	client := fwupd.New(conn)
	for {
		need, err := client.NeedsReboot(ctx)
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

// waitChange waits for a signal of fwupd's and drains the burst that may
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
			if !fwupd.IsDaemonSignal(sig) {
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
