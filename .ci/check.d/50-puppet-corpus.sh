#!/usr/bin/env bash
# The Puppet module corpus (test/puppetmodules): every case compiled by
# real Puppet and by the native engine, and applied with mgmt-apply --noop
# (the graphs with services inside the booted systemd container, whose
# root holds Puppet). Too long for the main suite; prints the table of
# results.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
trap 'scripts/systemd-container/stop.sh' EXIT
MGMT_E2E_MACHINE=$(scripts/systemd-container/boot.sh)
export MGMT_E2E_MACHINE
echo "systemd container up: PID 1 = $MGMT_E2E_MACHINE"
report=$(mktemp)
rc=0
MGMT_PUPPET_CORPUS=1 MGMT_PUPPET_CORPUS_REPORT="$report" \
	go test -count=1 -timeout 40m ./test/puppetmodules/ || rc=$?
cat "$report" 2>/dev/null || true
rm -f "$report"
exit "$rc"
