#!/bin/sh
# Time mgmt-apply on graphs of N file resources (N = 100, 1000, 10000), flat
# and as a chain of edges, from nothing and when already converged, with
# --converged-timeout 0: wall time of the whole run and peak RSS. The Go
# benchmarks in test/apply (BenchmarkApplyFiles, BenchmarkDriftRepair,
# BenchmarkIdle) break these down further. Graphs are generated here, in a
# temporary directory that is removed at the end.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/mgmt-apply}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
SIZES=${SIZES:-"100 1000 10000"}
work=$(mktemp -d "${TMPDIR:-/tmp}/mgmt-bench-apply.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# graph N DIR CHAIN: a directory resource and N files in it.
graph() {
	awk -v n="$1" -v d="$2" -v chain="$3" 'BEGIN {
		printf "{\"mgmt\":\"graph/v1\",\"graph\":\"bench\",\"seq\":1,\"resources\":["
		printf "{\"kind\":\"file\",\"name\":\"%s/\",\"params\":{\"state\":\"exists\"}}", d
		for (i = 0; i < n; i++)
			printf ",{\"kind\":\"file\",\"name\":\"%s/f%d\",\"params\":{\"state\":\"exists\",\"content\":\"file %d\\n\",\"mode\":\"0644\"}}", d, i, i
		printf "]"
		if (chain && n > 1) {
			printf ",\"edges\":["
			for (i = 1; i < n; i++)
				printf "%s{\"from\":{\"kind\":\"file\",\"name\":\"%s/f%d\"},\"to\":{\"kind\":\"file\",\"name\":\"%s/f%d\"}}", (i > 1 ? "," : ""), d, i-1, d, i
			printf "]"
		}
		printf "}\n"
	}'
}

# run GRAPH: prints "seconds peak-KB" of one run.
run() {
	if /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
		/usr/bin/time -o "$work/time" -f '%e %M' "$BIN" --tmp-prefix --converged-timeout 0 <"$1" 2>"$work/log"
		cat "$work/time"
	else
		t0=$(date +%s%N)
		"$BIN" --tmp-prefix --converged-timeout 0 <"$1" 2>"$work/log"
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000000 ))e-3 ?"
	fi
	grep -q 'converged for' "$work/log" || { echo "mgmt-apply did not converge:" >&2; tail "$work/log" >&2; exit 1; }
}

printf '%-6s %-6s %-10s %10s %10s %12s\n' shape N state wall-s peak-MB converge
for shape in flat chain; do
	for n in $SIZES; do
		chain=0; [ "$shape" = chain ] && chain=1
		graph "$n" "$work/files" "$chain" >"$work/g.json"
		rm -rf "$work/files"
		for state in nothing converged; do
			set -- $(run "$work/g.json")
			conv=$(sed -n 's/.*converged in \([^ ]*\).*/\1/p' "$work/log")
			mb=$(awk -v k="$2" 'BEGIN { if (k == "?") print "?"; else printf "%.1f", k / 1024 }')
			printf '%-6s %-6s %-10s %10s %10s %12s\n' "$shape" "$n" "$state" "$1" "$mb" "$conv"
		done
	done
done

# Idle cost of a converged graph of 1,000 files: CPU over a 5 s window,
# inotify instances, descriptors and resident memory, split into the pages
# of the program file (RssFile: its code and read-only data, mapped as the
# Go runtime initialises the packages it is built from) and the rest
# (RssAnon: heap, stacks, the runtime's own), and the peak (VmHWM).
graph 1000 "$work/idle" 0 >"$work/idle.json"
mkfifo "$work/in"
"$BIN" --tmp-prefix <"$work/in" 2>"$work/idle.log" &
pid=$!
exec 3>"$work/in"
cat "$work/idle.json" >&3
i=0
until grep -q 'converged in' "$work/idle.log"; do
	i=$((i + 1))
	[ $i -lt 600 ] || { echo "idle: no convergence" >&2; kill "$pid"; exit 1; }
	sleep 0.1
done
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
t0=$(ticks)
sleep 5
t1=$(ticks)
hz=$(getconf CLK_TCK)
inotify=0
fds=0
for fd in /proc/"$pid"/fd/*; do
	fds=$((fds + 1))
	[ "$(readlink "$fd")" = "anon_inode:inotify" ] && inotify=$((inotify + 1))
done
rss=$(awk '/^(VmRSS|RssFile|RssAnon|VmHWM):/ { v[$1] = sprintf("%.1f", $2 / 1024) }
	END { printf "%s MB (program file %s MB, anonymous %s MB), peak %s MB", v["VmRSS:"], v["RssFile:"], v["RssAnon:"], v["VmHWM:"] }' "/proc/$pid/status")
exec 3>&-
kill -TERM "$pid"
wait "$pid" || true
echo
echo "idle, 1000 files: CPU $(awk -v a="$t0" -v b="$t1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz / 5 * 100 }')% of a core," \
	"$inotify inotify instance(s), $fds descriptors, RSS $rss"
