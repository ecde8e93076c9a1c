package system

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/internal/fwupd"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("fwupd:device", func() engine.Res { return &FwupdDeviceRes{} })
	engine.RegisterResource("fwupd:remote", func() engine.Res { return &FwupdRemoteRes{} })
	engine.RegisterResource("fwupd:system", func() engine.Res { return &FwupdSystemRes{} })
}

// fwupdBase is what the fwupd kinds share: the bus, the handle and the
// watch of the daemon's signals.
type fwupdBase struct {
	// Bus is the D-Bus address to use instead of the system bus.
	Bus string `yaml:"-"`

	init *engine.Init
}

// Init keeps the handle.
func (b *fwupdBase) Init(init *engine.Init) error {
	b.init = init
	return nil
}

// Cleanup does nothing.
func (b *fwupdBase) Cleanup() error { return nil }

func (b *fwupdBase) logf(format string, v ...any) {
	if b.init != nil {
		b.init.Logf(format, v...)
	}
}

// client connects to the daemon; close the connection when done.
func (b *fwupdBase) client(ctx context.Context) (*fwupd.Client, *dbus.Conn, error) {
	conn, err := dialBus(ctx, b.Bus, false)
	if err != nil {
		return nil, nil, err
	}
	return fwupd.New(conn), conn, nil
}

// devices connects to the daemon and lists its devices; done closes the
// connection.
func (b *fwupdBase) devices(ctx context.Context) (*fwupd.Client, []fwupd.Device, func(), error) {
	c, conn, err := b.client(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	devs, err := c.Devices(ctx)
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	return c, devs, func() { conn.Close() }, nil
}

// watch reports the daemon's signals for which keep returns true, and
// ticks every tick when it is positive.
func (b *fwupdBase) watch(ctx context.Context, keep func(*dbus.Signal) bool, tick time.Duration) error {
	conn, err := dialBus(ctx, b.Bus, false)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch := make(chan *dbus.Signal, 128)
	if err := fwupd.Subscribe(ctx, conn, ch); err != nil {
		return err
	}
	var tc <-chan time.Time
	if tick > 0 {
		t := time.NewTicker(tick)
		defer t.Stop()
		tc = t.C
	}
	b.init.Running()
	for {
		select {
		case <-ctx.Done():
			return nil
		case sig, ok := <-ch:
			if !ok {
				return fmt.Errorf("d-bus connection to fwupd closed")
			}
			if fwupd.IsDaemonSignal(sig) && keep(sig) {
				b.init.Event()
			}
		case <-tc:
			b.init.Event()
		}
	}
}

// remoteWildcard is the UID of a device or system resource that every
// fwupd:remote resource matches: remotes are set up first.
type remoteWildcard struct{ engine.BaseUID }

// IFF matches any fwupd:remote.
func (u *remoteWildcard) IFF(uid engine.ResUID) bool { return uid.GetKind() == "fwupd:remote" }

func remoteEdges() engine.AutoEdge {
	return &uidBatches{batches: [][]engine.ResUID{{&remoteWildcard{engine.BaseUID{Kind: "fwupd:remote"}}}}}
}

// FwupdDeviceRes pins one device's firmware to a version. See the package
// documentation.
type FwupdDeviceRes struct {
	traits.Base
	traits.Edgeable
	fwupdBase

	// Device is a GUID or fwupd device id; it defaults to the name.
	Device string `lang:"device" yaml:"device" collect:"name"`
	// Version is the exact version wanted.
	Version string `lang:"version" yaml:"version"`
	// AllowDowngrade lets the resource install an older version.
	AllowDowngrade bool `lang:"allow_downgrade" yaml:"allow_downgrade"`
}

// Default returns a fwupd:device resource.
func (r *FwupdDeviceRes) Default() engine.Res { return &FwupdDeviceRes{} }

func (r *FwupdDeviceRes) device() string {
	if r.Device != "" {
		return r.Device
	}
	return r.Name()
}

// Validate checks that a device and a version are named.
func (r *FwupdDeviceRes) Validate() error {
	if strings.TrimSpace(r.device()) == "" {
		return fmt.Errorf("device is empty")
	}
	if r.Version == "" {
		return fmt.Errorf("version is empty")
	}
	return nil
}

// Watch reports the daemon's Changed signal, its restarts and the Device*
// signals about this device.
func (r *FwupdDeviceRes) Watch(ctx context.Context) error {
	return r.watch(ctx, func(sig *dbus.Signal) bool {
		d, ok := fwupd.SignalDevice(sig)
		return !ok || d.Matches(r.device())
	}, 0)
}

// CheckApply installs the wanted release when the device runs another
// version (and no update waits for a reboot).
func (r *FwupdDeviceRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	c, devs, done, err := r.devices(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	i := slices.IndexFunc(devs, func(d fwupd.Device) bool { return d.Matches(r.device()) })
	if i < 0 {
		return false, fmt.Errorf("fwupd has no device %s", r.device())
	}
	d := devs[i]
	if d.Version == r.Version {
		return true, nil
	}
	if d.UpdateState == fwupd.UpdateNeedsReboot {
		r.logf("%s: an update waits for a reboot", r)
		return true, nil
	}
	rels, err := c.Releases(ctx, d.ID)
	if err != nil {
		return false, err
	}
	j := slices.IndexFunc(rels, func(rel fwupd.Release) bool { return rel.Version == r.Version })
	if j < 0 {
		var have []string
		for _, rel := range rels {
			have = append(have, rel.Version)
		}
		return false, fmt.Errorf("device %s (%s): no release %s; available: %q", d.ID, d.Name, r.Version, have)
	}
	rel := rels[j]
	older := rel.Flags&fwupd.ReleaseIsDowngrade != 0
	if older && !r.AllowDowngrade {
		return false, fmt.Errorf("device %s runs %s: %s is older (set allow_downgrade)", d.ID, d.Version, r.Version)
	}
	if !apply {
		return false, nil
	}
	r.logf("%s: installing %s over %s", r, r.Version, d.Version)
	opts := map[string]dbus.Variant{}
	if older {
		opts["allow-older"] = dbus.MakeVariant(true)
	}
	return false, installRelease(ctx, c, d, rel, opts)
}

// Cmp compares two fwupd:device resources.
func (r *FwupdDeviceRes) Cmp(other engine.Res) error {
	o, ok := other.(*FwupdDeviceRes)
	if !ok {
		return fmt.Errorf("not a fwupd:device resource")
	}
	if r.device() != o.device() || r.Version != o.Version || r.AllowDowngrade != o.AllowDowngrade || r.Bus != o.Bus {
		return fmt.Errorf("device, version or allow_downgrade differ")
	}
	return nil
}

// UIDs identifies the device.
func (r *FwupdDeviceRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "fwupd:device", Name: r.device()}}
}

// AutoEdges puts every fwupd:remote resource first.
func (r *FwupdDeviceRes) AutoEdges() (engine.AutoEdge, error) { return remoteEdges(), nil }

// FwupdSystemRes keeps every updatable device on its newest release. See
// the package documentation.
type FwupdSystemRes struct {
	traits.Base
	traits.Edgeable
	fwupdBase

	// State must be "newest".
	State string `lang:"state" yaml:"state"`
	// Exclude lists devices (GUIDs or device ids) to leave alone.
	Exclude []string `lang:"exclude" yaml:"exclude"`
}

// Default returns a fwupd:system resource.
func (r *FwupdSystemRes) Default() engine.Res { return &FwupdSystemRes{} }

// Validate checks the state and the exclusions.
func (r *FwupdSystemRes) Validate() error {
	if r.State != "newest" {
		return fmt.Errorf("state: got %q, want newest", r.State)
	}
	for _, e := range r.Exclude {
		if strings.TrimSpace(e) == "" {
			return fmt.Errorf("exclude holds an empty entry")
		}
	}
	return nil
}

// Watch reports every signal of the daemon.
func (r *FwupdSystemRes) Watch(ctx context.Context) error {
	return r.watch(ctx, func(*dbus.Signal) bool { return true }, 0)
}

// CheckApply installs, device by device, the newest release when it is
// an upgrade. A device whose releases cannot be read is skipped (logged).
func (r *FwupdSystemRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	c, devs, done, err := r.devices(ctx)
	if err != nil {
		return false, err
	}
	defer done()
	ok := true
	for _, d := range devs {
		if d.Flags&fwupd.DeviceUpdatable == 0 || d.UpdateState == fwupd.UpdateNeedsReboot ||
			slices.ContainsFunc(r.Exclude, d.Matches) {
			continue
		}
		rels, err := c.Releases(ctx, d.ID)
		if err != nil {
			r.logf("%s: device %s (%s): %v", r, d.ID, d.Name, err)
			continue
		}
		i := slices.IndexFunc(rels, func(rel fwupd.Release) bool { return rel.Flags&fwupd.ReleaseIsUpgrade != 0 })
		if i < 0 {
			continue
		}
		ok = false
		if !apply {
			return false, nil
		}
		r.logf("%s: device %s (%s): installing %s over %s", r, d.ID, d.Name, rels[i].Version, d.Version)
		if err := installRelease(ctx, c, d, rels[i], nil); err != nil {
			return false, err
		}
	}
	return ok, nil
}

// Cmp compares two fwupd:system resources.
func (r *FwupdSystemRes) Cmp(other engine.Res) error {
	o, ok := other.(*FwupdSystemRes)
	if !ok {
		return fmt.Errorf("not a fwupd:system resource")
	}
	if r.State != o.State || !slices.Equal(r.Exclude, o.Exclude) || r.Bus != o.Bus {
		return fmt.Errorf("state or exclude differ")
	}
	return nil
}

// UIDs is the same for every fwupd:system resource.
func (r *FwupdSystemRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "fwupd:system"}}
}

// AutoEdges puts every fwupd:remote resource first.
func (r *FwupdSystemRes) AutoEdges() (engine.AutoEdge, error) { return remoteEdges(), nil }
