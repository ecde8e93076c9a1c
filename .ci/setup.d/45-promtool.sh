#!/bin/sh
# promtool (Debian's prometheus): internal/metrics has Prometheus's own
# checker read the text its registry writes. The package also installs a
# Prometheus server, which the tests do not use: it is kept stopped.
# Idempotent and quiet.
set -eu
command -v promtool >/dev/null 2>&1 && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
if command -v systemctl >/dev/null 2>&1; then
	systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
