#!/bin/sh
# TestManyHosts (.ci/check.d/45-many-hosts.sh) runs 100 hosts on this
# machine, two processes each with an inotify instance of its own, beside
# the rest of the suite: the default limit of 128 instances per user keeps
# watches from starting (their resources are then polled, and the hosts
# never stay converged). Raises fs.inotify.max_user_instances to 1024 when
# lower. Idempotent and quiet.
set -eu
f=/proc/sys/fs/inotify/max_user_instances
[ "$(cat "$f")" -ge 1024 ] || echo 1024 >"$f"
