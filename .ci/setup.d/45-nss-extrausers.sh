#!/bin/sh
# The account lookups of the static tools (internal/account) are tested
# against a source of nsswitch.conf other than /etc/passwd and /etc/group:
# libnss-extrausers, which reads /var/lib/extrausers/{passwd,group}. Installs
# it and names it after "files" on the passwd and group lines. Idempotent
# and quiet.
set -eu
if ! dpkg-query -W -f='${Status}' libnss-extrausers 2>/dev/null | grep -q "install ok installed"; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends libnss-extrausers >/dev/null
fi
mkdir -p /var/lib/extrausers
touch /var/lib/extrausers/passwd /var/lib/extrausers/group
for db in passwd group; do
	grep -Eq "^$db:.*[[:space:]]extrausers([[:space:]]|\$)" /etc/nsswitch.conf ||
		sed -i -E "s/^($db:[[:space:]]*files)/\1 extrausers/" /etc/nsswitch.conf
done
