#!/usr/bin/env bash
# build.sh - build (once) the root file system of the throwaway systemd
# container used by the system-resource tests, and install the host tools
# that booting it needs.
#
# The root is a debootstrapped Debian bookworm (minbase) with systemd, D-Bus,
# PackageKit and the shadow tools (the base), plus the extra packages below,
# installed with apt-get inside the root because debootstrap does not
# resolve their virtual dependencies: netbase (/etc/protocols, which
# firewalld reads), firewalld, fwupd with its test plugin's remote and
# firmware (fwupd-tests), and systemd-container (machined and
# systemd-nspawn). It is cached in $MGMT_E2E_CACHE (outside the repository)
# and reused by later runs: boot.sh mounts it read-only with a tmpfs
# overlay, so no test ever changes the cached image.
#
# Two stamps keep the cache valid: the base's (bump STAMP when the
# debootstrap list or its configuration changes: the root is built again)
# and the extras' (bump EXTRA_STAMP when EXTRA or their configuration
# changes: only the extra step runs again, on a copy of the cached root).
#
# With MGMT_E2E_PUPPET=1 it also installs Puppet (puppet-agent) in the root,
# for the Puppet module corpus, whose noop runs happen inside the container
# (pippet resources run Puppet there); a third stamp keeps that layer, which
# runs without it ignore.
#
# Environment: MGMT_E2E_CACHE (default /var/cache/mgmt-e2e), MGMT_E2E_SUITE
# (default bookworm), MGMT_E2E_MIRROR (default http://deb.debian.org/debian),
# MGMT_E2E_PUPPET.
set -euo pipefail
CACHE=${MGMT_E2E_CACHE:-/var/cache/mgmt-e2e}
SUITE=${MGMT_E2E_SUITE:-bookworm}
MIRROR=${MGMT_E2E_MIRROR:-http://deb.debian.org/debian}
ROOT=$CACHE/$SUITE
STAMP="v2 systemd dbus dbus-user-session libpam-systemd packagekit packagekit-tools"
EXTRA="netbase firewalld fwupd fwupd-tests systemd-container"
EXTRA_STAMP="v1 $EXTRA; fwupd allowed in a container"
PUPPET="puppet-agent"
PUPPET_STAMP="v1 $PUPPET"

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

stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# From the mirror's list, in the root without booting it: no daemon starts.
apt_in_root() {
	systemd-nspawn -q -D "$ROOT.tmp" --register=no --keep-unit --pipe \
		env DEBIAN_FRONTEND=noninteractive apt-get -o Dir::Etc::SourceList=/etc/apt/sources.list.mirror "$@"
}

# add_puppet installs Puppet in a copy of the up-to-date root.
add_puppet() {
	t "apt-get install $PUPPET"
	rm -rf "$ROOT.tmp"
	cp -a "$ROOT" "$ROOT.tmp"
	{ apt_in_root update -qq && apt_in_root install -y -qq --no-install-recommends $PUPPET; } \
		>"$CACHE/apt-puppet.log" 2>&1 || {
		tail -20 "$CACHE/apt-puppet.log" >&2
		exit 1
	}
	rm -rf "$ROOT.tmp/var/lib/apt/lists/"* "$ROOT.tmp/var/cache/apt/"*.bin "$ROOT.tmp/var/cache/apt/archives/"*.deb
	echo "$PUPPET_STAMP" >"$ROOT.tmp/.mgmt-e2e-puppet-stamp"
	rm -rf "$ROOT"
	mv "$ROOT.tmp" "$ROOT"
	t "done: $(du -sh "$ROOT" | cut -f1) in $ROOT"
}

if stamp_ok "$ROOT/.mgmt-e2e-stamp" "$STAMP" && stamp_ok "$ROOT/.mgmt-e2e-extra-stamp" "$EXTRA_STAMP"; then
	if [ "${MGMT_E2E_PUPPET:-}" = 1 ] && ! stamp_ok "$ROOT/.mgmt-e2e-puppet-stamp" "$PUPPET_STAMP"; then
		add_puppet
		exit 0
	fi
	t "cached root $ROOT is up to date"
	exit 0
fi

rm -rf "$ROOT.tmp"
mkdir -p "$CACHE"
if stamp_ok "$ROOT/.mgmt-e2e-stamp" "$STAMP"; then
	t "copy the cached base $ROOT"
	cp -a "$ROOT" "$ROOT.tmp"
else
	t "debootstrap $SUITE into $ROOT"
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
	# The tests use local file: repositories only: keep the mirror out of
	# the sources so that every apt and PackageKit refresh is offline and
	# fast.
	mv "$ROOT.tmp/etc/apt/sources.list" "$ROOT.tmp/etc/apt/sources.list.mirror"
	: >"$ROOT.tmp/etc/apt/sources.list"
	mkdir -p "$ROOT.tmp/opt/mgmt"
	echo "$STAMP" >"$ROOT.tmp/.mgmt-e2e-stamp"
fi

t "apt-get install $EXTRA"
{ apt_in_root update -qq && apt_in_root install -y -qq --no-install-recommends $EXTRA; } \
	>"$CACHE/apt-extra.log" 2>&1 || {
	tail -20 "$CACHE/apt-extra.log" >&2
	exit 1
}
rm -rf "$ROOT.tmp/var/lib/apt/lists/"* "$ROOT.tmp/var/cache/apt/"*.bin "$ROOT.tmp/var/cache/apt/archives/"*.deb
# fwupd refuses to start in a container (ConditionVirtualization=!container);
# its test plugin's devices need no hardware.
mkdir -p "$ROOT.tmp/etc/systemd/system/fwupd.service.d"
printf '[Unit]\nConditionVirtualization=\n' >"$ROOT.tmp/etc/systemd/system/fwupd.service.d/mgmt-e2e.conf"
echo "$EXTRA_STAMP" >"$ROOT.tmp/.mgmt-e2e-extra-stamp"
rm -f "$ROOT.tmp/.mgmt-e2e-puppet-stamp"
rm -rf "$ROOT"
mv "$ROOT.tmp" "$ROOT"
t "done: $(du -sh "$ROOT" | cut -f1) in $ROOT"
if [ "${MGMT_E2E_PUPPET:-}" = 1 ]; then
	add_puppet
fi
