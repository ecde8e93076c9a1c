#!/usr/bin/env bash
# Run the mcl conformance corpus through the built tools (also `make
# conformance`) and fail unless the failing cases are exactly those listed in
# test/mcl/testdata/conformance-expected-failures.txt (and, for this runner
# only, conformance-runner-failures.txt): a regression fails, and
# so does a listed case that passes. The corpus expects
# $purpleidea = "hello world!" in the default scope. In CI (CI=true) a
# missing ../shared/conformance is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -d ../shared/conformance/mcl ]; then
	echo "conformance: ../shared/conformance not found"
	[ "${CI:-}" = true ] && exit 1
	exit 0
fi
out=$(MGMT_VAR='purpleidea=hello world!' python3 ../shared/conformance/run-mcl.py --bin bin ../shared/conformance/mcl 2>&1) || true
echo "conformance: $(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)"
got=$(printf '%s\n' "$out" | sed -n 's/^FAIL \([^:]*\.txtar\).*/\1/p' | sort -u)
want=$(cat test/mcl/testdata/conformance-expected-failures.txt test/mcl/testdata/conformance-runner-failures.txt |
	grep -v '^#' | sed -n 's/^\([^:]*\.txtar\):.*/\1/p' | sort -u)
if [ "$got" != "$want" ]; then
	printf '%s\n' "$out" | grep '^FAIL' || true
	echo "conformance: the failing cases differ from test/mcl/testdata/conformance-expected-failures.txt:"
	diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") || true
	exit 1
fi
echo "conformance: only the expected failures ($(printf '%s\n' "$want" | grep -c .))"
