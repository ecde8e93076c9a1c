#!/bin/sh
# Install the real Puppet modules Debian packages, for the module corpus of
# puppet-graph (test/puppetmodules): one case per module, compiled by real
# Puppet and by the native engine, applied with mgmt-apply --noop. Also the
# split-out core modules (cron, host, sshkeys, ...) whose types pippet must
# run. Runs after 20-puppet.sh. Idempotent and quiet.
set -eu
pkgs="
puppet-module-puppetlabs-apache puppet-module-puppetlabs-apt
puppet-module-puppetlabs-concat puppet-module-puppetlabs-stdlib
puppet-module-puppetlabs-ntp puppet-module-puppetlabs-mysql
puppet-module-puppetlabs-haproxy puppet-module-puppetlabs-inifile
puppet-module-puppetlabs-rsync puppet-module-puppetlabs-tftp
puppet-module-puppetlabs-xinetd puppet-module-puppetlabs-firewall
puppet-module-puppetlabs-postgresql puppet-module-puppetlabs-vcsrepo
puppet-module-puppetlabs-mongodb puppet-module-puppetlabs-rabbitmq
puppet-module-puppetlabs-cron-core puppet-module-puppetlabs-host-core
puppet-module-puppetlabs-mailalias-core puppet-module-puppetlabs-mount-core
puppet-module-puppetlabs-augeas-core puppet-module-puppetlabs-sshkeys-core
puppet-module-puppetlabs-selinux-core
puppet-module-camptocamp-systemd puppet-module-camptocamp-postfix
puppet-module-camptocamp-kmod puppet-module-camptocamp-augeas
puppet-module-camptocamp-openssl
puppet-module-aboe-chrony puppet-module-duritong-sysctl
puppet-module-arioch-redis puppet-module-puppet-archive
puppet-module-saz-memcached puppet-module-saz-rsyslog puppet-module-saz-ssh
puppet-module-rodjek-logrotate
puppet-module-voxpupuli-alternatives puppet-module-voxpupuli-collectd
puppet-module-voxpupuli-posix-acl puppet-module-voxpupuli-ssh-keygen
puppet-module-sbitio-monit puppet-module-theforeman-dns
puppet-module-richardc-datacat puppet-module-nanliu-staging
puppet-module-heini-wait-for puppet-module-deric-zookeeper
puppet-module-pcfens-filebeat
"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
