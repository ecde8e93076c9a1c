#!/usr/bin/env bash
# Many hosts on one world: TestManyHosts with 100 hosts (mcl-compile |
# mgmt-apply each) on a 3-member cluster, every host exporting a file to
# every other one (9,900 files), then a member and ten hosts killed and
# restarted, and every host's converged exit. Needs about 8 GB of memory
# (the test fails at its start, saying so, with less). Prints the figures;
# the whole output on a failure. Bounded: the test gives up by itself
# (deadlines of a few minutes at each step) and is killed at 20 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
log=$(mktemp)
rc=0
MGMT_MANY_HOSTS=${MGMT_MANY_HOSTS:-100} timeout 20m \
	go test -count=1 -timeout 18m -v -run '^TestManyHosts$' ./test/cluster/ >"$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$log"
else
	grep -E '^(--- |ok )|scale_test' "$log" || true
fi
rm -f "$log"
exit "$rc"
