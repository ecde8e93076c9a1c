#!/bin/sh
# arecord (alsa-utils): example.vumeter records through it; its test feeds
# ALSA's file plugin, so no sound card is needed. Idempotent and quiet.
set -eu
command -v arecord >/dev/null 2>&1 && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends alsa-utils >/dev/null
