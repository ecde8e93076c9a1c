#!/usr/bin/env bash
# Run the mcl conformance corpus through the built tools and fail when fewer
# than 95% of its cases pass (also `make conformance`). Prints the failures.
# The corpus expects $purpleidea = "hello world!" in the default scope.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -d ../shared/conformance/mcl ]; then
	echo "conformance: ../shared/conformance not found, skipped"
	exit 0
fi
out=$(MGMT_VAR='purpleidea=hello world!' python3 ../shared/conformance/run-mcl.py --bin bin ../shared/conformance/mcl 2>&1) || true
last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
echo "conformance: $last"
passed=0 failed=0
[ -n "$last" ] && read -r passed _ failed _ <<<"${last//,/}"
total=$((passed + failed))
printf '%s\n' "$out" | grep '^FAIL' || true
if [ "$total" -eq 0 ] || [ $((passed * 100)) -lt $((total * 95)) ]; then
	echo "conformance: below 95% ($passed of $total)"
	exit 1
fi
