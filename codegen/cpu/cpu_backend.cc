#include "codegen/cpu/cpu_backend.h"

#include <cblas.h>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/cpu_candidates.h"
#include "codegen/cpu/kernel_source.h"
#include "fusion/precision.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

// Mirrors XtContext in the kernel prelude.
struct XtContext {
  void (*parallel_for)(void* pool, int64_t n, int64_t max_threads,
                       void (*fn)(void*, int64_t), void* arg);
  void* pool;
  void (*sgemm)(int order, int transa, int transb, int m, int n, int k,
                float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc);
  void (*set_blas_threads)(int);
};

using KernelFn = void (*)(const void* const*, void*, const int64_t*,
                          const XtContext*);

void ParallelFor(void* pool, int64_t n, int64_t max_threads,
                 void (*fn)(void*, int64_t), void* arg) {
  static_cast<ThreadPool*>(pool)->ParallelFor(n, static_cast<int>(max_threads),
                                              [&](int64_t i) { fn(arg, i); });
}

void Sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
           const float* a, int lda, const float* b, int ldb, float beta,
           float* c, int ldc) {
  cblas_sgemm(static_cast<CBLAS_ORDER>(order),
              static_cast<CBLAS_TRANSPOSE>(transa),
              static_cast<CBLAS_TRANSPOSE>(transb), m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
}

void SetBlasThreads(int threads) { openblas_set_num_threads(threads); }

class CpuKernel : public Kernel {
 public:
  CpuKernel(std::shared_ptr<LoadedObject> object, KernelFn fn,
            std::vector<int64_t> config, CpuBackend* backend)
      : object_(std::move(object)),
        fn_(fn),
        config_(std::move(config)),
        backend_(backend) {
    context_.parallel_for = &ParallelFor;
    context_.sgemm = &Sgemm;
    context_.set_blas_threads = &SetBlasThreads;
  }

  absl::Status Run(absl::Span<const void* const> inputs,
                   void* output) override {
    // The pool is read at each run: a forked profiling worker gets a new one.
    context_.pool = backend_->pool();
    fn_(inputs.data(), output, config_.data(), &context_);
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<LoadedObject> object_;
  KernelFn fn_;
  std::vector<int64_t> config_;
  CpuBackend* backend_;
  XtContext context_;
};

const Computation& Fused(const Instruction& fusion) {
  return *fusion.called_computations()[0];
}

}  // namespace

CpuBackend::CpuBackend(CpuDevice device, std::unique_ptr<HostCompiler> compiler,
                       CpuBackendOptions options)
    : options_(std::move(options)),
      device_(std::move(device)),
      compiler_(std::move(compiler)),
      pool_(std::make_unique<ThreadPool>(device_.threads)) {}

absl::StatusOr<std::unique_ptr<CpuBackend>> CpuBackend::Create(
    CpuBackendOptions options) {
  HostCompilerOptions compiler = options.compiler;
  compiler.flags.push_back("-ffp-contract=fast");
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<HostCompiler> host,
                         HostCompiler::Create(compiler));
  return std::unique_ptr<CpuBackend>(
      new CpuBackend(DetectCpu(options.threads), std::move(host), options));
}

void CpuBackend::ResetAfterFork() {
  // The old pool's worker threads are gone in the child: it can neither be
  // used nor destroyed (joining would hang), so it is deliberately leaked.
  (void)pool_.release();
  pool_ = std::make_unique<ThreadPool>(device_.threads);
}

std::vector<KernelConfig> CpuBackend::Candidates(const Instruction& fusion,
                                                 bool exhaustive) const {
  return CpuCandidates(Fused(fusion), device_, exhaustive);
}

KernelConfig CpuBackend::DefaultConfig(const Instruction& fusion) const {
  return CpuDefaultConfig(Fused(fusion), device_);
}

absl::Status CpuBackend::CheckConfig(const Instruction& fusion,
                                     const KernelConfig& config) const {
  return CheckCpuConfig(Fused(fusion), device_, config);
}

absl::StatusOr<std::string> CpuBackend::Source(
    const Instruction& fusion, const KernelConfig& config) const {
  XTUNE_RETURN_IF_ERROR(CheckConfig(fusion, config));
  // Without excess precision the generators see a copy that rounds every
  // f16/bf16 result (the key and the config stay the original's).
  std::unique_ptr<Module> rounded;
  if (!options_.excess_precision) {
    rounded = RoundEveryLowPrecisionResult(Fused(fusion));
  }
  const Computation& fused = rounded ? *rounded->entry() : Fused(fusion);
  // The device goes into the source so that objects built for one CPU
  // (-march=native) are never reused on another through a shared cache.
  std::string header =
      absl::StrCat("// xtune kernel for ", device_.Description(),
                   "\n// config ", config.kind(), "\n");
  absl::StatusOr<std::string> body;
  const std::string& kind = config.kind();
  if (kind == "cpu_gemm" || kind == "cpu_gemm_blas") {
    body = GemmKernelSource(fused, config, device_.simd_floats);
  } else if (kind == "cpu_row_reduce") {
    body = RowReductionKernelSource(fused, config);
  } else if (kind == "cpu_col_reduce") {
    body = ColumnReductionKernelSource(fused, config);
  } else if (kind == "cpu_loop") {
    body = LoopKernelSource(fused, config);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("the CPU backend has no kernels of kind '", kind, "'"));
  }
  if (!body.ok()) return body.status();
  return header + *body;
}

absl::StatusOr<std::unique_ptr<Kernel>> CpuBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(std::string source, Source(fusion, config));
  XTUNE_ASSIGN_OR_RETURN(std::shared_ptr<LoadedObject> object,
                         compiler_->CompileAndLoad(source));
  auto fn = reinterpret_cast<KernelFn>(object->Symbol("xtune_kernel"));
  if (fn == nullptr) {
    return absl::InternalError("generated kernel lacks xtune_kernel");
  }
  std::vector<int64_t> values;
  for (const auto& p : config.params()) values.push_back(p.second);
  return std::unique_ptr<Kernel>(
      new CpuKernel(std::move(object), fn, std::move(values), this));
}

}  // namespace xtune::cpu
