#!/bin/sh
# Many hosts on one world, on this machine: one mgmt-cluster member and
# HOSTS hosts (default 20), each `mcl-compile --seeds ... --hostname hI |
# mgmt-apply --seeds ... --hostname hI --tmp-prefix`, every host exporting
# one hidden file to every other host and collecting the HOSTS-1 files
# addressed to it (HOSTS*(HOSTS-1) files in all, each host's under a
# directory of its own). Prints the time from start until every file is
# in place, the resident memory of the member and of the tools (median
# and largest), the database size, and how often the compilers had to
# wait for the world ("retrying in"). Fails if a compiler exits, or if the
# files are not all there within TIMEOUT seconds (default 300).
#
# HOSTS=100 is the figure in docs/operating.md; it needs about 8 GB of
# memory and keeps two cores busy for a few minutes.
set -eu
cd "$(dirname "$0")/.."
HOSTS=${HOSTS:-20}
TIMEOUT=${TIMEOUT:-300}
for t in mcl-compile mgmt-apply mgmt-cluster; do
	[ -x "bin/$t" ] || { echo "build first: make" >&2; exit 1; }
done
bin=$(pwd)/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/mgmt-bench-hosts.XXXXXX")
groups=""
cleanup() {
	for g in $groups; do kill -TERM -"$g" 2>/dev/null || true; done
	# wait (at most 30 s) for every host's tools to end before removing
	# their files
	i=0
	for g in $groups; do
		while kill -0 -"$g" 2>/dev/null && [ $i -lt 300 ]; do
			i=$((i + 1))
			sleep 0.1
		done
	done
	if [ -n "${member:-}" ]; then
		kill -TERM "$member" 2>/dev/null || true
		wait "$member" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir "$work/logs" "$work/root"
"$bin/mgmt-cluster" run --prefix "$work/m" 2>"$work/logs/member" &
member=$!
i=0
until grep -q "running as member" "$work/logs/member"; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "hosts.sh: the member did not start" >&2; cat "$work/logs/member" >&2; exit 1; }
	sleep 0.1
done
seeds="unix://$work/m/world/client.sock"

# program I: the files host I exports, one to every other host, and the
# collect statement of the files addressed to it.
program() {
	awk -v me="$1" -v n="$HOSTS" -v root="$work/root" 'BEGIN {
		for (j = 1; j <= n; j++) if (j != me)
			printf "file \"%s/h%d/from-h%d\" { content => \"h%d\\n\", state => \"exists\", Meta:export => [\"h%d\"], Meta:hidden => true, }\n", root, j, me, me, j
		printf "collect file ["
		for (j = 1; j <= n; j++) if (j != me) printf "\"%s/h%d/from-h%d\", ", root, me, j
		printf "] {}\n"
	}'
}

t0=$(date +%s%N)
i=1
while [ $i -le "$HOSTS" ]; do
	mkdir "$work/root/h$i"
	program $i >"$work/h$i.mcl"
	# A process group per host (setsid), stopped as a whole at the end.
	setsid sh -c "'$bin/mcl-compile' --seeds '$seeds' --hostname h$i '$work/h$i.mcl' 2>'$work/logs/c$i' |
		'$bin/mgmt-apply' --seeds '$seeds' --hostname h$i --tmp-prefix 2>'$work/logs/a$i'; echo done >'$work/logs/exit$i'" </dev/null >/dev/null 2>&1 &
	groups="$groups $!"
	i=$((i + 1))
done
want=$((HOSTS * (HOSTS - 1)))
while :; do
	have=$(find "$work/root" -type f | wc -l)
	elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
	exited=$(find "$work/logs" -name 'exit*' | wc -l)
	[ "$exited" -eq 0 ] || { echo "hosts.sh: $exited host(s) stopped; their compilers said:" >&2; grep -h error "$work"/logs/c* | head >&2; exit 1; }
	[ "$have" -lt "$want" ] || break
	[ $elapsed -lt $((TIMEOUT * 1000)) ] || { echo "hosts.sh: only $have of $want files after ${TIMEOUT}s" >&2; exit 1; }
	sleep 0.2
done

# rss NAME: "median/largest MiB" of the resident memory of the tool NAME
# of every host.
rss() {
	for p in $(pgrep -x "$1"); do
		grep -qF -- "$seeds" "/proc/$p/cmdline" 2>/dev/null && awk '/^VmRSS/ { print $2 }' "/proc/$p/status"
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f/%.1f MiB", v[int((NR + 1) / 2)] / 1024, v[NR] / 1024 }'
}

echo "$HOSTS hosts, one member: all $want files in place after $(awk -v ms="$elapsed" 'BEGIN { printf "%.1f", ms / 1000 }') s"
echo "member: $(awk '/^VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$member/status") resident, database $(du -sh "$work/m/world/server" | cut -f1)"
echo "mgmt-apply per host (median/largest): $(rss mgmt-apply)"
echo "mcl-compile per host (median/largest): $(rss mcl-compile)"
echo "waits for the world (retrying in ...): $(cat "$work"/logs/c* "$work"/logs/a* | grep -c 'retrying in' || true)"
