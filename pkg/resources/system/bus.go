package system

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
)

const defaultSystemBus = "unix:path=/run/dbus/system_bus_socket"

// busAddress returns the D-Bus address to use: addr if set, else the
// standard environment variable for the system or session bus, else the
// well-known default.
func busAddress(addr string, session bool) (string, error) {
	if addr != "" {
		return addr, nil
	}
	if session {
		if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
			return a, nil
		}
		if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
			return "unix:path=" + d + "/bus", nil
		}
		return "", fmt.Errorf("no session bus: DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR are unset")
	}
	if a := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	return defaultSystemBus, nil
}

// isDefaultSystemBus reports whether addr is this host's own system bus, so
// that files such as /var/lib/dpkg/status belong to the same system.
func isDefaultSystemBus(addr string) bool {
	a, err := busAddress(addr, false)
	return err == nil && a == defaultSystemBus
}

// dialBus opens a private connection to the bus at addr (see busAddress).
// The connection is closed when ctx ends.
func dialBus(ctx context.Context, addr string, session bool) (*dbus.Conn, error) {
	a, err := busAddress(addr, session)
	if err != nil {
		return nil, err
	}
	conn, err := dbus.Dial(a, dbus.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("d-bus %s: %v", a, err)
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("d-bus %s: auth: %v", a, err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("d-bus %s: hello: %v", a, err)
	}
	return conn, nil
}

// nameAvailable reports whether a bus name has an owner or can be
// activated on conn.
func nameAvailable(ctx context.Context, conn *dbus.Conn, name string) bool {
	for _, m := range []string{"ListNames", "ListActivatableNames"} {
		var names []string
		err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus."+m, 0).Store(&names)
		if err != nil {
			return false
		}
		for _, n := range names {
			if n == name {
				return true
			}
		}
	}
	return false
}

// dbusErrName returns the D-Bus error name of err, or "".
func dbusErrName(err error) string {
	if e, ok := err.(dbus.Error); ok {
		return e.Name
	}
	if e, ok := err.(*dbus.Error); ok {
		return e.Name
	}
	return ""
}

// joinRoot returns path under root ("" or "/" mean the real root).
func joinRoot(root, path string) string {
	if root == "" || root == "/" {
		return path
	}
	return strings.TrimRight(root, "/") + path
}
