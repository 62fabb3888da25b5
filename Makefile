# perp: every target installs what it needs first (Debian packages via apt-get, as root).
# `make demo` and `make test` work on a fresh Debian 12 machine.

PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
BENCH_BUILD ?= build-bench
FUZZ_BUILD ?= build-fuzz
# Seconds each fuzz target runs: `make fuzz` (FUZZ_SECONDS) and `make fuzz-smoke` (FUZZ_SMOKE_SECONDS).
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 4
# The interpreter the Python module is built for and tested with: Debian's, not whatever python3 is first on PATH.
PYTHON ?= /usr/bin/python3
FUZZ_TARGETS := siconos_lcp siconos_mlcp siconos_fc json_problem scene solve

PACKAGES := build-essential cmake libeigen3-dev googletest libgtest-dev libgmock-dev \
            libbenchmark-dev libcli11-dev nlohmann-json3-dev libsiconos-numerics-dev libbullet-dev libbox2d-dev \
            clang libclang-rt-14-dev \
            pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest python3-matplotlib \
            libcairo2-dev
# Only the tests need these (the viewer's browser test, the Dask batch example); `make demo` and `make build` do not install them.
TEST_PACKAGES := chromium python3-dask python3-distributed

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps build build-cli test unit-test python-test asan-test install-test demo install bench clean fuzz-build fuzz fuzz-smoke

define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	else echo "$(2): all packages present"; fi
endef

deps:
	$(call install_missing,$(PACKAGES),deps)

test-deps: deps
	$(call install_missing,$(TEST_PACKAGES),test-deps)

# The library, the CLI and the Python module (build/python/perp/): `make demo` and `make install`
# need no test suite. The tests are built in the same tree by `unit-test`, reusing the library's
# object files.
build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPERP_WERROR=ON -DPERP_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON)
	cmake --build $(BUILD) -j $(JOBS) --target perp_cli perp_python

# What `make demo` needs: the library and the CLI alone, in the same tree as `build` (no Python
# module, no tests). Measured in a fresh clone: 782 s of CPU (2026-12-03), so about 6.5 minutes
# on an idle 2-core machine; the compile of the library is nearly all of it.
build-cli: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPERP_WERROR=ON -DPERP_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON)
	cmake --build $(BUILD) -j $(JOBS) --target perp_cli

unit-test: build test-deps
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The pytest suite (tests/python/) against the module in $(BUILD)/python, after ctest.
python-test: build test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD)/python MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests/python

# The same unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, at -O1 with line
# tables only (-g1): half the compile time of -O2 -g (measured on newton.cpp and box_lcp_test.cpp:
# 15 s and 14 s of CPU against 34 s and 30 s), with file:line in every sanitizer report.
asan-test: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	  -DPERP_WERROR=ON -DPERP_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# Install into a scratch prefix and build examples/ against it with find_package(perp).
install-test: build
	rm -rf $(BUILD)/install-test $(BUILD)/examples-build
	cmake --install $(BUILD) --prefix $(CURDIR)/$(BUILD)/install-test
	cmake -S examples -B $(BUILD)/examples-build -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/install-test
	cmake --build $(BUILD)/examples-build -j $(JOBS)
	$(BUILD)/examples-build/basic_lcp
	$(BUILD)/examples-build/ncp_mcp
	$(BUILD)/examples-build/bouncing_ball
	$(BUILD)/examples-build/box_mlcp_qp
	$(BUILD)/examples-build/fit_friction
	PYTHONPATH=$(CURDIR)/$(BUILD)/install-test/$$(sed -n 's/^PERP_PYTHON_INSTALL_DIR:STRING=//p' $(BUILD)/CMakeCache.txt) \
	  $(PYTHON) -c "import perp, sys; assert perp.__file__.startswith(sys.argv[1]), perp.__file__; \
	  assert perp.solve([[2.0]], [-2.0]).z[0] == 1.0; print('python: perp from', perp.__file__)" $(CURDIR)/$(BUILD)/install-test

test: unit-test python-test asan-test install-test fuzz-smoke

demo: build-cli
	$(BUILD)/bin/perp demo
	$(BUILD)/bin/perp simulate examples/scenes/two_contact_block.json --out $(BUILD)/demo-scene

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: deps
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DPERP_BUILD_TESTS=OFF -DPERP_BUILD_APPS=OFF \
	  -DPERP_BUILD_BENCH=ON -DPERP_BUILD_SICONOS_COMPARISON=ON -DPERP_BUILD_BULLET_COMPARISON=ON \
	  -DPERP_BUILD_BOX2D_COMPARISON=ON
	cmake --build $(BENCH_BUILD) -j $(JOBS)
	$(BENCH_BUILD)/bench/perp_bench
	$(BENCH_BUILD)/bench/box_bench
	$(BENCH_BUILD)/bench/sensitivity_bench
	$(BENCH_BUILD)/bench/compare_siconos
	$(BENCH_BUILD)/bench/compare_siconos_fc
	$(BENCH_BUILD)/bench/compare_box2d --seconds 10 --scene stack10 --scene pyramid5 --scene pyramid20 \
	  --scene disks100 --scene slope20
	$(BENCH_BUILD)/bench/compare_bullet
	$(BENCH_BUILD)/bench/compare_auto
	$(BENCH_BUILD)/bench/batch_bench

# libFuzzer targets (fuzz/, clang + ASan/UBSan), each run from fuzz/corpus/TARGET; new inputs
# go to $(FUZZ_BUILD)/corpus/TARGET, crashes to $(FUZZ_BUILD)/artifacts/.
fuzz-build: deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DPERP_BUILD_FUZZ=ON -DPERP_BUILD_TESTS=OFF -DPERP_BUILD_APPS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

define run_fuzzers
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	  log=$(FUZZ_BUILD)/fuzz_$$t.log; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$t -max_total_time=$(1) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $(2) \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t- $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t >$$log 2>&1 \
	    || { tail -40 $$log; echo "fuzz_$$t FAILED (input in $(FUZZ_BUILD)/artifacts/, log $$log)"; exit 1; }; \
	  echo "fuzz_$$t: $(1) s, $$(sed -n 's/^stat::number_of_executed_units: *//p' $$log) inputs, no failure"; \
	done
endef

fuzz: fuzz-build
	$(call run_fuzzers,$(FUZZ_SECONDS))

# A few seconds per target, so that CI keeps every target building and running; a fixed seed, so
# that a run explores the same inputs on every machine of the same speed (`make fuzz` does not fix it).
fuzz-smoke: fuzz-build
	$(call run_fuzzers,$(FUZZ_SMOKE_SECONDS),-seed=1)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(BENCH_BUILD) $(FUZZ_BUILD)
