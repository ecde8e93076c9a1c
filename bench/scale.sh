#!/usr/bin/env bash
# Compile at scale: time from start to the first graph written out, for
# mcl-compile --once on programs of N statements (binds, printf calls,
# file resources, edges; the programs of BenchmarkCompileScale) and for
# puppet-graph --engine native on manifests of N resources (files with
# parameters, execs, packages, defines, classes, variables and edges; the
# "mixed" manifests of BenchmarkNativeScale). Prints wall and CPU time
# (user + system), peak RSS, the ratio of CPU times between the largest
# and the smallest size (10 when the compilers are linear), and the
# load average beside each run: on a busy machine compare CPU times.
# Target: 100,000 statements or resources to first graph in 2 s.
# Usage: bench/scale.sh [SIZES]   (default "10000 100000")
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${1:-10000 100000}
for t in mcl-compile puppet-graph; do
	[ -x "bin/$t" ] || { echo "scale.sh: bin/$t not built (run make)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

genmcl() { # N
	awk -v n="$1" 'BEGIN {
		print "import \"fmt\""
		for (i = 0; i < n / 4; i++) {
			printf "$v%d = \"value%d\"\n", i, i
			printf "$p%d = fmt.printf(\"%%s-%%d\", $v%d, %d)\n", i, i, i
			printf "file \"/tmp/mcl-bench/f%d\" {\n\tcontent => $p%d,\n\tstate => \"exists\",\n\tmode => \"0644\",\n}\n", i, i
			if (i == 0) print "$first = \"f0\""
			else printf "File[\"/tmp/mcl-bench/f%d\"] -> File[\"/tmp/mcl-bench/f%d\"]\n", i - 1, i
		}
	}'
}

genpp() { # N
	awk -v n="$1" 'BEGIN {
		print "$base = \"/tmp/pscale\""
		print "file { $base: ensure => directory }"
		print "define pscale::site($port, $root = \"${base}/sites\") {"
		print "  file { \"${root}/${title}.conf\": ensure => file, content => \"listen ${port}\\n\", mode => \"0640\", require => File[$root] }"
		print "}"
		print "file { \"${base}/sites\": ensure => directory, mode => \"0755\" }"
		for (c = 0; c < n / 100; c++) {
			printf "class pscale::c%d {\n  $dir = \"${base}/c%d\"\n", c, c
			print "  file { $dir: ensure => directory, owner => \"root\", group => \"root\", mode => \"0755\" }"
			for (j = 0; j < 99; j++) {
				i = c * 100 + j
				k = j % 10
				if (k < 7) {
					printf "  $v%d = \"value %d\\n\"\n", j, i
					printf "  file { \"${dir}/f%d\": ensure => file, content => $v%d, mode => \"0644\", owner => \"root\", group => \"root\", backup => false }\n", j, j
					if (k == 3) printf "  File[\"${dir}/f%d\"] -> File[\"${dir}/f%d\"]\n", j - 1, j
				} else if (k == 7) {
					printf "  exec { \"pscale-%d\": command => \"/bin/touch ${dir}/e%d\", creates => \"${dir}/e%d\", path => [\"/bin\", \"/usr/bin\"], require => File[\"${dir}/f%d\"] }\n", i, j, j, j - 1
				} else if (k == 8) {
					printf "  package { \"pscale-pkg-%d\": ensure => installed }\n", i
				} else {
					printf "  pscale::site { \"s%d\": port => %d }\n", i, 1000 + i % 50000
				}
			}
			printf "}\ninclude pscale::c%d\n", c
		}
	}'
}

measure() { # CMD... -> "wall cpu rss_kib" (rss - without GNU time)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null
		awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$work/time"
	else
		local TIMEFORMAT='%R %U %S'
		{ time "$@" >/dev/null; } 2>"$work/time"
		awk '{ printf "%.2f %.2f -\n", $1, $2 + $3 }' "$work/time"
	fi
}

load() { cut -d' ' -f1 /proc/loadavg; }

printf '%-14s %8s %9s %8s %10s %6s\n' compiler size wall-s cpu-s peak-MiB load
for c in mcl puppet; do
	first= last=
	for n in $SIZES; do
		if [ "$c" = mcl ]; then
			genmcl "$n" >"$work/p.mcl"
			cmd=(bin/mcl-compile --once "$work/p.mcl")
		else
			genpp "$n" >"$work/p.pp"
			cmd=(bin/puppet-graph --engine native --certname bench "$work/p.pp")
		fi
		l=$(load)
		read -r wall cpu rss < <(measure "${cmd[@]}")
		printf '%-14s %8s %9s %8s %10s %6s\n' "${cmd[0]#bin/}" "$n" "$wall" "$cpu" "$([ "$rss" = - ] && echo - || echo $((rss / 1024)))" "$l"
		first=${first:-$cpu}
		last=$cpu
	done
	awk -v a="$first" -v b="$last" -v c="${cmd[0]#bin/}" 'BEGIN { if (a > 0) printf "%s: cpu ratio largest/smallest size %.1f\n", c, b / a }'
done
