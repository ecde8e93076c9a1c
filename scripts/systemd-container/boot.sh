#!/usr/bin/env bash
# boot.sh - boot the throwaway systemd container built by build.sh and wait
# until its systemd reports running (or degraded).
#
# The cached root is mounted read-only under a tmpfs overlay
# (--volatile=overlay): everything the tests change vanishes at power-off.
# The host has no systemd as PID 1, so nspawn runs with --register=no
# --keep-unit, in a cgroup of its own (two containers started from the same
# cgroup would otherwise share one tree). The container has a network of
# its own (--private-network: a loopback only), so what the tests change
# there (firewalld's rules, links) never reaches the host, and it holds
# CAP_NET_ADMIN for it.
#
# On success it prints the container's PID 1 as seen from the host and writes
# it to $STATE/pid1; tests find the machine through
#   MGMT_E2E_MACHINE=<pid1>
# and reach it with nsenter -t <pid1> -a, or its system bus at
#   unix:path=/proc/<pid1>/root/run/dbus/system_bus_socket
#
# Environment: MGMT_E2E_CACHE, MGMT_E2E_SUITE (see build.sh), MGMT_E2E_NAME
# (default mgmt-e2e), MGMT_E2E_STATE (default /run/mgmt-e2e-$NAME).
set -euo pipefail
CACHE=${MGMT_E2E_CACHE:-/var/cache/mgmt-e2e}
SUITE=${MGMT_E2E_SUITE:-bookworm}
NAME=${MGMT_E2E_NAME:-mgmt-e2e}
STATE=${MGMT_E2E_STATE:-/run/mgmt-e2e-$NAME}
ROOT=$CACHE/$SUITE

[ -x "$ROOT/usr/lib/systemd/systemd" ] || { echo "boot: no root in $ROOT: run build.sh first" >&2; exit 1; }
if [ -f "$STATE/nspawn.pid" ] && kill -0 "$(cat "$STATE/nspawn.pid")" 2>/dev/null; then
	echo "boot: $NAME is already running (nspawn pid $(cat "$STATE/nspawn.pid"))" >&2
	exit 1
fi
mkdir -p "$STATE"

(
	for h in systemd unified; do
		if [ -d /sys/fs/cgroup/$h ]; then
			mkdir -p /sys/fs/cgroup/$h/mgmt-e2e-$NAME
			echo $BASHPID >/sys/fs/cgroup/$h/mgmt-e2e-$NAME/cgroup.procs
		fi
	done
	exec setsid systemd-nspawn -q -D "$ROOT" --volatile=overlay -b --private-network \
		--register=no --keep-unit --console=pipe -M "$NAME" \
		>"$STATE/console.log" 2>&1 </dev/null
) &
echo $! >"$STATE/nspawn.pid"

pid1=""
state=""
for _ in $(seq 1 300); do
	if ! kill -0 "$(cat "$STATE/nspawn.pid")" 2>/dev/null; then
		echo "boot: systemd-nspawn exited:" >&2
		tail -20 "$STATE/console.log" >&2
		exit 1
	fi
	[ -n "$pid1" ] || pid1=$(pgrep -P "$(cat "$STATE/nspawn.pid")" -x systemd || true)
	if [ -n "$pid1" ]; then
		state=$(nsenter -t "$pid1" -a systemctl is-system-running 2>/dev/null || true)
		case "$state" in running | degraded) break ;; esac
	fi
	sleep 0.1
done
case "$state" in
running | degraded) ;;
*)
	echo "boot: $NAME did not come up (state '$state')" >&2
	tail -20 "$STATE/console.log" >&2
	exit 1
	;;
esac
echo "$pid1" >"$STATE/pid1"
echo "$pid1"
