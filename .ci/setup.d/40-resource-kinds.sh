#!/bin/sh
# Tools the tests of the line, ssh:authorized_key and sysctl kinds use:
# nsenter (util-linux) and sysctl (procps) to act inside the network
# namespace of a test, useradd/userdel (passwd) for a throwaway user.
# Idempotent and quiet.
set -eu
missing=""
command -v nsenter >/dev/null 2>&1 || missing="$missing util-linux"
command -v sysctl >/dev/null 2>&1 || missing="$missing procps"
command -v useradd >/dev/null 2>&1 || missing="$missing passwd"
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
