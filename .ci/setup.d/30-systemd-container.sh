#!/usr/bin/env bash
# Build (or reuse from /var/cache/mgmt-e2e) the root file system of the
# throwaway systemd container the system-resource tests run in, and install
# the host packages booting it needs (systemd-container, debootstrap).
# Booting and powering off happen in .ci/check.d/30-system-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/systemd-container/build.sh
