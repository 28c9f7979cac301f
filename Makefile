# xtune — top-level commands. Each installs the Debian packages it needs
# (scripts/install_deps.sh, via apt-get as root or through sudo), configures
# and builds into build/ (the CLI is build/xtune), then runs.
#
#   make demo    build, then run the example models
#   make test    build, then run every test, then the unit tests of util,
#                ir, codegen, cache, autotune, compiler, runtime and report
#                and the CLI's end-to-end, chaos and disk-fault tests under
#                AddressSanitizer + UBSan (build-asan/), the thread pool,
#                session, lock, store and worker tests and the CLI's
#                end-to-end and fleet tests under ThreadSanitizer
#                (build-tsan/), and every libFuzzer target of fuzz/ for
#                FUZZ_SECONDS each (build-fuzz/)
#   make build   install dependencies and build
#   make golden  rewrite the fusion golden files (review the diff)
#   make clean   remove the build trees

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Tests that need NVRTC skip on a machine without the CUDA toolkit; where
# /usr/local/cuda holds NVRTC (and $XTUNE_NVRTC names no other library),
# they must run: a broken toolkit fails them instead of skipping them.
XTUNE_REQUIRE_NVRTC ?= $(if $(XTUNE_NVRTC),0,$(if $(wildcard /usr/local/cuda/lib64/libnvrtc.so*),1,0))
export XTUNE_REQUIRE_NVRTC
empty :=
space := $(empty) $(empty)

.PHONY: gpu-bundle all deps build test test-asan test-tsan test-fuzz demo golden clean

all: build

deps:
	@scripts/install_deps.sh

build: deps
	cmake --preset dev
	cmake --build --preset dev -j $(JOBS)

test: build
	ctest --preset dev -j $(JOBS)
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-tsan
	$(MAKE) --no-print-directory test-fuzz

# The unit tests under AddressSanitizer + UBSan: only their targets are
# built (not the benchmarks), so it stays quick on two cores. The CPU and
# GPU workers are built too: the profiler tests spawn them. The kernels the
# asan build compiles (CPU backend and emulator) carry the same sanitizers
# (XTUNE_SANITIZE_KERNELS).
ASAN_TESTS = util_test ir_test codegen_test codegen_cpu_test cpu_profiler_test \
  cache_test redis_store_test autotune_test compiler_test scripted_backend_test \
  executable_test runtime_test report_test cuda_emulator_test cuda_codegen_test \
  cuda_gpu_test
# The CLI end to end under the same sanitizers: the xtune binary and its
# CPU worker are the asan build's (fewer chaos kills: a kill costs more).
ASAN_CLI_TESTS = cli_test cache_cli_test json_cli_test report_cli_test chaos_test \
  disk_faults_test
test-asan: deps
	cmake --preset asan -DXTUNE_TESTS_ONLY_IR=OFF
	cmake --build --preset asan -j $(JOBS) --target $(ASAN_TESTS) $(ASAN_CLI_TESTS) xtune \
	  xtune_cpu_worker xtune_gpu_worker
	XTUNE_CHAOS_KILLS=30 ctest --preset asan -j $(JOBS) \
	  -R '^($(subst $(space),|,$(strip $(ASAN_TESTS) $(ASAN_CLI_TESTS))))$$'

# The concurrent parts under ThreadSanitizer: the thread pool, subprocesses
# and file locks (util), sessions, the store chain and concurrent dumps
# (cache), the Redis tier with its timeouts and lease renewal
# (redis_store_test), the kernel cache and its bundles (codegen_cpu_test),
# the profiling worker, the autotuner's compile pool and sharded tuning
# (autotune_test) and the public API (scripted_backend_test).
TSAN_TESTS = util_test cache_test redis_store_test codegen_cpu_test cpu_profiler_test \
  autotune_test scripted_backend_test
# The CLI end to end with the tsan build's xtune and workers: processes
# sharing a cache file, a per-fusion directory and a Redis server (leases,
# sharded tuning, a killed holder, a paused server), each process's compile
# pool, sessions and tiers, and the CUDA emulator's fibers (fiber_stacks.h).
# A race makes xtune exit 66, which fails the test that ran it.
TSAN_CLI_TESTS = cli_test cache_cli_test json_cli_test fleet_test
test-tsan: deps
	cmake --preset tsan
	cmake --build --preset tsan -j $(JOBS) --target $(TSAN_TESTS) $(TSAN_CLI_TESTS) xtune \
	  xtune_cpu_worker xtune_gpu_worker
	ctest --preset tsan -j $(JOBS) \
	  -R '^($(subst $(space),|,$(strip $(TSAN_TESTS) $(TSAN_CLI_TESTS))))$$'

# Every libFuzzer target of fuzz/ (clang + ASan/UBSan), each for a fixed
# time from its corpus and real inputs (scripts/run_fuzzer.sh).
FUZZ_SECONDS ?= 15
test-fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) scripts/run_fuzzer.sh

demo: build
	scripts/demo.sh

golden: build
	scripts/regenerate_golden.sh

clean:
	rm -rf build build-asan build-tsan build-release build-fuzz

# What a GPU machine without our Debian packages runs (scripts/gpu_check.sh).
gpu-bundle: build
	scripts/make_gpu_bundle.sh build build/gpu-bundle
