// Package net adds to the mcl module "net" (the pure functions are in
// corenet) the functions that follow the machine's interfaces: macs,
// wired_interface and interface_cidr.
//
// Each call site opens a NETLINK_ROUTE socket subscribed to the link and
// address multicast groups, computes its value from net.Interfaces (and
// /sys/class/net for the kind of interface), and computes it again after
// every batch of kernel notifications; the engine drops values equal to
// the previous one. When the socket cannot be opened (a sandbox without
// netlink) the value is computed once and a warning is logged.
package net

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/corenet"
)

// sysClassNet is where the kernel describes network interfaces (read
// under funcs.Env.Root).
const sysClassNet = "/sys/class/net"

func register(name, sig string, compute func(c *funcs.Call) (values.Value, error), opts ...funcs.Option) {
	if _, dup := funcs.Lookup("net", name); dup {
		return
	}
	funcs.RegisterStream("net", name, sig, func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		return follow(ctx, c, func() error {
			v, err := compute(c)
			if err != nil {
				return err
			}
			emit(v)
			return nil
		})
	}, opts...)
}

func init() {
	register("macs", "func() []str", func(c *funcs.Call) (values.Value, error) {
		ifs, err := net.Interfaces()
		if err != nil {
			return nil, err
		}
		return strList(MACs(ifs)), nil
	}, funcs.Doc("The MAC addresses of the host's interfaces, following changes.", "net.macs()"))
	register("wired_interface", "func() str", func(c *funcs.Call) (values.Value, error) {
		ifs, err := net.Interfaces()
		if err != nil {
			return nil, err
		}
		return values.Str(WiredInterface(c.Env.HostPath(sysClassNet), ifs)), nil
	}, funcs.Doc("The name of the first wired (ethernet) interface, following changes.", "net.wired_interface()"))
	register("interface_cidr", "func(interface str) str", func(c *funcs.Call) (values.Value, error) {
		s, err := InterfaceCIDR(string(c.Args[0].(values.Str)))
		return values.Str(s), err
	}, funcs.Doc("The first address, with its prefix, of a network interface, following changes.", `net.interface_cidr("eth0")`))
}

// follow calls fn now and after every netlink notification until ctx is
// done.
func follow(ctx context.Context, c *funcs.Call, fn func() error) error {
	events, stop, err := subscribe()
	if err != nil {
		if c.Env != nil && c.Env.Logf != nil {
			c.Env.Logf("net: cannot follow interface changes: %v", err)
		}
		return fn()
	}
	defer stop()
	for {
		if err := fn(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-events:
			if !ok {
				return nil
			}
		}
	}
}

func strList(ss []string) *values.List {
	l := values.NewList(types.Str)
	for _, s := range ss {
		l.V = append(l.V, values.Str(s))
	}
	return l
}

// MACs returns the sorted, distinct hardware addresses of the interfaces
// that have one, loopback excluded.
func MACs(ifs []net.Interface) []string {
	seen := map[string]bool{}
	var out []string
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 || len(i.HardwareAddr) == 0 {
			continue
		}
		m := i.HardwareAddr.String()
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// WiredInterface returns the name of the first (lowest index) interface
// that is backed by a device, has a hardware address, and is neither
// loopback nor wireless; "" when there is none. sys is the directory
// describing the interfaces, /sys/class/net on this host.
func WiredInterface(sys string, ifs []net.Interface) string {
	sorted := append([]net.Interface(nil), ifs...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Index < sorted[b].Index })
	for _, i := range sorted {
		if i.Flags&net.FlagLoopback != 0 || len(i.HardwareAddr) == 0 {
			continue
		}
		dir := filepath.Join(sys, i.Name)
		if !exists(filepath.Join(dir, "device")) || exists(filepath.Join(dir, "wireless")) || exists(filepath.Join(dir, "phy80211")) {
			continue
		}
		return i.Name
	}
	return ""
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// InterfaceCIDR returns the first IPv4 address of the named interface in
// CIDR notation (10.0.0.2/24), else its first IPv6 one, else "" (also when
// the interface does not exist: it may appear later).
func InterfaceCIDR(name string) (string, error) {
	i, err := net.InterfaceByName(name)
	if err != nil {
		return "", nil
	}
	addrs, err := i.Addrs()
	if err != nil {
		return "", err
	}
	var v6 string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		if n.IP.To4() != nil {
			return n.String(), nil
		}
		if v6 == "" && !strings.HasPrefix(n.IP.String(), "fe80:") {
			v6 = n.String()
		}
	}
	return v6, nil
}
