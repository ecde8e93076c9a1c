#!/usr/bin/env bash
# puppet-graph --agent against a real Puppet server (test/puppetagent): the
# test starts Debian's puppetserver with a CA of its own, bootstraps the
# node's certificate, fetches the node's catalog of real modules and
# compares its graph with the local compilation, then stops the server and
# checks the agent's error. The JVM takes most of the time (about a minute
# to start on two idle cores, ~800 MB); bounded at 8 minutes. Prints the
# timings; the whole output on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
log=$(mktemp)
rc=0
MGMT_PUPPETSERVER=1 timeout 9m go test -count=1 -timeout 8m -v -run '^TestAgent' ./test/puppetagent/ >"$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$log"
else
	grep -E '^(--- |ok )|ready in|signed in|fetched in' "$log" || true
fi
rm -f "$log"
exit "$rc"
