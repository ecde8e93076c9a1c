package system

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("net", func() engine.Res { return &NetRes{} })
}

// NetRes keeps a network link up or down, its addresses and the IPv4
// default gateway through it, over netlink, and writes a systemd-networkd
// file so the state is kept at the next boot. See the package
// documentation.
type NetRes struct {
	traits.Base

	// State is "up", "down", or empty to leave the link and the networkd
	// file alone.
	State string `lang:"state" yaml:"state"`
	// Addrs are the addresses, in CIDR form; absent leaves them alone,
	// an empty list removes every address.
	Addrs *[]string `lang:"addrs" yaml:"addrs"`
	// Gateway is the IPv4 default gateway; empty leaves the default
	// routes alone.
	Gateway string `lang:"gateway" yaml:"gateway"`
	// IPForward is written into the networkd file as IPForward=.
	IPForward *bool `lang:"ip_forward" yaml:"ip_forward"`

	// Netns is the path of the network namespace to act in (such as
	// /run/netns/NAME); empty is the engine's own. Not a parameter.
	Netns string `yaml:"-"`
	// NetworkDir is where the networkd file goes, /etc/systemd/network
	// when empty. Not a parameter.
	NetworkDir string `yaml:"-"`

	init *engine.Init
}

// Default returns a net resource.
func (r *NetRes) Default() engine.Res { return &NetRes{} }

// Validate checks the interface name, the state and the addresses.
func (r *NetRes) Validate() error {
	n := r.Name()
	if n == "" || len(n) > unix.IFNAMSIZ-1 || n == "." || n == ".." || strings.ContainsAny(n, "/: \t\n\x00") {
		return fmt.Errorf("invalid interface name %q", n)
	}
	switch r.State {
	case "", "up", "down":
	default:
		return fmt.Errorf("state: got %q, want up, down or empty", r.State)
	}
	if r.Addrs != nil {
		for _, a := range *r.Addrs {
			if _, _, err := net.ParseCIDR(a); err != nil {
				return fmt.Errorf("addrs: %q is not an address in CIDR form", a)
			}
		}
	}
	if r.Gateway != "" {
		if ip := net.ParseIP(r.Gateway); ip == nil || ip.To4() == nil {
			return fmt.Errorf("gateway: %q is not an IPv4 address", r.Gateway)
		}
	}
	return nil
}

// Init keeps the handle.
func (r *NetRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *NetRes) Cleanup() error { return nil }

func (r *NetRes) logf(format string, v ...any) {
	if r.init != nil {
		r.init.Logf(format, v...)
	}
}

// networkFile returns the path of the networkd file.
func (r *NetRes) networkFile() string {
	dir := r.NetworkDir
	if dir == "" {
		dir = "/etc/systemd/network"
	}
	return filepath.Join(dir, "mgmt-"+r.Name()+".network")
}

// networkContent renders the networkd file: nil (no file) for a link kept
// down.
func (r *NetRes) networkContent() *string {
	if r.State != "up" {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[Match]\nName=%s\n\n[Network]\n", r.Name())
	if r.Addrs != nil {
		for _, a := range *r.Addrs {
			fmt.Fprintf(&b, "Address=%s\n", a)
		}
	}
	if r.Gateway != "" {
		fmt.Fprintf(&b, "Gateway=%s\n", r.Gateway)
	}
	if r.IPForward != nil {
		fmt.Fprintf(&b, "IPForward=%s\n", map[bool]string{true: "yes", false: "no"}[*r.IPForward])
	}
	s := b.String()
	return &s
}

// handle opens a netlink handle in the resource's namespace.
func (r *NetRes) handle() (*netlink.Handle, error) {
	if r.Netns == "" {
		return netlink.NewHandle()
	}
	ns, err := netns.GetFromPath(r.Netns)
	if err != nil {
		return nil, fmt.Errorf("network namespace %s: %v", r.Netns, err)
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return nil, fmt.Errorf("netlink in %s: %v", r.Netns, err)
	}
	return h, nil
}

// CheckApply keeps, in order, the networkd file, the link's state, its
// addresses (with the kernel's prefix routes) and the default gateway.
func (r *NetRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	ok := true
	if r.State != "" {
		f, err := newNestedFile(r.init, r.networkFile(), r.networkContent())
		if err != nil {
			return false, err
		}
		changed, err := f.checkApply(ctx, apply)
		if err != nil {
			return false, err
		}
		ok = !changed
	}
	h, err := r.handle()
	if err != nil {
		return false, err
	}
	defer h.Close()
	link, err := h.LinkByName(r.Name())
	if err != nil {
		return false, fmt.Errorf("link %s: %v", r.Name(), err)
	}
	steps := []func(*netlink.Handle, netlink.Link, bool) (bool, error){r.checkState}
	if r.State != "down" {
		steps = append(steps, r.checkAddrs, r.checkGateway)
	}
	for _, step := range steps {
		stepOK, err := step(h, link, apply)
		if err != nil {
			return false, err
		}
		ok = ok && stepOK
		if !stepOK && !apply {
			return false, nil
		}
	}
	return ok, nil
}

func (r *NetRes) checkState(h *netlink.Handle, link netlink.Link, apply bool) (bool, error) {
	up := link.Attrs().Flags&net.FlagUp != 0
	if r.State == "" || up == (r.State == "up") {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	r.logf("%s: link %s", r, r.State)
	var err error
	if r.State == "up" {
		err = h.LinkSetUp(link)
	} else {
		err = h.LinkSetDown(link)
	}
	if err != nil {
		return false, fmt.Errorf("setting %s %s: %v", r.Name(), r.State, err)
	}
	return false, nil
}

// checkAddrs makes the link's addresses the listed ones (an unlisted IPv6
// link-local address is left alone) and gives each IPv4 address of a
// subnet its kernel prefix route.
func (r *NetRes) checkAddrs(h *netlink.Handle, link netlink.Link, apply bool) (bool, error) {
	if r.Addrs == nil {
		return true, nil
	}
	have, err := h.AddrList(link, netlink.FAMILY_ALL)
	if err != nil {
		return false, fmt.Errorf("addresses of %s: %v", r.Name(), err)
	}
	want := map[string]*netlink.Addr{}
	for _, s := range *r.Addrs {
		a, err := netlink.ParseAddr(s)
		if err != nil {
			return false, err
		}
		want[a.IPNet.String()] = a
	}
	ok := true
	for _, a := range have {
		k := a.IPNet.String()
		if want[k] != nil {
			delete(want, k)
			continue
		}
		if a.IP.To4() == nil && a.IP.IsLinkLocalUnicast() {
			continue
		}
		ok = false
		if apply {
			r.logf("%s: removing address %s", r, k)
			if err := h.AddrDel(link, &a); err != nil {
				return false, fmt.Errorf("removing %s from %s: %v", k, r.Name(), err)
			}
		}
	}
	for k, a := range want {
		ok = false
		if apply {
			r.logf("%s: adding address %s", r, k)
			if err := h.AddrAdd(link, a); err != nil {
				return false, fmt.Errorf("adding %s to %s: %v", k, r.Name(), err)
			}
		}
	}
	routesOK, err := r.checkPrefixRoutes(h, link, apply)
	return ok && routesOK, err
}

// checkPrefixRoutes checks the route the kernel adds for each IPv4 address
// (to its subnet, from the address, on the link), which ip route del can
// remove by hand. A link that is down has none.
func (r *NetRes) checkPrefixRoutes(h *netlink.Handle, link netlink.Link, apply bool) (bool, error) {
	if link.Attrs().Flags&net.FlagUp == 0 && r.State != "up" {
		return true, nil
	}
	routes, err := h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{LinkIndex: link.Attrs().Index,
		Table: unix.RT_TABLE_MAIN}, netlink.RT_FILTER_OIF|netlink.RT_FILTER_TABLE)
	if err != nil {
		return false, fmt.Errorf("routes of %s: %v", r.Name(), err)
	}
	ok := true
	for _, s := range *r.Addrs {
		ip, subnet, _ := net.ParseCIDR(s)
		if ip.To4() == nil || subnet.Mask.String() == net.CIDRMask(32, 32).String() {
			continue
		}
		found := slices.ContainsFunc(routes, func(rt netlink.Route) bool {
			return rt.Dst != nil && rt.Dst.String() == subnet.String() && rt.Src.Equal(ip)
		})
		if found {
			continue
		}
		ok = false
		if !apply {
			break
		}
		r.logf("%s: adding the route to %s from %s", r, subnet, ip)
		rt := &netlink.Route{LinkIndex: link.Attrs().Index, Dst: subnet, Src: ip, Protocol: unix.RTPROT_KERNEL,
			Scope: netlink.SCOPE_LINK, Table: unix.RT_TABLE_MAIN}
		if err := h.RouteReplace(rt); err != nil {
			return false, fmt.Errorf("route to %s on %s: %v", subnet, r.Name(), err)
		}
	}
	return ok, nil
}

// isDefault reports whether a route is an IPv4 default route.
func isDefault(rt netlink.Route) bool {
	if rt.Dst == nil {
		return true
	}
	ones, _ := rt.Dst.Mask.Size()
	return ones == 0
}

// checkGateway makes the one IPv4 default route of the main table go
// through the gateway on this link.
func (r *NetRes) checkGateway(h *netlink.Handle, link netlink.Link, apply bool) (bool, error) {
	if r.Gateway == "" {
		return true, nil
	}
	gw := net.ParseIP(r.Gateway)
	routes, err := h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: unix.RT_TABLE_MAIN}, netlink.RT_FILTER_TABLE)
	if err != nil {
		return false, fmt.Errorf("routes: %v", err)
	}
	var defaults []netlink.Route
	for _, rt := range routes {
		if isDefault(rt) {
			defaults = append(defaults, rt)
		}
	}
	if len(defaults) == 1 && defaults[0].Gw.Equal(gw) && defaults[0].LinkIndex == link.Attrs().Index {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	for _, rt := range defaults {
		if rt.Gw.Equal(gw) && rt.LinkIndex == link.Attrs().Index {
			continue
		}
		r.logf("%s: removing the default route via %s", r, rt.Gw)
		if err := h.RouteDel(&rt); err != nil {
			return false, fmt.Errorf("removing the default route via %s: %v", rt.Gw, err)
		}
	}
	r.logf("%s: default route via %s", r, gw)
	rt := &netlink.Route{LinkIndex: link.Attrs().Index, Gw: gw, Protocol: unix.RTPROT_STATIC, Table: unix.RT_TABLE_MAIN}
	if err := h.RouteReplace(rt); err != nil {
		return false, fmt.Errorf("default route via %s: %v", gw, err)
	}
	return false, nil
}

// Cmp compares two net resources. IPForward counts: it changes the
// networkd file.
func (r *NetRes) Cmp(other engine.Res) error {
	o, ok := other.(*NetRes)
	if !ok {
		return fmt.Errorf("not a net resource")
	}
	switch {
	case r.State != o.State:
		return fmt.Errorf("state differs")
	case (r.Addrs == nil) != (o.Addrs == nil) || r.Addrs != nil && !slices.Equal(*r.Addrs, *o.Addrs):
		return fmt.Errorf("addrs differ")
	case r.Gateway != o.Gateway:
		return fmt.Errorf("gateway differs")
	case (r.IPForward == nil) != (o.IPForward == nil) || r.IPForward != nil && *r.IPForward != *o.IPForward:
		return fmt.Errorf("ip_forward differs")
	case r.Netns != o.Netns || r.NetworkDir != o.NetworkDir:
		return fmt.Errorf("namespace or networkd directory differs")
	}
	return nil
}
