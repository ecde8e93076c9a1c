#!/usr/bin/env bash
# The shared file watcher's randomized "no missed event" test, run 200 times
# (a fresh seed each, printed on failure; FSWATCH_SEED=N replays one). The
# test keeps every CPU busy itself, since missed events are races that only
# show under load. Bounded: about 5 minutes on 2 cores, killed at 15.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
timeout 15m go test -count=200 -timeout 14m -run '^TestRandomTree$' ./internal/fswatch/
