# xtune — top-level commands. Each installs the Debian packages it needs
# (scripts/install_deps.sh, via apt-get as root or through sudo), configures
# and builds into build/ (the CLI is build/xtune), then runs.
#
#   make demo    build, then run the example models
#   make test    build, then run every test (and the parser tests under
#                AddressSanitizer + UBSan in build-asan/)
#   make build   install dependencies and build
#   make golden  rewrite the fusion golden files (review the diff)
#   make clean   remove the build trees

JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build test test-asan demo golden clean

all: build

deps:
	@scripts/install_deps.sh

build: deps
	cmake --preset dev
	cmake --build --preset dev -j $(JOBS)

test: build
	ctest --preset dev -j $(JOBS)
	$(MAKE) --no-print-directory test-asan

# The IR (parser, printer, verifier) and its robustness tests under the
# sanitizers: a reduced build so it stays quick on two cores.
test-asan: deps
	cmake --preset asan -DXTUNE_TESTS_ONLY_IR=ON
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

demo: build
	scripts/demo.sh

golden: build
	scripts/regenerate_golden.sh

clean:
	rm -rf build build-asan build-release
