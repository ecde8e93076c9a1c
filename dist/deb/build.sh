#!/usr/bin/env bash
# build.sh - build the Debian package of the tools with dpkg-deb.
#
#   dist/deb/build.sh [OUTDIR]        (make deb: OUTDIR is the project root)
#
# It packs the five tools (from $BIN, default bin/, built by make), the
# systemd units (dist/systemd), the manual pages (dist/man, compressed) and
# the bash, zsh and fish completion (dist/completion), with the
# documentation, into
# OUTDIR/mgmt_VERSION_ARCH.deb and prints that path. dpkg-deb is part of
# every Debian system, so the package needs no other packaging tool; the
# files are few and fixed, so debhelper's machinery would add nothing.
# gzip, not xz: xz takes minutes on the 180 MB of the tools.
#
# VERSION is $VERSION (as make passes it) turned into a Debian version: a
# tag v1.2.3 gives 1.2.3, a commit abc1234 gives 0~git.abc1234 (sorting
# before any release), "-dirty" becomes "+dirty".
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-.}
BIN=${BIN:-bin}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
TOOLS="mcl-compile puppet-graph graph-merge mgmt-apply mgmt-cluster"

debversion() {
	local v=${1#v}
	v=${v//-dirty/+dirty}
	case $v in
	[0-9]*.*) printf '%s' "${v//-/+}" ;;
	*) printf '0~git.%s' "${v//-/+}" ;;
	esac
}
DEBVERSION=$(debversion "$VERSION")
ARCH=$(dpkg --print-architecture)

for t in $TOOLS; do
	[ -x "$BIN/$t" ] || { echo "build.sh: $BIN/$t missing: run make first" >&2; exit 1; }
done

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
install -d "$STAGE/DEBIAN" "$STAGE/usr/bin" "$STAGE/lib/systemd/system" \
	"$STAGE/usr/share/man/man1" "$STAGE/usr/share/bash-completion/completions" \
	"$STAGE/usr/share/zsh/vendor-completions" "$STAGE/usr/share/fish/vendor_completions.d" \
	"$STAGE/usr/share/doc/mgmt/docs/reference"
for t in $TOOLS; do
	install -m 0755 "$BIN/$t" "$STAGE/usr/bin/$t"
	install -m 0644 "dist/completion/bash/$t" "$STAGE/usr/share/bash-completion/completions/$t"
	install -m 0644 "dist/completion/zsh/_$t" "$STAGE/usr/share/zsh/vendor-completions/_$t"
	install -m 0644 "dist/completion/fish/$t.fish" "$STAGE/usr/share/fish/vendor_completions.d/$t.fish"
	gzip -9n <"dist/man/$t.1" >"$STAGE/usr/share/man/man1/$t.1.gz"
done
install -m 0644 dist/systemd/*.service "$STAGE/lib/systemd/system/"
install -m 0644 README.md "$STAGE/usr/share/doc/mgmt/"
install -d "$STAGE/usr/share/doc/mgmt/docs"
install -m 0644 docs/*.md "$STAGE/usr/share/doc/mgmt/docs/"
install -m 0644 docs/reference/*.md "$STAGE/usr/share/doc/mgmt/docs/reference/"
install -m 0644 dist/grafana/mgmt.json "$STAGE/usr/share/doc/mgmt/grafana-dashboard.json"
chmod 0644 "$STAGE"/usr/share/man/man1/*.gz

cat >"$STAGE/DEBIAN/control" <<CONTROL
Package: mgmt
Version: $DEBVERSION
Architecture: $ARCH
Maintainer: mgmt maintainers <maintainers@mgmt.invalid>
Depends: bash
Section: admin
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
Homepage: https://github.com/mgmtpipe/mgmt
Description: configuration management as a pipeline of small tools
 mcl-compile, puppet-graph, graph-merge, mgmt-apply and mgmt-cluster: a
 reactive configuration management system whose resources watch their own
 state and are repaired the moment they drift. The package installs the
 tools, their manual pages, bash, zsh and fish completion, and the systemd units
 mgmt-apply.service and mgmt-cluster.service (neither enabled).
CONTROL

# The units are neither enabled nor started: mgmt-apply.service needs a
# program in /etc/mgmt first. systemd only learns of them.
for s in postinst postrm; do
	cat >"$STAGE/DEBIAN/$s" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null 2>&1 || true
fi
SCRIPT
	chmod 0755 "$STAGE/DEBIAN/$s"
done

deb="$OUT/mgmt_${DEBVERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zgzip -z6 --build "$STAGE" "$deb" >/dev/null
echo "$deb"
