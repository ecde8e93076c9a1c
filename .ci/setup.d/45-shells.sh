#!/bin/sh
# zsh and fish: the completion tests load the generated completion of the
# tools (dist/completion) into the real shells. Idempotent and quiet.
set -eu
missing=""
command -v zsh >/dev/null 2>&1 || missing="$missing zsh"
command -v fish >/dev/null 2>&1 || missing="$missing fish"
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
