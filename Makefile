# perp: every target installs what it needs first (Debian packages via apt-get, as root).
# `make demo` and `make test` work on a fresh Debian 12 machine.

PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
BUILD ?= build
# One clang tree for everything under ASan + UBSan: the unit tests, the CLI and the fuzz targets.
SANITIZE_BUILD ?= build-sanitize
BENCH_BUILD ?= build-bench
# Seconds each fuzz target runs: `make fuzz` (FUZZ_SECONDS) and `make fuzz-smoke` (FUZZ_SMOKE_SECONDS).
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 4
# The interpreter the Python module is built for and tested with: Debian's, not whatever python3 is first on PATH.
PYTHON ?= /usr/bin/python3
# The trees of `make build` and `make asan-test` compile several sources as one translation unit
# (CMake's unity build, 8 files a unit): the headers (Eigen, GoogleTest) are parsed once per unit
# instead of once per file. Measured on six test files: 49 s of CPU one by one, 18 s as one unit.
# UNITY= (empty) builds file by file.
UNITY ?= -DCMAKE_UNITY_BUILD=ON
FUZZ_TARGETS := siconos_lcp siconos_mlcp siconos_fc json_problem scene solve friction csc
# Every target, friction included (issue 38: a frictional solve over a second of CPU fails it, a second
# in an optimized build, ten in this sanitizer tree, which runs the solves 8-50x slower: see
# fuzz/friction_fuzz.cpp). The inputs that runs with -timeout=1 found over the second here (unsolvable 3D
# problems, auto's chain or nsgs' 10 000 sweeps, 1-8 s before nsgs' and prox's stops on progress)
# are replayed from fuzz/regressions/friction/ in every tree: 0.01-0.10 s each in Release.
FUZZ_SMOKE_TARGETS := $(FUZZ_TARGETS)

PACKAGES := build-essential cmake libeigen3-dev googletest libgtest-dev libgmock-dev \
            libbenchmark-dev libcli11-dev nlohmann-json3-dev libsiconos-numerics-dev libbullet-dev libbox2d-dev \
            libfclib-dev libhdf5-dev libfcl-dev libccd-dev libsuitesparse-dev \
            clang libclang-rt-14-dev \
            pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest python3-matplotlib \
            libcairo2-dev libjs-three
# Only the tests need these (the viewer's browser test, the Dask batch example); `make demo` and `make build` do not install them.
TEST_PACKAGES := chromium python3-dask python3-distributed
# Only `make bench` needs this: ODE for bench/compare_3d's ODE rows (compare_3d builds without it, with Bullet alone).
BENCH_PACKAGES := libode-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps sanitize-configure build build-cli test unit-test python-test asan-test install-test demo install bench clean fuzz-build fuzz fuzz-smoke

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
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPERP_WERROR=ON -DPERP_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) $(UNITY)
	cmake --build $(BUILD) -j $(JOBS) --target perp_cli perp_python

# What `make demo` needs: the library and the CLI alone, in the same tree as `build` (no Python
# module, no tests). A fresh clone's `make demo` took 184 s on the 2-core machine (2026-12-03).
build-cli: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPERP_WERROR=ON -DPERP_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(PYTHON) $(UNITY)
	cmake --build $(BUILD) -j $(JOBS) --target perp_cli

unit-test: build test-deps
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The pytest suite (tests/python/) against the module in $(BUILD)/python, after ctest.
python-test: build test-deps
	PYTHONPATH=$(CURDIR)/$(BUILD)/python MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests/python

# The sanitizer tree: clang, AddressSanitizer + UndefinedBehaviorSanitizer on everything, libFuzzer's
# coverage on the library, at -O1 with line tables only (-g1, file:line in every report). One tree
# serves the unit tests, the CLI and the fuzz targets. clang over GCC here: GCC 12's UBSan
# instrumentation is the costly part (newton.cpp: 61 s of CPU with GCC, 31 s with clang;
# box_lcp_test.cpp 39 s and 14 s).
sanitize-configure: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DPERP_WERROR=ON -DPERP_SANITIZE=ON -DPERP_BUILD_FUZZ=ON $(UNITY)

# The same unit tests (and the CLI's) under ASan + UBSan.
asan-test: sanitize-configure
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS)

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
	$(call install_missing,$(BENCH_PACKAGES),bench-deps)
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
	$(BENCH_BUILD)/bench/compare_3d --max-seconds-perp 120
	$(BENCH_BUILD)/bench/compare_auto
	$(BENCH_BUILD)/bench/batch_bench

# libFuzzer targets (fuzz/, in the sanitizer tree), each run from fuzz/corpus/TARGET; new inputs
# go to $(SANITIZE_BUILD)/corpus/TARGET, crashes to $(SANITIZE_BUILD)/artifacts/.
fuzz-build: sanitize-configure
	cmake --build $(SANITIZE_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))

define run_fuzzers
	@mkdir -p $(SANITIZE_BUILD)/artifacts
	@for t in $(3); do \
	  mkdir -p $(SANITIZE_BUILD)/corpus/$$t; \
	  log=$(SANITIZE_BUILD)/fuzz_$$t.log; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  $(SANITIZE_BUILD)/fuzz/fuzz_$$t -max_total_time=$(1) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $(2) \
	    -artifact_prefix=$(SANITIZE_BUILD)/artifacts/$$t- $(SANITIZE_BUILD)/corpus/$$t fuzz/corpus/$$t >$$log 2>&1 \
	    || { tail -40 $$log; echo "fuzz_$$t FAILED (input in $(SANITIZE_BUILD)/artifacts/, log $$log)"; exit 1; }; \
	  echo "fuzz_$$t: $(1) s, $$(sed -n 's/^stat::number_of_executed_units: *//p' $$log) inputs, no failure"; \
	done
endef

fuzz: fuzz-build
	$(call run_fuzzers,$(FUZZ_SECONDS),,$(FUZZ_TARGETS))

# A few seconds per target, so that CI keeps every target building and running; a fixed seed, so
# that a run explores the same inputs on every machine of the same speed (`make fuzz` does not fix it).
fuzz-smoke: fuzz-build
	$(call run_fuzzers,$(FUZZ_SMOKE_SECONDS),-seed=1,$(FUZZ_SMOKE_TARGETS))

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(BENCH_BUILD)
