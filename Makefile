# Build, test and benchmark the five tools.
#   make            build bin/mcl-compile bin/puppet-graph bin/graph-merge bin/mgmt-apply bin/mgmt-cluster
#   make test       unit and end-to-end tests
#   make bench      Go benchmarks and the bench/*.sh scripts
#   make pgo        write cmd/mgmt-apply/default.pgo again (bench/pgo), on an idle machine
#   make install    copy the tools to $(PREFIX)/bin (PREFIX=/usr/local)
#   make deb        build the Debian package mgmt_VERSION_ARCH.deb (dist/deb/build.sh)

GO      ?= go
PREFIX  ?= /usr/local
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
TOOLS   := mcl-compile puppet-graph graph-merge mgmt-apply mgmt-cluster
LDFLAGS := -X github.com/mgmtpipe/mgmt/internal/cli.Version=$(VERSION)
SHARED  ?= ../shared
TESTFLAGS ?= -timeout 20m
CGO_ENABLED ?= 0

.PHONY: all build test bench pgo install deb conformance clean fmt vet example $(TOOLS:%=bin/%)

all: build

build: $(TOOLS:%=bin/%)

# Static binaries: no C library to load at each start (about 0.6 ms of
# every run) or to match on the target host. Accounts that only another
# source of nsswitch.conf knows are found through getent (internal/account).
$(TOOLS:%=bin/%):
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -ldflags '$(LDFLAGS)' -o $@ ./cmd/$(@F)

test: build
	$(GO) vet ./...
	$(GO) test $(TESTFLAGS) ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...
	@for s in bench/*.sh; do [ -x "$$s" ] || continue; echo "== $$s"; "$$s" || exit 1; done

pgo:
	$(GO) run ./bench/pgo -o cmd/mgmt-apply/default.pgo

conformance: build
	@bash .ci/check.d/10-conformance.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(TOOLS:%=bin/%) $(DESTDIR)$(PREFIX)/bin/

deb: build
	VERSION=$(VERSION) dist/deb/build.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

clean:
	rm -rf bin

# The main job on the bundled example: compile, apply, exit once converged.
example: build
	bin/mcl-compile examples/hello/main.mcl | bin/mgmt-apply --tmp-prefix --converged-timeout 1
	@echo "--- /tmp/mgmt-hello/greeting.txt:"; cat /tmp/mgmt-hello/greeting.txt
