package net

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

func mac(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

func TestMACs(t *testing.T) {
	ifs := []net.Interface{
		{Index: 1, Name: "lo", Flags: net.FlagLoopback},
		{Index: 3, Name: "eth1", HardwareAddr: mac("52:54:00:00:00:02")},
		{Index: 2, Name: "eth0", HardwareAddr: mac("52:54:00:00:00:01")},
		{Index: 4, Name: "br0", HardwareAddr: mac("52:54:00:00:00:01")},
		{Index: 5, Name: "tun0"},
	}
	got := MACs(ifs)
	want := []string{"52:54:00:00:00:01", "52:54:00:00:00:02"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestWiredInterface(t *testing.T) {
	sys := t.TempDir()
	for _, d := range []string{"wlan0/device", "wlan0/wireless", "eth0/device", "eth1/device", "veth0"} {
		if err := os.MkdirAll(filepath.Join(sys, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ifs := []net.Interface{
		{Index: 1, Name: "lo", Flags: net.FlagLoopback},
		{Index: 2, Name: "veth0", HardwareAddr: mac("52:54:00:00:00:09")},
		{Index: 3, Name: "wlan0", HardwareAddr: mac("52:54:00:00:00:03")},
		{Index: 5, Name: "eth1", HardwareAddr: mac("52:54:00:00:00:02")},
		{Index: 4, Name: "eth0", HardwareAddr: mac("52:54:00:00:00:01")},
	}
	if got := WiredInterface(sys, ifs); got != "eth0" {
		t.Fatalf("got %q, want eth0", got)
	}
	if got := WiredInterface(sys, ifs[:3]); got != "" {
		t.Fatalf("got %q, want none", got)
	}
}

func TestInterfaceCIDRLoopback(t *testing.T) {
	got, err := InterfaceCIDR("lo")
	if err != nil || got != "127.0.0.1/8" {
		t.Skipf("no usual loopback here: %q, %v", got, err)
	}
	if got, _ := InterfaceCIDR("no-such-if0"); got != "" {
		t.Fatalf("missing interface: got %q", got)
	}
}

// stream runs net.<name>(args) and returns its emissions.
func stream(t *testing.T, name string, args ...values.Value) <-chan values.Value {
	t.Helper()
	f, _ := funcs.Lookup("net", name)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan values.Value, 100)
	done := make(chan error, 1)
	c := &funcs.Call{Type: f.Sigs[0], Args: args, Env: &funcs.Env{Logf: t.Logf}}
	go func() { done <- f.Stream(ctx, c, func(v values.Value) { ch <- v }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ch
}

func wait(t *testing.T, ch <-chan values.Value, what string, ok func(values.Value) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestFollowInterface creates an interface for real and checks that macs
// and interface_cidr see it appear, get an address and go away. The test
// binary runs itself again in a network namespace of its own (unshare -n,
// as root) so the machine's interfaces are untouched; the interface is a
// bridge, which needs no hardware.
func TestFollowInterface(t *testing.T) {
	if os.Getenv("MGMT_TEST_NETNS_CHILD") == "1" {
		netnsChild(t)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		testneed.Missing(t, "needs root and unshare")
	}
	testneed.Command(t, "ip", "iproute2")
	if err := exec.Command(unshare, "-n", "ip", "link", "add", "name", "x0", "type", "bridge").Run(); err != nil {
		testneed.Missing(t, "cannot make a bridge in a network namespace: %v", err)
	}
	cmd := exec.Command(unshare, "-n", os.Args[0], "-test.run", "^TestFollowInterface$", "-test.v")
	cmd.Env = append(os.Environ(), "MGMT_TEST_NETNS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func netnsChild(t *testing.T) {
	const name, hw = "mgmtfn0", "02:6d:67:6d:74:01"
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	macs := stream(t, "macs")
	cidr := stream(t, "interface_cidr", values.Str(name))
	wait(t, macs, "no macs", func(v values.Value) bool { return len(v.(*values.List).V) == 0 })
	wait(t, cidr, "no address", func(v values.Value) bool { return v == values.Str("") })
	run("link", "add", "name", name, "address", hw, "type", "bridge")
	has := func(v values.Value) bool {
		return slices.ContainsFunc(v.(*values.List).V, func(e values.Value) bool { return e == values.Str(hw) })
	}
	wait(t, macs, "the new mac", has)
	run("addr", "add", "10.213.7.1/24", "dev", name)
	wait(t, cidr, "the address", func(v values.Value) bool { return v == values.Str("10.213.7.1/24") })
	run("link", "del", name)
	wait(t, macs, "the mac to go", func(v values.Value) bool { return !has(v) })
	wait(t, cidr, "the address to go", func(v values.Value) bool { return v == values.Str("") })
}

// TestSubscribeStopJoins: once stop returns, the goroutine reading the
// netlink socket has ended: its channel is closed and the socket too.
func TestSubscribeStopJoins(t *testing.T) {
	fds := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
	before := fds()
	for i := 0; i < 20; i++ {
		ch, stop, err := subscribe()
		if err != nil {
			testneed.Missing(t, "no netlink socket here: %v", err)
		}
		stop()
	drain:
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					break drain
				}
			default:
				t.Fatalf("run %d: the channel is still open after stop", i)
			}
		}
		if n := fds(); n != before {
			t.Fatalf("run %d: %d open descriptors after stop, %d before", i, n, before)
		}
	}
}
