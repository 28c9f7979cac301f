# xtune — top-level commands. Each installs the Debian packages it needs
# (scripts/install_deps.sh, via apt-get as root or through sudo), configures
# and builds into build/ (the CLI is build/xtune), then runs.
#
#   make demo    build, then run the example models
#   make test    build, then run every test (and the parser tests under
#                AddressSanitizer + UBSan in build-asan/, and the cache
#                loader's libFuzzer target for FUZZ_SECONDS in build-fuzz/)
#   make build   install dependencies and build
#   make golden  rewrite the fusion golden files (review the diff)
#   make clean   remove the build trees

JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test test-asan test-fuzz demo golden clean

all: build

deps:
	@scripts/install_deps.sh

build: deps
	cmake --preset dev
	cmake --build --preset dev -j $(JOBS)

test: build
	ctest --preset dev -j $(JOBS)
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-fuzz

# The IR (parser, printer, verifier) and its robustness tests under the
# sanitizers: a reduced build so it stays quick on two cores.
test-asan: deps
	cmake --preset asan -DXTUNE_TESTS_ONLY_IR=ON
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

# The autotune results loader under libFuzzer (clang + ASan/UBSan), for a
# fixed time from real cache files.
FUZZ_SECONDS ?= 60
test-fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) scripts/run_fuzzer.sh

demo: build
	scripts/demo.sh

golden: build
	scripts/regenerate_golden.sh

clean:
	rm -rf build build-asan build-release build-fuzz
