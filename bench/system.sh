#!/usr/bin/env bash
# System resources, measured inside a throwaway systemd container:
#   - installing 5 local packages as one pkg group (one transaction) versus
#     as 5 separate pkg resources, with the apt and the PackageKit backends;
#   - svc start+stop latency (each waits for systemd's job result).
# Skips (exit 0) without root or without the container image built by
# .ci/setup.d/30-systemd-container.sh (scripts/systemd-container/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
root=${MGMT_E2E_CACHE:-/var/cache/mgmt-e2e}/${MGMT_E2E_SUITE:-bookworm}
if [ "$(id -u)" != 0 ] || ! command -v systemd-nspawn >/dev/null || [ ! -f "$root/.mgmt-e2e-stamp" ]; then
	echo "bench/system.sh: skipped: needs root, systemd-nspawn and the container image (scripts/systemd-container/build.sh)"
	exit 0
fi
export MGMT_E2E_NAME=mgmt-bench
trap 'scripts/systemd-container/stop.sh' EXIT
pid=$(scripts/systemd-container/boot.sh)
tmp=$(mktemp -d)
CGO_ENABLED=0 go test -c -o "$tmp/system.test" ./pkg/resources/system
cp "$tmp/system.test" "/proc/$pid/root/opt/mgmt/system.test"
rm -rf "$tmp"
nsenter -t "$pid" -a -- env MGMT_SYSTEM_LIVE=1 /opt/mgmt/system.test \
	-test.run '^$' -test.bench 'Live' -test.benchtime "${BENCHTIME:-5x}"
