#!/usr/bin/env bash
# Boot the throwaway systemd container, run the system-resource tests
# against it (packages, units, users, groups, hostname, journal, mounts:
# all changed inside the container only), and power it off on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
trap 'scripts/systemd-container/stop.sh' EXIT
MGMT_E2E_MACHINE=$(scripts/systemd-container/boot.sh)
export MGMT_E2E_MACHINE
echo "systemd container up: PID 1 = $MGMT_E2E_MACHINE"
log=$(mktemp)
rc=0
# -p 1: both packages drive the same container (its hostname, its units)
go test -p 1 -count=1 -timeout 25m -v ./test/system/ ./pkg/resources/system/... >"$log" 2>&1 || rc=$?
# Nothing may skip here: the container is up. The only skips allowed are
# the live tests on the host, which TestResourcesInMachine runs inside the
# container (and fails on any skip there).
skipped=$(grep -E '^ *--- SKIP: ' "$log" | grep -v -E -- '--- SKIP: TestLive' || true)
if [ -n "$skipped" ]; then
	echo "tests skipped with the container up:"
	echo "$skipped"
	rc=1
fi
if [ "$rc" -ne 0 ]; then
	cat "$log"
else
	grep -E '^(--- |        --- |ok )|reverted in|transaction for 3' "$log" || true
fi
rm -f "$log"
exit "$rc"
