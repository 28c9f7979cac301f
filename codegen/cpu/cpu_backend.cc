#include "codegen/cpu/cpu_backend.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/cpu_candidates.h"
#include "codegen/cpu/cpu_config_codec.h"
#include "codegen/cpu/cpu_kernel.h"
#include "codegen/cpu/cpu_profiler.h"
#include "codegen/cpu/kernel_source.h"
#include "codegen/cpu/prelude.h"
#include "fusion/fusion_pass.h"
#include "fusion/precision.h"
#include "util/sha256.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

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
  if (options.align_functions < 0 ||
      (options.align_functions & (options.align_functions - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("CpuBackendOptions::align_functions must be 0 or a power of two, not ",
                     options.align_functions));
  }
  HostCompilerOptions compiler = options.compiler;
  compiler.flags.push_back("-ffp-contract=fast");
  if (options.align_functions > 0) {
    compiler.flags.push_back(absl::StrCat("-falign-functions=", options.align_functions));
  }
  if (compiler.precompiled_header.empty() && options.precompiled_prelude) {
    compiler.precompiled_header = kKernelSystemHeaders;
  }
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<HostCompiler> host,
                         HostCompiler::Create(compiler));
  return std::unique_ptr<CpuBackend>(
      new CpuBackend(DetectCpu(options.threads), std::move(host), options));
}

absl::StatusOr<std::unique_ptr<Kernel>> CpuBackend::KernelFromObject(
    std::shared_ptr<LoadedObject> object, std::vector<int64_t> values) {
  XTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<CpuKernel> kernel,
      CpuKernel::Create(std::move(object), kKernelSymbol, std::move(values),
                        pool_.get()));
  return std::unique_ptr<Kernel>(std::move(kernel));
}

bool CpuBackend::IsLibraryCall(const KernelConfig& config) const {
  return IsCpuLibraryCall(config);
}

absl::Status CpuBackend::ConfigToResult(const KernelConfig& config,
                                        xla::AutotuneResult* result) const {
  return CpuConfigToResult(config, result);
}

absl::StatusOr<KernelConfig> CpuBackend::ConfigFromResult(
    const xla::AutotuneResult& result) const {
  return CpuConfigFromResult(result);
}

absl::StatusOr<KernelConfig> CpuBackend::GemmOverride(
    const Instruction& fusion, absl::string_view textproto) const {
  return CpuGemmOverride(DefaultConfig(fusion), textproto);
}

absl::StatusOr<std::unique_ptr<Profiler>> CpuBackend::CreateProfiler() {
  // The worker program is looked up when the first candidate is timed, so
  // a compile that tunes nothing does not need it.
  return std::unique_ptr<Profiler>(
      new CpuProfiler("", device_.threads, FlushBytes()));
}

int64_t CpuBackend::FlushBytes() const {
  return std::min<int64_t>(device_.l3_bytes * 3 / 2, int64_t{256} << 20);
}

BackendRegistration CpuBackendRegistration() {
  return {
      "cpu",
      "kernels generated as C++, built by the host compiler, run on all cores",
      [](const BackendOptions& options)
          -> absl::StatusOr<std::unique_ptr<Backend>> {
        CpuBackendOptions cpu;
        cpu.excess_precision = options.excess_precision;
        cpu.threads = options.threads;
        XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<CpuBackend> backend,
                               CpuBackend::Create(cpu));
        return std::unique_ptr<Backend>(std::move(backend));
      },
      // The device string needs no compiler.
      [](const BackendOptions& options) -> absl::StatusOr<std::string> {
        return DetectCpu(options.threads).Description();
      }};
}

std::vector<KernelConfig> CpuBackend::Candidates(const Instruction& fusion,
                                                 bool exhaustive) const {
  return CpuCandidates(Fused(fusion), device_, exhaustive, IsConvolutionFusion(fusion));
}

KernelConfig CpuBackend::DefaultConfig(const Instruction& fusion) const {
  return CpuDefaultConfig(Fused(fusion), device_, IsConvolutionFusion(fusion));
}

absl::Status CpuBackend::CheckConfig(const Instruction& fusion,
                                     const KernelConfig& config) const {
  return CheckCpuConfig(Fused(fusion), device_, config, IsConvolutionFusion(fusion));
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
                   "\n// config ", config.kind(), "\n",
                   options_.builtin_min_max ? "" : "#define XT_INTRINSICS_HEADER 1\n",
                   options_.no_constant_clones ? kNoConstantClones : "");
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
  } else if (kind == "cpu_scatter") {
    body = ScatterKernelSource(fused, config);
  } else if (kind == "cpu_sort") {
    body = SortKernelSource(fused, config);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("the CPU backend has no kernels of kind '", kind, "'"));
  }
  if (!body.ok()) return body.status();
  return header + *body;
}

std::string CpuBackend::CodeKey(const Instruction& fusion,
                                const KernelConfig& config) const {
  // Without one compile per source every candidate compiles on its own.
  if (!options_.compiler.one_compile_per_source) return config.ToString();
  absl::StatusOr<std::string> source = Source(fusion, config);
  return source.ok() ? Sha256Hex(*source) : config.ToString();
}

namespace {

// What every kernel source exports.
absl::Span<const std::string> KernelSymbols() {
  static const std::string* symbols = new std::string[1]{kKernelSymbol};
  return absl::MakeConstSpan(symbols, 1);
}

std::vector<int64_t> ValuesOf(const KernelConfig& config) {
  std::vector<int64_t> values;
  for (const auto& p : config.params()) values.push_back(p.second);
  return values;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kernel>> CpuBackend::Compile(
    const Instruction& fusion, const KernelConfig& config) {
  XTUNE_ASSIGN_OR_RETURN(std::string source, Source(fusion, config));
  XTUNE_ASSIGN_OR_RETURN(LoadedKernel loaded,
                         compiler_->LoadKernel(source, KernelSymbols()));
  XTUNE_ASSIGN_OR_RETURN(
      std::unique_ptr<CpuKernel> kernel,
      CpuKernel::Create(loaded.object, loaded.Name(kKernelSymbol),
                        ValuesOf(config), pool_.get()));
  return std::unique_ptr<Kernel>(std::move(kernel));
}

std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> CpuBackend::CompileKernels(
    absl::Span<const KernelRequest> requests) {
  if (!options_.bundle_kernels) return Backend::CompileKernels(requests);
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels;
  std::vector<std::string> sources;
  std::vector<size_t> source_of(requests.size(), 0);
  std::vector<absl::Status> generated(requests.size());
  for (size_t r = 0; r < requests.size(); ++r) {
    absl::StatusOr<std::string> source =
        Source(*requests[r].fusion, requests[r].config);
    if (!source.ok()) {
      generated[r] = source.status();
      continue;
    }
    source_of[r] = sources.size();
    sources.push_back(*std::move(source));
  }
  std::vector<absl::StatusOr<LoadedKernel>> loaded =
      compiler_->LoadKernels(sources, KernelSymbols());
  for (size_t r = 0; r < requests.size(); ++r) {
    if (!generated[r].ok()) {
      kernels.push_back(generated[r]);
      continue;
    }
    const absl::StatusOr<LoadedKernel>& l = loaded[source_of[r]];
    if (!l.ok()) {
      kernels.push_back(l.status());
      continue;
    }
    absl::StatusOr<std::unique_ptr<CpuKernel>> kernel = CpuKernel::Create(
        l->object, l->Name(kKernelSymbol), ValuesOf(requests[r].config),
        pool_.get());
    if (kernel.ok()) {
      kernels.push_back(std::unique_ptr<Kernel>(*std::move(kernel)));
    } else {
      kernels.push_back(kernel.status());
    }
  }
  return kernels;
}

}  // namespace xtune::cpu
