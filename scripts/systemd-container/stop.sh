#!/usr/bin/env bash
# stop.sh - power off the container started by boot.sh, wait for nspawn to
# exit, and remove its cgroups and state. Safe to run twice.
NAME=${MGMT_E2E_NAME:-mgmt-e2e}
STATE=${MGMT_E2E_STATE:-/run/mgmt-e2e-$NAME}
[ -f "$STATE/nspawn.pid" ] || exit 0
nsp=$(cat "$STATE/nspawn.pid")
pid1=$(cat "$STATE/pid1" 2>/dev/null || true)
if kill -0 "$nsp" 2>/dev/null; then
	if [ -n "$pid1" ]; then
		nsenter -t "$pid1" -a systemctl poweroff 2>/dev/null || kill -RTMIN+4 "$pid1" 2>/dev/null
	else
		kill "$nsp"
	fi
	for _ in $(seq 1 100); do
		kill -0 "$nsp" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$nsp" 2>/dev/null && kill -KILL "$nsp"
fi
for h in systemd unified; do
	d=/sys/fs/cgroup/$h/mgmt-e2e-$NAME
	[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
done
rm -rf "/run/systemd/nspawn/propagate/$NAME" "$STATE"
true
