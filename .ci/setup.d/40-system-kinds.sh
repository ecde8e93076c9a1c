#!/bin/sh
# What the tests of the host-side system kinds need: libaugeas (and a C
# compiler with pkg-config) for the augeas kind behind the build tag
# augeas; gsettings, glib-compile-schemas and dconf-service for gsettings
# on a private session bus; ip for net in a network namespace; useradd for
# the throwaway users. Idempotent and quiet.
set -eu
pkgs="libaugeas-dev augeas-lenses pkg-config gcc libc6-dev libglib2.0-bin dconf-service dbus-daemon iproute2 passwd"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
