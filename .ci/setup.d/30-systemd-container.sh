#!/usr/bin/env bash
# Build (or reuse from /var/cache/mgmt-e2e) the root file system of the
# throwaway systemd container the system-resource tests and the Puppet
# module corpus run in (with Puppet in it: MGMT_E2E_PUPPET=1), and install
# the host packages booting it needs (systemd-container, debootstrap).
# Booting and powering off happen in the checks that use it
# (.ci/check.d/30-system-tests.sh, 50-puppet-corpus.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
MGMT_E2E_PUPPET=1 scripts/systemd-container/build.sh
