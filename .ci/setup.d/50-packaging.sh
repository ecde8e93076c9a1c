#!/bin/sh
# Tools the packaging tests use: groff (formats the manual pages), bash
# (runs the completion), dpkg-deb (builds the Debian package). Idempotent
# and quiet.
set -eu
missing=""
command -v groff >/dev/null 2>&1 || missing="$missing groff-base"
command -v bash >/dev/null 2>&1 || missing="$missing bash"
command -v dpkg-deb >/dev/null 2>&1 || missing="$missing dpkg"
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
