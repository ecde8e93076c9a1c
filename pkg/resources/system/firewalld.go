package system

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("firewalld", func() engine.Res { return &FirewalldRes{} })
}

const (
	fwdName = "org.fedoraproject.FirewallD1"
	fwdPath = "/org/fedoraproject/FirewallD1"
	fwdZone = fwdName + ".zone"
)

// FirewalldRes keeps services and ports open (or closed) in a zone of
// firewalld's runtime configuration, over D-Bus. The name is only a label.
// See the package documentation.
type FirewalldRes struct {
	traits.Base

	// Zone is the zone; empty is firewalld's default zone, asked at each
	// check.
	Zone string `lang:"zone" yaml:"zone"`
	// State is "absent" to close the services and ports; anything else
	// ("exists" or empty) opens them.
	State string `lang:"state" yaml:"state"`
	// Services are firewalld service names (http, ssh, ...).
	Services []string `lang:"services" yaml:"services"`
	// Ports are "N/proto" or "N-M/proto" (proto tcp, udp, sctp or dccp).
	Ports []string `lang:"ports" yaml:"ports"`

	// Bus is the D-Bus address to use instead of the system bus.
	Bus string `yaml:"-"`

	init *engine.Init
}

// Default returns a firewalld resource.
func (r *FirewalldRes) Default() engine.Res { return &FirewalldRes{} }

// fwPort is one port or port range with its protocol.
type fwPort struct {
	lo, hi int
	proto  string
}

func (p fwPort) port() string {
	if p.lo == p.hi {
		return strconv.Itoa(p.lo)
	}
	return fmt.Sprintf("%d-%d", p.lo, p.hi)
}

func (p fwPort) String() string { return p.port() + "/" + p.proto }

// parseFwPort reads "N/proto" or "N-M/proto".
func parseFwPort(port, proto string) (fwPort, error) {
	a, b, isRange := strings.Cut(port, "-")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := lo, error(nil)
	if isRange {
		hi, err2 = strconv.Atoi(b)
	}
	switch {
	case err1 != nil || err2 != nil || lo < 1 || hi > 65535 || hi < lo:
		return fwPort{}, fmt.Errorf("port %q: want N or N-M with 1 <= N <= M <= 65535", port)
	case !slices.Contains([]string{"tcp", "udp", "sctp", "dccp"}, proto):
		return fwPort{}, fmt.Errorf("port %s/%s: protocol must be tcp, udp, sctp or dccp", port, proto)
	}
	return fwPort{lo, hi, proto}, nil
}

func (r *FirewalldRes) ports() ([]fwPort, error) {
	var out []fwPort
	for _, s := range r.Ports {
		port, proto, ok := strings.Cut(s, "/")
		if !ok {
			return nil, fmt.Errorf("ports: %q is not N/proto", s)
		}
		p, err := parseFwPort(port, proto)
		if err != nil {
			return nil, fmt.Errorf("ports: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Validate checks the state, the services and the ports.
func (r *FirewalldRes) Validate() error {
	switch r.State {
	case "", "exists", "absent":
	default:
		return fmt.Errorf("state: got %q, want exists, absent or empty", r.State)
	}
	for _, s := range r.Services {
		if s == "" || strings.ContainsAny(s, "/ \t\n\x00") {
			return fmt.Errorf("services: %q is not a service name", s)
		}
	}
	if strings.ContainsAny(r.Zone, "/ \t\n\x00") {
		return fmt.Errorf("zone: %q is not a zone name", r.Zone)
	}
	_, err := r.ports()
	return err
}

// Init keeps the handle.
func (r *FirewalldRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *FirewalldRes) Cleanup() error { return nil }

func (r *FirewalldRes) logf(format string, v ...any) {
	if r.init != nil {
		r.init.Logf(format, v...)
	}
}

// Watch reports firewalld's zone signals (services and ports added or
// removed, the default zone changed), its Reloaded signal and a restart of
// the daemon: a reload or a restart drops runtime changes.
func (r *FirewalldRes) Watch(ctx context.Context) error {
	conn, err := dialBus(ctx, r.Bus, false)
	if err != nil {
		return err
	}
	defer conn.Close()
	matches := [][]dbus.MatchOption{
		{dbus.WithMatchInterface(fwdZone)},
		{dbus.WithMatchInterface(fwdName)},
		{dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
			dbus.WithMatchArg(0, fwdName)},
	}
	for _, m := range matches {
		if err := conn.AddMatchSignalContext(ctx, m...); err != nil {
			return fmt.Errorf("d-bus match: %v", err)
		}
	}
	ch := make(chan *dbus.Signal, 128)
	conn.Signal(ch)
	r.init.Running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-ch:
			if !ok {
				return fmt.Errorf("d-bus connection to firewalld closed")
			}
			r.init.Event()
		}
	}
}

// fwdConn is a connection to firewalld.
type fwdConn struct {
	obj dbus.BusObject
}

func (c fwdConn) call(ctx context.Context, method string, out any, args ...any) error {
	call := c.obj.CallWithContext(ctx, method, 0, args...)
	if call.Err != nil {
		return fmt.Errorf("firewalld %s: %v", method[strings.LastIndex(method, ".")+1:], call.Err)
	}
	if out == nil {
		return nil
	}
	return call.Store(out)
}

// CheckApply compares the zone's runtime services and ports with the
// wanted ones and adds or removes what differs.
func (r *FirewalldRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	conn, err := dialBus(ctx, r.Bus, false)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	c := fwdConn{conn.Object(fwdName, fwdPath)}
	zone := r.Zone
	if zone == "" {
		if err := c.call(ctx, fwdName+".getDefaultZone", &zone); err != nil {
			return false, err
		}
	}
	okS, err := r.checkServices(ctx, c, zone, apply)
	if err != nil || (!okS && !apply) {
		return okS, err
	}
	okP, err := r.checkPorts(ctx, c, zone, apply)
	return okS && okP, err
}

func (r *FirewalldRes) checkServices(ctx context.Context, c fwdConn, zone string, apply bool) (bool, error) {
	if len(r.Services) == 0 {
		return true, nil
	}
	var have []string
	if err := c.call(ctx, fwdZone+".getServices", &have, zone); err != nil {
		return false, err
	}
	ok := true
	for _, s := range r.Services {
		if slices.Contains(have, s) == (r.State != "absent") {
			continue
		}
		ok = false
		if !apply {
			break
		}
		var err error
		if r.State == "absent" {
			r.logf("%s: zone %s: removing service %s", r, zone, s)
			err = c.call(ctx, fwdZone+".removeService", nil, zone, s)
		} else {
			r.logf("%s: zone %s: adding service %s", r, zone, s)
			err = c.call(ctx, fwdZone+".addService", nil, zone, s, int32(0))
		}
		if err != nil {
			return false, err
		}
	}
	return ok, nil
}

func (r *FirewalldRes) checkPorts(ctx context.Context, c fwdConn, zone string, apply bool) (bool, error) {
	want, _ := r.ports()
	if len(want) == 0 {
		return true, nil
	}
	var raw [][]string
	if err := c.call(ctx, fwdZone+".getPorts", &raw, zone); err != nil {
		return false, err
	}
	var have []fwPort
	for _, pp := range raw {
		if len(pp) == 2 {
			if p, err := parseFwPort(pp[0], pp[1]); err == nil {
				have = append(have, p)
			}
		}
	}
	ok := true
	for _, p := range want {
		exact := slices.Contains(have, p)
		covered := slices.ContainsFunc(have, func(h fwPort) bool { return h.proto == p.proto && h.lo <= p.lo && p.hi <= h.hi })
		if r.State != "absent" && covered || r.State == "absent" && !covered {
			continue
		}
		if r.State == "absent" && !exact {
			return false, fmt.Errorf("port %s is open through a wider range of zone %s: close that range", p, zone)
		}
		ok = false
		if !apply {
			break
		}
		var err error
		if r.State == "absent" {
			r.logf("%s: zone %s: removing port %s", r, zone, p)
			err = c.call(ctx, fwdZone+".removePort", nil, zone, p.port(), p.proto)
		} else {
			r.logf("%s: zone %s: adding port %s", r, zone, p)
			err = c.call(ctx, fwdZone+".addPort", nil, zone, p.port(), p.proto, int32(0))
		}
		if err != nil {
			return false, err
		}
	}
	return ok, nil
}

// Cmp compares two firewalld resources.
func (r *FirewalldRes) Cmp(other engine.Res) error {
	o, ok := other.(*FirewalldRes)
	if !ok {
		return fmt.Errorf("not a firewalld resource")
	}
	switch {
	case r.Zone != o.Zone:
		return fmt.Errorf("zone differs")
	case (r.State == "absent") != (o.State == "absent"):
		return fmt.Errorf("state differs")
	case !slices.Equal(r.Services, o.Services):
		return fmt.Errorf("services differ")
	case !slices.Equal(r.Ports, o.Ports):
		return fmt.Errorf("ports differ")
	case r.Bus != o.Bus:
		return fmt.Errorf("bus differs")
	}
	return nil
}
