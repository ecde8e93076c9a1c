#!/usr/bin/env bash
# The Puppet module corpus (test/puppetmodules): every case compiled by
# real Puppet and by the native engine, and applied with mgmt-apply --noop.
# Too long for the main suite; prints the table of results.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
report=$(mktemp)
rc=0
MGMT_PUPPET_CORPUS=1 MGMT_PUPPET_CORPUS_REPORT="$report" \
	go test -count=1 -timeout 40m ./test/puppetmodules/ || rc=$?
cat "$report" 2>/dev/null || true
rm -f "$report"
exit "$rc"
