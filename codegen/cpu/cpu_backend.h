// The CPU backend: generates one C++ kernel per (fusion, config), compiles
// it with the host compiler into a shared object (cached on disk by content;
// many kernels at once compile as one translation unit, a bundle) and runs
// it on a thread pool; the autotuner times candidates in the worker
// program xtune_cpu_worker (cpu_profiler.h). Available where a C++ compiler
// is. Buffers are host memory. Thread-safe as Backend says.
#ifndef XTUNE_CODEGEN_CPU_CPU_BACKEND_H_
#define XTUNE_CODEGEN_CPU_CPU_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/backend.h"
#include "codegen/backend_factory.h"
#include "codegen/backend_factory.h"
#include "codegen/cpu/cpu_device.h"
#include "codegen/cpu/host_compiler.h"
#include "util/thread_pool.h"

namespace xtune::cpu {

struct CpuBackendOptions {
  // Compiler, flags and kernel cache (see host_compiler.h). The flags
  // default to the HostCompiler's plus -ffp-contract=fast (FMA).
  HostCompilerOptions compiler;
  // Threads for kernels; 0 = every hardware thread. Default 0.
  int threads = 0;
  // --xla_allow_excess_precision: f16/bf16 intermediates stay in f32 until
  // a convert or a store (and f16/bf16 reductions accumulate in f32). When
  // false every f16/bf16 result is rounded to its type (fusion/precision.h),
  // reductions combine in their type in element order. Default true, as in
  // XLA.
  bool excess_precision = true;
  // Precompile the kernels' system headers once (HostCompilerOptions::
  // precompiled_header = kKernelSystemHeaders, unless `compiler` names
  // one). Default true; false is the compile of earlier versions (kept for
  // bench/tuning_cost).
  bool precompiled_prelude = true;
  // CompileKernels builds the distinct sources it is given (a fusion's
  // candidates, a module's kernels) as one translation unit
  // (HostCompiler::LoadKernels). Default true;
  // false compiles each source alone, as earlier versions did (kept for
  // bench/tuning_cost).
  bool bundle_kernels = true;
  // GCC kernels take min/max from the builtins immintrin.h expands to
  // instead of including it (its parse was 0.18 s of every compile); the
  // machine code is the same. Default true; false includes it, as earlier
  // versions did (kept for bench/tuning_cost).
  bool builtin_min_max = true;
  // GCC kernels start with a pragma that stops GCC cloning functions for
  // constant arguments (kNoConstantClones): a bf16 gemm candidate compiled
  // in 0.44 s instead of 0.57 s, with the same run time. Default true;
  // false lets GCC clone, as earlier versions did (kept for
  // bench/tuning_cost).
  bool no_constant_clones = true;
  // Every kernel function starts on a boundary of this many bytes
  // (-falign-functions). A bundle places a source's functions at whatever
  // offset the sources before it leave, and the same machine code ran 6%
  // slower at offset 32 mod 64 than at 0 (a 48x96x224 gemm, 4 copies in one
  // object, timed interleaved): tuning then ranked candidates by where
  // they landed, and the module ran each at yet another offset. Aligned,
  // a source's code sits at the same offset in its candidate bundle, alone
  // and in the module's bundle. Default 64 (a cache line, the fetch and
  // micro-op cache window); 0 leaves the compiler's default, as earlier
  // versions did (kept for bench/tuning_cost).
  int align_functions = 64;
};

class CpuBackend : public Backend {
 public:
  // Errors: Unavailable when no C++ compiler is found (naming what was
  // looked for).
  static absl::StatusOr<std::unique_ptr<CpuBackend>> Create(
      CpuBackendOptions options = {});

  // A kernel from an object compiled by compiler() (for tests and tools
  // that bring their own source): `values` are passed as config values.
  absl::StatusOr<std::unique_ptr<Kernel>> KernelFromObject(
      std::shared_ptr<LoadedObject> object, std::vector<int64_t> values);

  std::string name() const override { return "cpu"; }
  std::string DeviceDescription() const override {
    return device_.Description();
  }
  std::vector<KernelConfig> Candidates(const Instruction& fusion,
                                       bool exhaustive) const override;
  KernelConfig DefaultConfig(const Instruction& fusion) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) override;
  // The kernels not in the cache as one bundle (options.
  // bundle_kernels); a request whose source cannot be generated gets
  // that error, one whose source does not compile its own compiler error.
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> CompileKernels(
      absl::Span<const KernelRequest> requests) override;
  bool CompilesTogether() const override {
    return options_.bundle_kernels;
  }
  // The SHA-256 of the generated source (the config's text when it cannot
  // be generated, Compile reports why, or without
  // compiler.one_compile_per_source).
  std::string CodeKey(const Instruction& fusion,
                      const KernelConfig& config) const override;

  // The generated source for (fusion, config), for inspection and tests.
  absl::Status CheckConfig(const Instruction& fusion,
                           const KernelConfig& config) const override;
  absl::StatusOr<std::string> Source(const Instruction& fusion,
                                     const KernelConfig& config) const;

  bool IsLibraryCall(const KernelConfig& config) const override;
  // Every CPU kernel kind has a `threads` parameter.
  int64_t HostThreads(const KernelConfig& config) const override {
    return config.Get("threads", 1);
  }
  bool ExcessPrecision() const override { return options_.excess_precision; }
  // Its kernels run on the host and return when done.
  bool TimesInModule() const override { return true; }
  absl::Status ConfigToResult(const KernelConfig& config,
                              xla::AutotuneResult* result) const override;
  absl::StatusOr<KernelConfig> ConfigFromResult(
      const xla::AutotuneResult& result) const override;
  // See CpuGemmOverride (cpu_config_codec.h).
  absl::StatusOr<KernelConfig> GemmOverride(
      const Instruction& fusion, absl::string_view textproto) const override;
  // A CpuProfiler over xtune_cpu_worker (found when first needed; its
  // Profile() is Unavailable when the program is nowhere).
  absl::StatusOr<std::unique_ptr<Profiler>> CreateProfiler() override;
  // About 1.5x the last-level cache, at most 256 MiB.
  int64_t FlushBytes() const override;

  const CpuDevice& device() const { return device_; }
  ThreadPool* pool() { return pool_.get(); }
  HostCompiler* compiler() { return compiler_.get(); }

 private:
  CpuBackend(CpuDevice device, std::unique_ptr<HostCompiler> compiler,
             CpuBackendOptions options);

  CpuBackendOptions options_;
  CpuDevice device_;
  std::unique_ptr<HostCompiler> compiler_;
  std::unique_ptr<ThreadPool> pool_;
};

// "cpu", for the registry (codegen/registry.h).
BackendRegistration CpuBackendRegistration();

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_BACKEND_H_
