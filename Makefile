# wptest. `make test-short` runs the unit and golden tests (no root, services
# or namespaces: every integration test skips under -short; under a minute;
# -vet=off there because `make lint` runs all of go vet).
# `make deps` installs the system packages the tests need (as root), `make
# test` runs every test, integration tests included, as CI (.ci/run) does.
GO      ?= go
BIN     ?= bin/wptest
export GOTOOLCHAIN = local

# Debian/Ubuntu packages: servers the profiles drive, the real services the
# tests talk to, and the reference clients the load tool is compared with.
# php8.2 is named next to wordpress so apt does not pull libapache2-mod-php.
# debootstrap, its keyring (Debian 12's has Debian 13's keys too) and
# apt-cacher-ng make the tests' bare Debian 12 and 13 hosts
# (internal/testenv.BareHosts; WPTEST_BARE_SUITE=trixie for 13, as CI runs).
DEB_PKGS = apache2 apache2-utils libapache2-mpm-itk php8.2 php8.2-cgi php8.2-cli \
	php8.2-fpm php8.2-mysql php8.2-gd mariadb-server mariadb-client wordpress caddy \
	openssh-server openssh-client nginx-light wrk nghttp2-client curl iproute2 procps ca-certificates python3 \
	chromium debootstrap debian-archive-keyring apt-cacher-ng faketime gcc libc6-dev
# RHEL family (AlmaLinux 9): the same roles.
RPM_PKGS = python3 httpd mod_ssl mod_http2 php-cli php-fpm php-mysqlnd php-gd php-opcache \
	mariadb-server mariadb openssh-server openssh-clients curl iproute procps-ng

.PHONY: all build test test-short lint deps bench fuzz post-bare quickstart-fresh clean
all: build

build:
	$(GO) build -o $(BIN) ./cmd/wptest

# The packages that run longest go first, longest first: `go test` runs
# two packages at a time on two cores (-p defaults to the CPU count), in the
# order given, and these would otherwise start after most others and end
# last. The short ones fill the slots at the end. (Three at a time was
# slower: the tests are CPU-bound, and each took longer beside the others.)
TEST_FIRST = ./cmd/wptest/cli ./experiment ./fixture ./bench/benchgen ./profiles
# vet is lint's (every analyzer; CI runs lint first): go test's own vet
# would run a subset of it again, 38 s of CPU on a cold build cache.
test:
	$(GO) test -count=1 -vet=off -timeout 60m $(TEST_FIRST) ./...

test-short:
	$(GO) test -short -count=1 -vet=off -timeout 5m ./...

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The README's whole offline quick start on a fresh Debian bare host, then
# its removal block (internal/quickstart; 5 to 9 minutes, not in CI).
quickstart-fresh:
	CI=true $(GO) test -count=1 -tags quickstartfresh -run TestQuickStartOnFreshDebian -timeout 30m ./internal/quickstart

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2x ./...

# The HCL loaders' and run files' fuzz targets, FUZZTIME each (not in CI:
# `make test` runs only their seed corpora). A finding lands in the
# package's testdata/fuzz/ and then runs with every `go test`. Minimizing
# is capped: a profile takes long enough to load that the default minute
# per new input leaves no time to fuzz.
FUZZTIME ?= 3m
FUZZ = ./provision:FuzzLoad ./provision/cloud:FuzzLoadMachines ./fixture:FuzzParseProfile \
	./fixture:FuzzParseLock ./experiment:FuzzLoad ./experiment:FuzzResults ./experiment:FuzzManifest
fuzz:
	@for t in $(FUZZ); do \
		echo "fuzz $$t"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10x -parallel 1 "$${t%%:*}" || exit 1; \
	done

deps:
	@if command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $(DEB_PKGS); \
	elif command -v dnf >/dev/null 2>&1; then \
		dnf install -y epel-release && dnf install -y $(RPM_PKGS); \
	else echo "make deps: need apt-get or dnf" >&2; exit 1; fi

# The whole cPanel vs corehttpd post on bare hosts on this machine (root,
# about 45 minutes; not in CI): scripts/post-on-bare-hosts.sh.
post-bare:
	scripts/post-on-bare-hosts.sh

clean:
	rm -rf bin
