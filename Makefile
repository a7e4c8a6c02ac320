# Sluice: the two commands.
#   make run   installs what is missing, builds, runs sluice-conformance against fresh local servers
#              and writes its report.
#   make test  installs what is missing and runs the whole test suite with the servers up.
#   make check builds and runs every test that needs no server, starting nothing (the quick loop).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

# The Swift toolchain: from PATH, else the standard install location.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
TESTENV := Tools/testenv
REPORT_DIR ?= reports/conformance
SWIFT_TEST_FLAGS ?=

.PHONY: all install build check test test-under-load run servers stop benchmarks fuzz sanitize soak interop clean docs docs-check

all: build

## install: Debian packages and the Python environment the tests and tools need (idempotent).
install:
	@$(TESTENV)/install.sh

## build: everything, tests included; fails on a warning from Sluice's own sources.
build: install
	@mkdir -p .build
	@$(SWIFT) build --build-tests 2>&1 | tee .build/sluice-build.log
	@$(TESTENV)/check-warnings.sh .build/sluice-build.log
	@SWIFT=$(SWIFT) $(TESTENV)/check-compile-time.sh

## check: every test that needs no server and is not slow (SLUICE_TEST_TIER=check), in parallel, with no
## server started; prints how long it took. Tests tagged .server or .slow are left to make test.
check: install
	@mkdir -p .build; start=$$(date +%s); \
	$(SWIFT) build --build-tests 2>&1 | tee .build/sluice-check-build.log | grep -E "error|warning: .*Sluice|Compiling|Build complete" | tail -n 3; \
	status=0; \
	SLUICE_TEST_TIER=check $(SWIFT) test --skip-build --disable-xctest $(SWIFT_TEST_FLAGS) > .build/check.log 2>&1 || status=$$?; \
	grep -E "✘|Test run with" .build/check.log | tail -n 30; \
	passed=$$(grep -cE "^✔ Test .* passed after" .build/check.log || true); \
	total=$$(grep -oE "Test run with [0-9]+ tests" .build/check.log | grep -oE "[0-9]+" || echo 0); \
	echo "make check: $$passed of $$total tests passed; the other $$((total - passed)) need the servers or are slow (make test); $$(( $$(date +%s) - start ))s, build included"; \
	exit $$status

## test: the whole suite against freshly started servers, which are stopped afterwards. Every test uses
## Swift Testing, so XCTest's runner (which would only print "Executed 0 tests") is not started. Every tier
## runs, and a skipped test fails the run (Tools/testenv/suite.sh). Last, the docs check (make docs-check,
## in its own build folder .build-docs).
test: build
	@# The test environment's own tests (Python, mostly waiting on sockets and processes) run beside the two
	@# packages' builds; the suite starts only when all have passed.
	@{ python3 -m unittest -q Tools/testenv/test_faultproxy.py > .build/faultproxy-test.log 2>&1 \
		&& SLUICE_TESTENV_SKIP_INSTALL=1 $(TESTENV)/test_isolation.sh > .build/testenv-isolation.log 2>&1; } & \
	environment=$$!; \
	SWIFT=$(SWIFT) $(TESTENV)/check-walkthrough.sh > .build/walkthrough.log 2>&1 \
		|| { cat .build/walkthrough.log; kill $$environment 2>/dev/null; exit 1; }; \
	tail -n 1 .build/walkthrough.log; \
	SWIFT=$(SWIFT) $(TESTENV)/check-stubbed-user.sh > .build/stubbed-user.log 2>&1 \
		|| { cat .build/stubbed-user.log; kill $$environment 2>/dev/null; exit 1; }; \
	tail -n 1 .build/stubbed-user.log; \
	wait $$environment || { cat .build/faultproxy-test.log; cat .build/testenv-isolation.log 2>/dev/null; exit 1; }; \
	tail -n 3 .build/faultproxy-test.log; \
	tail -n 1 .build/testenv-isolation.log
	@SLUICE_TESTENV_SKIP_INSTALL=1 SLUICE_TESTENV_LARGE_FILES=1 $(TESTENV)/run.sh $(TESTENV)/suite.sh $(SWIFT) $(SWIFT_TEST_FLAGS)
	@python3 -m unittest -q Tools/Docs/test_docs_check.py > .build/docs-check-test.log 2>&1 \
		|| { cat .build/docs-check-test.log; exit 1; }
	@tail -n 3 .build/docs-check-test.log
	@SWIFT=$(SWIFT) Tools/Docs/docs.sh check > .build/docs-check.log 2>&1 || { cat .build/docs-check.log; exit 1; }
	@tail -n 1 .build/docs-check.log

## test-under-load: the whole suite (every tier, the memory probes) three times in a row while stress-ng keeps
## every core busy, as CI's machine is; fails on the first failed round (TEST_ROUNDS, default 3).
TEST_ROUNDS ?= 3
test-under-load: build
	@$(TESTENV)/under-load.sh $(SWIFT) $(TEST_ROUNDS)

## run: sluice-conformance against freshly started servers; prints where the report is.
run: install
	@$(SWIFT) build --product sluice-conformance 2>&1 | tail -n 3
	@$(SWIFT) build --product SluiceNDJSONPlugin 2>&1 | tail -n 1
	@SLUICE_TESTENV_SKIP_INSTALL=1 $(TESTENV)/run.sh "$$($(SWIFT) build --show-bin-path)/sluice-conformance" \
		--output "$(REPORT_DIR)" --plugin "$$($(SWIFT) build --show-bin-path)/libSluiceNDJSONPlugin.so" \
		--plugin-samples Tests/Vectors/plugins/ndjson-samples.json

## servers: start the servers and leave them running (stop them with make stop).
servers: install
	@SLUICE_TESTENV_LARGE_FILES=1 $(TESTENV)/start.sh

## stop: stop servers started by make servers.
stop:
	@$(TESTENV)/stop.sh

## benchmarks: Sluice against its peers in one run, as ratios (Tools/Benchmarks).
benchmarks: install
	@Tools/Benchmarks/run.sh

## fuzz: every libFuzzer target (Tools/Fuzz) under AddressSanitizer, FUZZ_SECONDS each (default 60).
FUZZ_SECONDS ?= 60
fuzz: install
	@Tools/Fuzz/run.sh $(FUZZ_SECONDS)

## soak: a mixed workload through the fault proxy for SOAK_SECONDS (default 600), several sessions made and
## released; fails on a task not ended exactly once, descriptors or threads left behind, or memory growth.
SOAK_SECONDS ?= 600
soak: install
	@$(SWIFT) build --product sluice-soak 2>&1 | tail -n 1
	@SLUICE_TESTENV_SKIP_INSTALL=1 $(TESTENV)/run.sh "$$($(SWIFT) build --show-bin-path)/sluice-soak" $(SOAK_SECONDS) reports/soak

## sanitize: the whole suite against the servers under ThreadSanitizer, then AddressSanitizer (each in
## its own build folder; slow: not part of make test).
sanitize: install
	@SWIFT=$(SWIFT) $(TESTENV)/sanitize.sh thread
	@SWIFT=$(SWIFT) $(TESTENV)/sanitize.sh address

## interop: Sluice against nginx, Apache with mod_http2 and nghttpd over HTTP/1.1, HTTP/2 and clear-text
## HTTP/2 (installs Apache and nghttpd when missing); the matrix goes to reports/interop/matrix.md.
interop: install
	@$(SWIFT) build --product sluice-interop 2>&1 | tail -n 1
	@SWIFT=$(SWIFT) SLUICE_TESTENV_SKIP_INSTALL=1 SLUICE_TESTENV_LARGE_FILES=0 $(TESTENV)/run.sh $(TESTENV)/interop.sh

## docs: the DocC reference of every library product, the guides of docs/ as its articles, in
## reports/docs/Sluice.doccarchive (its own build folder, .build-docs; docs/reference.md).
docs: install
	@SWIFT=$(SWIFT) Tools/Docs/docs.sh build

## docs-check: fails on a public symbol of a library product with no documentation comment, or on a DocC
## warning (a link to a symbol or article that does not exist); the checker's own tests run first.
docs-check: install
	@python3 -m unittest -q Tools/Docs/test_docs_check.py
	@SWIFT=$(SWIFT) Tools/Docs/docs.sh check

clean:
	@$(TESTENV)/stop.sh || true
	rm -rf .build reports
