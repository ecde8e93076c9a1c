#!/usr/bin/env bash
# Join, promotion and leave races of `mgmt-cluster run`, repeated more often
# than in the main suite: five hosts starting at once, 20 rounds, and all
# three members of a cluster stopped (SIGTERM) at once and restarted, 5
# rounds. Prints each round's timing; the whole output on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
log=$(mktemp)
rc=0
MGMT_CLUSTER_JOIN_ROUNDS=20 MGMT_CLUSTER_LEAVE_ROUNDS=5 \
	go test -count=1 -timeout 25m -v -run '^(TestJoinAtOnce|TestLeaveAll)$' ./test/cluster/ >"$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$log"
else
	grep -E '^(--- |    --- |ok )|settled in|kept the data' "$log" || true
fi
rm -f "$log"
exit "$rc"
