package fwupd

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	fw "github.com/mgmtpipe/mgmt/internal/fwupd"
	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

// privateBus starts a dbus-daemon of its own and returns its address.
func privateBus(t *testing.T) string {
	t.Helper()
	bin := testneed.Command(t, "dbus-daemon", "dbus-daemon")
	cmd := exec.Command(bin, "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		testneed.Missing(t, "cannot start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the bus address: %v", err)
	}
	return strings.TrimSpace(line)
}

// fakeDaemon serves GetDevices like fwupd does.
type fakeDaemon struct {
	mu    sync.Mutex
	flags []uint64
}

func (d *fakeDaemon) GetDevices() ([]map[string]dbus.Variant, *dbus.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.flags) == 0 {
		return nil, dbus.NewError("org.freedesktop.fwupd.NothingToDo", []any{"No detected devices"})
	}
	var out []map[string]dbus.Variant
	for i, f := range d.flags {
		out = append(out, map[string]dbus.Variant{"DeviceId": dbus.MakeVariant(strings.Repeat("a", i+1)), "Flags": dbus.MakeVariant(f)})
	}
	return out, nil
}

func TestRebootNeeded(t *testing.T) {
	addr := privateBus(t)
	srv, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := &fakeDaemon{}
	if err := srv.Export(d, "/", fw.Interface); err != nil {
		t.Fatal(err)
	}
	if reply, err := srv.RequestName(fw.Service, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName: %v %v", reply, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan values.Value, 10)
	done := make(chan error, 1)
	c := &funcs.Call{Type: types.MustParse("func() bool"), Env: &funcs.Env{SystemBus: addr}}
	go func() { done <- rebootNeeded(ctx, c, func(v values.Value) { ch <- v }) }()
	first := true
	want := func(w bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case v := <-ch:
				if first && v != values.Bool(w) {
					t.Fatalf("first value %s, want %v", v, w)
				}
				first = false
				if v == values.Bool(w) {
					return
				}
			case err := <-done:
				t.Fatalf("stream ended: %v", err)
			case <-deadline:
				t.Fatalf("timed out waiting for %v", w)
			}
		}
	}
	want(false) // no devices
	set := func(flags ...uint64) {
		d.mu.Lock()
		d.flags = flags
		d.mu.Unlock()
		if err := srv.Emit("/", fw.Interface+".Changed"); err != nil {
			t.Fatal(err)
		}
	}
	set(0x2, fw.DeviceNeedsReboot|0x2)
	want(true)
	set(0x2)
	want(false)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestNoDaemon(t *testing.T) {
	addr := privateBus(t)
	err := rebootNeeded(context.Background(), &funcs.Call{Env: &funcs.Env{SystemBus: addr}}, func(values.Value) {})
	if err == nil || !strings.Contains(err.Error(), "reboot_needed") {
		t.Fatalf("got %v, want an error naming the function", err)
	}
}
