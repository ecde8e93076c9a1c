// Package system holds the resource kinds that manage the operating system
// itself: pkg (packages), svc (systemd units), user, group, hostname and
// mount. Each kind registers itself with the engine in an init function.
//
// Every kind follows the same pattern. CheckApply reads the current state
// from the authoritative source (dpkg's database or PackageKit, systemd over
// D-Bus, /etc/passwd and /etc/group, hostnamed, /etc/fstab and
// /proc/self/mountinfo), compares it with the wanted state, and only when
// apply is true runs the one command or D-Bus call that repairs the
// difference; with apply false (noop) it only reports. Watch never polls: it
// waits for D-Bus signals (systemd unit property changes, PackageKit and
// hostnamed signals) or inotify events on the directory holding the state
// file (shadow-utils, dpkg and hostnamed replace their files by rename, so a
// watch on the file itself would go blind after the first change), or for
// POLLPRI on /proc/self/mountinfo, and calls Init.Event.
//
// D-Bus addresses are configurable: the standard DBUS_SYSTEM_BUS_ADDRESS and
// DBUS_SESSION_BUS_ADDRESS variables are honoured, and a resource's Bus
// field overrides them. Nothing requires /run/systemd/system to exist, so
// the resources can drive the systemd of a container through its bus socket.
//
// Packages: the pkg kind talks to PackageKit when its daemon is reachable on
// the system bus and to apt-get/dpkg otherwise (MGMT_PKG_BACKEND=apt or
// packagekit forces one). pkg resources group: the engine merges several of
// them into one vertex whose CheckApply queries every package at once and
// then makes every change in a single transaction (one apt-get call, or one
// PackageKit InstallPackages and one RemovePackages call).
package system
