#!/bin/sh
# Tools the tests need (in CI a missing one fails its test): ip (network
# namespaces for the net functions), dbus-daemon (a private bus for D-Bus
# clients), git (remote mcl module imports), diff and patch (the noop diff
# is checked against them), unshare, and the time zone database.
# Idempotent and quiet.
set -eu
missing=""
command -v ip >/dev/null 2>&1 || missing="$missing iproute2"
command -v dbus-daemon >/dev/null 2>&1 || missing="$missing dbus-daemon"
command -v git >/dev/null 2>&1 || missing="$missing git"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v diff >/dev/null 2>&1 || missing="$missing diffutils"
command -v patch >/dev/null 2>&1 || missing="$missing patch"
command -v unshare >/dev/null 2>&1 || missing="$missing util-linux"
[ -d /usr/share/zoneinfo/America ] || missing="$missing tzdata"
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
