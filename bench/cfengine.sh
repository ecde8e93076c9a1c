#!/bin/sh
# mgmt-apply against CFEngine's cf-agent on the same work: N files with one
# line of content each (mode 0644), from nothing (cold: the files removed)
# and already in place (warm), each run a whole process from start to exit
# (for a cold run, the previous run's files are moved aside, and all are
# removed at the end):
#
#   mgmt-apply --tmp-prefix --converged-timeout 0 --file g.json
#   cf-agent -K -f p.cf
#
# Each is run RUNS times per case (default: 21 up to 1,000 files, 7 up to
# 10,000, 3 above; a run of 1,000 files takes a few hundredths of a
# second, and the exit of one run in four or so waits about 12 ms more for
# the kernel, see "Scale" in docs/operating.md); the table gives the
# medians of the wall time and of the peak resident memory and the ratio
# of the peak memories. Both are measured by bench/measure, which starts
# the process, waits for it and reports the time between and the
# process's own high-water mark (wait4's maxrss, GNU time's %M). N is
# SIZES (default "1000 10000 100000": the rows of the table `make bench`
# prints); above 10,000 the files are spread over N/1000 directories,
# and cf-agent runs only up to CF_MAX files (default 10000; "-" in the
# table beyond it).
#
# The warm runs of each tool start once the files of its cold runs are
# written back (sync).
#
# The files are made under TMPDIR (default /tmp). The header names its file
# system: ext4 without a journal makes cold times swing several-fold (see
# docs/operating.md), so use one with a journal (or tmpfs, for the tools'
# own share) when comparing.
#
# This script installs nothing. Without cf-agent it says how to get it
# (Debian: apt-get install cfengine3) and exits 0, so `make bench` goes on.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/mgmt-apply}
CF=${CF:-$(command -v cf-agent || true)}
SIZES=${SIZES:-"1000 10000 100000"}
RUNS=${RUNS:-}
CF_MAX=${CF_MAX:-10000}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
if [ -z "$CF" ]; then
	echo "cfengine.sh: cf-agent not found: skipped (on Debian: apt-get install cfengine3)"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mgmt-bench-cf.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
${GO:-go} build -o "$work/measure" ./bench/measure || { echo "cfengine.sh: cannot build bench/measure" >&2; exit 1; }

# runs N: how many times each case of N files is run.
runs() {
	if [ -n "$RUNS" ]; then echo "$RUNS"
	elif [ "$1" -le 1000 ]; then echo 21
	elif [ "$1" -le 10000 ]; then echo 7
	else echo 3
	fi
}

# inputs N ROOT: writes the graph ($work/g.json) and the policy
# ($work/p.cf) of N files under ROOT.
inputs() {
	awk -v n="$1" -v root="$2" -v g="$work/g.json" -v p="$work/p.cf" 'BEGIN {
		nd = n > 10000 ? int(n / 1000) : 1
		printf "{\"mgmt\":\"graph/v1\",\"graph\":\"bench\",\"seq\":1,\"resources\":[" > g
		printf "body common control { bundlesequence => { \"main\" }; }\n" > p
		printf "body edit_defaults empty { empty_file_before_editing => \"true\"; edit_backup => \"false\"; }\n" > p
		printf "body perms m644 { mode => \"644\"; }\n" > p
		printf "bundle edit_line line(s) { insert_lines: \"$(s)\"; }\n" > p
		printf "bundle agent main {\nfiles:\n" > p
		for (j = 0; j < nd; j++) {
			printf "%s{\"kind\":\"file\",\"name\":\"%s/d%d/\",\"params\":{\"state\":\"exists\"}}", (j ? "," : ""), root, j > g
			printf "\"%s/d%d/.\" create => \"true\";\n", root, j > p
		}
		for (i = 0; i < n; i++) {
			f = sprintf("%s/d%d/f%d", root, i % nd, i)
			printf ",{\"kind\":\"file\",\"name\":\"%s\",\"params\":{\"state\":\"exists\",\"content\":\"file %d\\n\",\"mode\":\"0644\"}}", f, i > g
			printf "\"%s\" create => \"true\", perms => m644, edit_defaults => empty, edit_line => line(\"file %d\");\n", f, i > p
		}
		printf "]}\n" > g
		printf "}\n" > p
	}'
}

# run CMD...: runs the command, prints "microseconds peak-KiB".
run() {
	"$work/measure" -o "$work/out" -- "$@" </dev/null || { echo "failed: $*" >&2; tail "$work/out" >&2; exit 1; }
}

# check N ROOT: every file is in place with its line.
check() {
	nd=1; [ "$1" -gt 10000 ] && nd=$(( $1 / 1000 ))
	last=$(( $1 - 1 ))
	for j in 0 "$last"; do
		f="$2/d$(( j % nd ))/f$j"
		[ "$(cat "$f" 2>/dev/null)" = "file $j" ] || { echo "cfengine.sh: $f is not right after the run" >&2; exit 1; }
	done
	[ "$(find "$2" -type f | wc -l)" -eq "$1" ] || { echo "cfengine.sh: not $1 files under $2" >&2; exit 1; }
}

# median: the median of the numbers on stdin.
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure TOOL N STATE: runs N runs; prints "median-seconds median-MiB".
measure() {
	root="$work/files-$1"
	: >"$work/t"
	: >"$work/m"
	done_runs=0
	while [ $done_runs -lt "$(runs "$2")" ]; do
		if [ "$3" = cold ]; then
			# The files of the previous run are moved aside, not
			# removed: on ext4 without a journal, making files right
			# after removing many makes every new inode pass over the
			# ones just freed, a cost of the removal rather than of
			# the tool. They are removed with $work at the end.
			[ -e "$root" ] && mv "$root" "$work/old.$$.$(date +%s%N)"
			mkdir -p "$root"
		fi
		case $1 in
		mgmt) set -- "$1" "$2" "$3" $(run "$BIN" --tmp-prefix --converged-timeout 0 --file "$work/g.json") ;;
		cf) set -- "$1" "$2" "$3" $(run "$CF" -K -f "$work/p.cf") ;;
		esac
		check "$2" "$root"
		echo "$4" >>"$work/t"
		echo "$5" >>"$work/m"
		set -- "$1" "$2" "$3"
		done_runs=$((done_runs + 1))
	done
	echo "$(median <"$work/t" | awk '{ printf "%.3f", $1 / 1e6 }') $(median <"$work/m" | awk '{ printf "%.1f", $1 / 1024 }')"
}

# fsinfo DIR: the type of DIR's file system, and for ext4 whether it has a
# journal (the kernel shows data= among the options of one that has).
fsinfo() {
	src=$(findmnt -n -o SOURCE -T "$1" 2>/dev/null || true)
	typ=$(findmnt -n -o FSTYPE -T "$1" 2>/dev/null || echo unknown)
	opts=/proc/fs/ext4/${src##*/}/options
	if [ "$typ" = ext4 ] && [ -r "$opts" ]; then
		if grep -q '^data=' "$opts"; then typ="ext4 with a journal"; else typ="ext4 without a journal"; fi
	fi
	echo "$typ"
}
fs=$(fsinfo "$work")
echo "mgmt-apply ($BIN) against $("$CF" --version | head -n 1), medians of $(for n in $SIZES; do printf '%s ' "$(runs "$n")"; done | sed 's/ $//; s/ /, /g') runs (by size), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), files in $work ($fs)"
case $fs in
*"without a journal")
	echo
	echo "Warning: on ext4 without a journal every new inode passes over the inodes freed in the last minute or so, and cold times swing several-fold from run to run for both tools; set TMPDIR to a directory on a file system with a journal for steadier figures." ;;
esac
echo
echo "| N files | ours cold | CFEngine cold | ours warm | CFEngine warm | ours peak RSS | CFEngine peak RSS | RSS ours/CFEngine |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for n in $SIZES; do
	for tool in mgmt cf; do
		if [ $tool = cf ] && [ "$n" -gt "$CF_MAX" ]; then
			cf_cold="- -"
			cf_warm="- -"
			continue
		fi
		inputs "$n" "$work/files-$tool"
		cold=$(measure $tool "$n" cold)
		# The cold runs' files are written back before the warm runs,
		# which would otherwise share the machine with that writeback.
		sync
		warm=$(measure $tool "$n" warm)
		if [ $tool = mgmt ]; then mg_cold=$cold mg_warm=$warm; else cf_cold=$cold cf_warm=$warm; fi
		mv "$work/files-$tool" "$work/old.$$.$(date +%s%N)"
	done
	set -- $mg_cold $cf_cold $mg_warm $cf_warm
	# peak RSS: the larger of the cold and warm medians
	mg_rss=$(printf '%s\n%s\n' "$2" "$6" | sort -n | tail -n 1)
	cf_rss=$(printf '%s\n%s\n' "$4" "$8" | sort -n | tail -n 1)
	ratio=$(awk -v a="$mg_rss" -v b="$cf_rss" 'BEGIN { if (b == "-" || b == 0) print "-"; else printf "%.2f", a / b }')
	fmt() { [ "$1" = - ] && echo - || echo "$1 $2"; }
	echo "| $n | $(fmt "$1" s) | $(fmt "$3" s) | $(fmt "$5" s) | $(fmt "$7" s) | $(fmt "$mg_rss" MiB) | $(fmt "$cf_rss" MiB) | $ratio |"
done
