#!/bin/sh
# Install Debian's Puppet server (a JVM program) for the test of
# puppet-graph --agent (test/puppetagent), which starts one of its own with
# its own CA and code. The package's service is not started: the machine
# has no systemd, and the test needs none. Runs after 20-puppet.sh and
# 25-puppet-modules.sh. Idempotent and quiet.
set -eu
if dpkg-query -W -f='${Status}' puppetserver 2>/dev/null | grep -q "install ok installed"; then
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends puppetserver >/dev/null
test -r /usr/share/puppetserver/puppetserver.jar
