#!/bin/sh
# Install Debian's Puppet (and the split-out core modules puppet-graph can
# translate: mount, augeas, stdlib's anchor) so the real-Puppet path of
# puppet-graph, its differential tests and the benchmark run in CI.
# Idempotent and quiet: does nothing when everything is already installed.
set -eu
pkgs="puppet puppet-module-puppetlabs-mount-core puppet-module-puppetlabs-augeas-core puppet-module-puppetlabs-stdlib"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
puppet --version >/dev/null
