#!/bin/sh
# PostgreSQL: the tests of the postgresql:psql kind start a throwaway
# cluster (initdb and pg_ctl, as the user postgres) on a unix socket in a
# temporary directory. Only the packages: no system cluster is needed.
# Idempotent and quiet.
set -eu
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends postgresql >/dev/null
