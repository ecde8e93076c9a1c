#!/usr/bin/env bash
# build.sh - build (once) the root file system of the throwaway systemd
# container used by the system-resource tests, and install the host tools
# that booting it needs.
#
# The root is a debootstrapped Debian bookworm (minbase) with systemd, D-Bus,
# PackageKit and the shadow tools. It is cached in $MGMT_E2E_CACHE (outside
# the repository) and reused by later runs: boot.sh mounts it read-only with
# a tmpfs overlay, so no test ever changes the cached image.
#
# Environment: MGMT_E2E_CACHE (default /var/cache/mgmt-e2e), MGMT_E2E_SUITE
# (default bookworm), MGMT_E2E_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
CACHE=${MGMT_E2E_CACHE:-/var/cache/mgmt-e2e}
SUITE=${MGMT_E2E_SUITE:-bookworm}
MIRROR=${MGMT_E2E_MIRROR:-http://deb.debian.org/debian}
ROOT=$CACHE/$SUITE
# Bump when the package list or the post-install steps below change.
STAMP="v2 systemd dbus dbus-user-session libpam-systemd packagekit packagekit-tools"

t() { echo "[$(date +%T)] build: $*"; }

need=()
command -v systemd-nspawn >/dev/null || need+=(systemd-container)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v dpkg-scanpackages >/dev/null || need+=(dpkg-dev)
command -v nsenter >/dev/null || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
	t "apt-get install ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ -f "$ROOT/.mgmt-e2e-stamp" ] && [ "$(cat "$ROOT/.mgmt-e2e-stamp")" = "$STAMP" ]; then
	t "cached root $ROOT is up to date"
	exit 0
fi

t "debootstrap $SUITE into $ROOT"
rm -rf "$ROOT.tmp"
mkdir -p "$CACHE"
# libpam-systemd is needed with packagekit: debootstrap does not resolve
# polkitd's virtual dependency on logind by itself.
debootstrap --variant=minbase \
	--include=systemd,dbus,dbus-user-session,libpam-systemd,packagekit,packagekit-tools \
	"$SUITE" "$ROOT.tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 || {
	tail -20 "$CACHE/debootstrap.log" >&2
	exit 1
}

t "configure"
echo mgmt-e2e >"$ROOT.tmp/etc/hostname"
# The tests use local file: repositories only: keep the mirror out of the
# sources so that every apt and PackageKit refresh is offline and fast.
mv "$ROOT.tmp/etc/apt/sources.list" "$ROOT.tmp/etc/apt/sources.list.mirror"
: >"$ROOT.tmp/etc/apt/sources.list"
rm -rf "$ROOT.tmp/var/lib/apt/lists/"* "$ROOT.tmp/var/cache/apt/"*.bin
mkdir -p "$ROOT.tmp/opt/mgmt"
echo "$STAMP" >"$ROOT.tmp/.mgmt-e2e-stamp"
rm -rf "$ROOT"
mv "$ROOT.tmp" "$ROOT"
t "done: $(du -sh "$ROOT" | cut -f1) in $ROOT"
