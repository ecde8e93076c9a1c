// Package fwupd is a client of the fwupd daemon's D-Bus API (service and
// interface org.freedesktop.fwupd, object /): its devices, their
// releases, its remotes, installing firmware and loading metadata, and
// the signals it sends when any of these change. The mcl module
// sys/fwupd and the fwupd:* resource kinds share it.
//
// Devices, releases and remotes travel as dictionaries (a{sv}); only the
// keys the project uses are decoded, and a missing key reads as its zero
// value. A daemon with nothing to report answers GetDevices and
// GetReleases with its NothingToDo error, which reads as an empty list.
package fwupd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Service, Interface and Path name the daemon on the system bus.
const (
	Service   = "org.freedesktop.fwupd"
	Interface = "org.freedesktop.fwupd"
	Path      = "/"
)

// Device flags (FWUPD_DEVICE_FLAG_*).
const (
	DeviceUpdatable   = uint64(1) << 1
	DeviceNeedsReboot = uint64(1) << 8
)

// UpdateNeedsReboot is the update state of a device whose update waits
// for a reboot (FWUPD_UPDATE_STATE_NEEDS_REBOOT).
const UpdateNeedsReboot = uint32(4)

// Release flags (FWUPD_RELEASE_FLAG_*).
const (
	ReleaseIsUpgrade   = uint64(1) << 2
	ReleaseIsDowngrade = uint64(1) << 3
)

// remoteEnabled is FWUPD_REMOTE_FLAG_ENABLED, in a remote's Flags.
const remoteEnabled = uint64(1) << 0

// A Device is one device the daemon knows.
type Device struct {
	ID          string
	GUIDs       []string
	Name        string
	Version     string
	Flags       uint64
	UpdateState uint32
}

// A Release is one firmware release offered for a device.
type Release struct {
	Version   string
	Locations []string
	Checksums []string
	Flags     uint64
	RemoteID  string
}

// A Remote is one source of metadata and firmware.
type Remote struct {
	ID              string
	Enabled         bool
	MetadataURI     string
	FirmwareBaseURI string
	// Cache is the metadata file the daemon reads (a local remote's
	// metadata lives there and nowhere else).
	Cache string
	// Modified is when the metadata was last loaded (Unix seconds), 0
	// when never.
	Modified uint64
}

// Client calls the daemon over a bus connection it does not own.
type Client struct {
	obj dbus.BusObject
}

// New returns a client on conn.
func New(conn *dbus.Conn) *Client {
	return &Client{obj: conn.Object(Service, Path)}
}

func (c *Client) call(ctx context.Context, method string, out any, args ...any) error {
	call := c.obj.CallWithContext(ctx, Interface+"."+method, 0, args...)
	if call.Err != nil {
		return fmt.Errorf("fwupd %s: %w", method, call.Err)
	}
	if out == nil {
		return nil
	}
	return call.Store(out)
}

// nothingToDo reports the daemon's "nothing to report" error.
func nothingToDo(err error) bool {
	var de dbus.Error
	if errors.As(err, &de) {
		return de.Name == Interface+".NothingToDo"
	}
	var dp *dbus.Error
	return errors.As(err, &dp) && dp.Name == Interface+".NothingToDo"
}

func str(m map[string]dbus.Variant, k string) string {
	s, _ := m[k].Value().(string)
	return s
}

func strs(m map[string]dbus.Variant, k string) []string {
	switch v := m[k].Value().(type) {
	case []string:
		return v
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	}
	return nil
}

func u64(m map[string]dbus.Variant, k string) uint64 {
	switch v := m[k].Value().(type) {
	case uint64:
		return v
	case uint32:
		return uint64(v)
	}
	return 0
}

// Devices lists the daemon's devices.
func (c *Client) Devices(ctx context.Context) ([]Device, error) {
	var raw []map[string]dbus.Variant
	if err := c.call(ctx, "GetDevices", &raw); err != nil {
		if nothingToDo(err) {
			return nil, nil
		}
		return nil, err
	}
	out := make([]Device, 0, len(raw))
	for _, m := range raw {
		out = append(out, device(m))
	}
	return out, nil
}

func device(m map[string]dbus.Variant) Device {
	return Device{ID: str(m, "DeviceId"), GUIDs: strs(m, "Guid"), Name: str(m, "Name"),
		Version: str(m, "Version"), Flags: u64(m, "Flags"), UpdateState: uint32(u64(m, "UpdateState"))}
}

// Matches reports whether the device is the one named by id: its device
// id or one of its GUIDs, compared without regard to case.
func (d Device) Matches(id string) bool {
	if strings.EqualFold(d.ID, id) {
		return true
	}
	for _, g := range d.GUIDs {
		if strings.EqualFold(g, id) {
			return true
		}
	}
	return false
}

// Releases lists the releases offered for a device, newest first.
func (c *Client) Releases(ctx context.Context, deviceID string) ([]Release, error) {
	var raw []map[string]dbus.Variant
	if err := c.call(ctx, "GetReleases", &raw, deviceID); err != nil {
		if nothingToDo(err) {
			return nil, nil
		}
		return nil, err
	}
	out := make([]Release, 0, len(raw))
	for _, m := range raw {
		locs := strs(m, "Locations")
		if len(locs) == 0 {
			locs = strs(m, "Uri")
		}
		flags := u64(m, "TrustFlags") // fwupd 2 moved the release flags here
		if flags == 0 {
			flags = u64(m, "Flags")
		}
		out = append(out, Release{Version: str(m, "Version"), Locations: locs, Checksums: strs(m, "Checksum"),
			Flags: flags, RemoteID: str(m, "RemoteId")})
	}
	return out, nil
}

// Remotes lists the daemon's remotes.
func (c *Client) Remotes(ctx context.Context) ([]Remote, error) {
	var raw []map[string]dbus.Variant
	if err := c.call(ctx, "GetRemotes", &raw); err != nil {
		return nil, err
	}
	out := make([]Remote, 0, len(raw))
	for _, m := range raw {
		enabled, ok := m["Enabled"].Value().(bool)
		if !ok {
			enabled = u64(m, "Flags")&remoteEnabled != 0
		}
		mtime := u64(m, "ModificationTime")
		if mtime == math.MaxUint64 { // never downloaded
			mtime = 0
		}
		out = append(out, Remote{ID: str(m, "RemoteId"), Enabled: enabled, MetadataURI: str(m, "Uri"),
			FirmwareBaseURI: str(m, "FirmwareBaseUri"), Cache: str(m, "FilenameCache"), Modified: mtime})
	}
	return out, nil
}

// ModifyRemote sets a key of a remote's configuration (Enabled: "true"
// or "false").
func (c *Client) ModifyRemote(ctx context.Context, id, key, value string) error {
	return c.call(ctx, "ModifyRemote", nil, id, key, value)
}

// Install installs the firmware archive f on the device.
func (c *Client) Install(ctx context.Context, deviceID string, f *os.File, opts map[string]dbus.Variant) error {
	if opts == nil {
		opts = map[string]dbus.Variant{}
	}
	return c.call(ctx, "Install", nil, deviceID, dbus.UnixFD(f.Fd()), opts)
}

// UpdateMetadata loads a remote's metadata and its signature.
func (c *Client) UpdateMetadata(ctx context.Context, remoteID string, data, sig *os.File) error {
	return c.call(ctx, "UpdateMetadata", nil, remoteID, dbus.UnixFD(data.Fd()), dbus.UnixFD(sig.Fd()))
}

// NeedsReboot reports whether any device waits for a reboot to finish an
// update.
func (c *Client) NeedsReboot(ctx context.Context) (bool, error) {
	devs, err := c.Devices(ctx)
	if err != nil {
		return false, err
	}
	for _, d := range devs {
		if d.Flags&DeviceNeedsReboot != 0 {
			return true, nil
		}
	}
	return false, nil
}

// Subscribe delivers the daemon's signals (Changed, DeviceAdded,
// DeviceRemoved, DeviceChanged, ...) and its restarts (NameOwnerChanged
// of its bus name) to ch.
func Subscribe(ctx context.Context, conn *dbus.Conn, ch chan<- *dbus.Signal) error {
	conn.Signal(ch)
	for _, m := range [][]dbus.MatchOption{
		{dbus.WithMatchInterface(Interface)},
		{dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
			dbus.WithMatchArg(0, Service)},
	} {
		if err := conn.AddMatchSignalContext(ctx, m...); err != nil {
			return fmt.Errorf("subscribing to fwupd: %v", err)
		}
	}
	return nil
}

// IsDaemonSignal reports whether a signal comes from the daemon or tells
// of its restart (the bus's own signals, such as NameAcquired, reach the
// connection too).
func IsDaemonSignal(sig *dbus.Signal) bool {
	if strings.HasPrefix(sig.Name, Interface+".") {
		return true
	}
	return sig.Name == "org.freedesktop.DBus.NameOwnerChanged" && len(sig.Body) > 0 && sig.Body[0] == Service
}

// SignalDevice returns the device a Device* signal is about; ok is false
// for other signals.
func SignalDevice(sig *dbus.Signal) (d Device, ok bool) {
	if !strings.HasPrefix(sig.Name, Interface+".Device") || len(sig.Body) == 0 {
		return Device{}, false
	}
	m, ok := sig.Body[0].(map[string]dbus.Variant)
	if !ok {
		return Device{}, false
	}
	return device(m), true
}
