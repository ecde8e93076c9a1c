#!/usr/bin/env bash
# Build everything, and test the core resource kinds, with the build tag
# augeas: the augeas kind (cgo, libaugeas) exists only in such a build.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/go/bin:$PATH
go build -tags augeas ./...
go vet -tags augeas ./pkg/resources/
go test -count=1 -tags augeas -run 'Augeas' ./pkg/resources/
