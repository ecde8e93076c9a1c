#!/usr/bin/env bash
# Benchmark: puppet-graph's native engine against `puppet catalog compile`
# on the same generated manifest (a directory and N files in it). Reports the wall time and peak RSS of each
# (median and minimum of RUNS runs; the minimum is the better estimate on a
# busy machine) and the speed-up; the target is native >= 20x.
# Usage: bench/puppet.sh [N] [RUNS]   (default 1000 5)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
RUNS=${2:-5}
BIN=${BIN:-bin/puppet-graph}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/puppet-graph
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

manifest=$work/files.pp
{
	echo 'file { "/tmp/pbench": ensure => directory }'
	for ((i = 0; i < N; i++)); do
		echo "file { \"/tmp/pbench/f$i\": ensure => file, content => \"x\\n\" }"
	done
} >"$manifest"

# measure CMD...: prints "wall_seconds max_rss_kib" of one run
measure() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
			cat "$work/err" >&2
			return 1
		}
		cat "$work/time"
	else
		local s e
		s=$(date +%s.%N)
		"$@" >/dev/null 2>"$work/err"
		e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" 'BEGIN {printf "%.3f 0\n", e - s}'
	fi
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
minimum() { sort -n | head -1; }

run() { # name cmd...
	local name=$1
	shift
	: >"$work/w"
	: >"$work/m"
	for ((r = 0; r < RUNS; r++)); do
		read -r w m < <(measure "$@")
		echo "$w" >>"$work/w"
		echo "$m" >>"$work/m"
	done
	local wm wmin mm
	wm=$(median <"$work/w")
	wmin=$(minimum <"$work/w")
	mm=$(median <"$work/m")
	printf '%-28s wall median %7.3f s  min %7.3f s   peak RSS %6.1f MiB\n' "$name" "$wm" "$wmin" "$(awk -v m="$mm" 'BEGIN {print m / 1024}')"
	echo "$wm" >"$work/$name.wall"
	echo "$wmin" >"$work/$name.min"
}

echo "puppet-graph benchmark: $N file resources, $RUNS runs each"
run native "$BIN" --engine native --certname bench "$manifest"
if command -v puppet >/dev/null; then
	run puppet-catalog-compile puppet catalog compile bench --manifest "$manifest" --render-as json --log_level warning
	run puppet-graph-engine-puppet "$BIN" --engine puppet --certname bench "$manifest"
	# wall times below the timer's 10 ms resolution count as 10 ms
	for stat in wall min; do
		n=$(cat "$work/native.$stat")
		p=$(cat "$work/puppet-catalog-compile.$stat")
		speedup=$(awk -v p="$p" -v n="$n" 'BEGIN {if (n < 0.01) n = 0.01; print p / n}')
		printf 'native speed-up over puppet catalog compile (%s): %.1fx (target >= 20x)\n' "${stat/wall/median}" "$speedup"
	done
else
	echo "puppet is not installed: skipped the comparison"
fi
