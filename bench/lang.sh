#!/bin/sh
# Time and peak RSS of mcl-compile from start to first graph, for generated
# programs of 100, 1,000 and 10,000 statements (binds, printf calls and file
# resources using them). Target: 10,000 statements in under 1 s and 200 MB.
set -eu
cd "$(dirname "$0")/.."
bin=bin/mcl-compile
[ -x "$bin" ] || { echo "lang.sh: $bin not built (run make)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

gen() { # gen N FILE
	awk -v n="$1" 'BEGIN {
		print "import \"fmt\""
		for (i = 0; i < n / 3; i++) {
			printf "$v%d = \"value%d\"\n", i, i
			printf "$p%d = fmt.printf(\"%%s-%%d\", $v%d, %d)\n", i, i, i
			printf "file \"/tmp/mcl-bench/f%d\" {\n\tcontent => $p%d,\n\tstate => \"exists\",\n}\n", i, i
		}
	}' > "$2"
}

measure() { # measure FILE -> "seconds kilobytes"
	python3 - "$bin" "$1" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run([sys.argv[1], "--once", sys.argv[2]], stdout=subprocess.DEVNULL, check=True)
el = time.monotonic() - t
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("%.3f %d" % (el, kb))
PY
}

printf '%-12s %10s %12s\n' statements seconds peak-RSS-MB
for n in 100 1000 10000; do
	gen "$n" "$dir/p$n.mcl"
	set -- $(measure "$dir/p$n.mcl")
	printf '%-12s %10s %12s\n' "$n" "$1" "$(($2 / 1024))"
	if [ "$n" = 10000 ]; then
		awk -v s="$1" -v kb="$2" 'BEGIN { if (s > 1.0 || kb > 200*1024) { print "lang.sh: 10,000 statements over target (1 s, 200 MB)"; exit 1 } }'
	fi
done
