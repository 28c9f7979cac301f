#include "codegen/cuda/gpu_backend.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "codegen/config_codec.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cuda/cuda_candidates.h"
#include "codegen/cuda/library_conv.h"
#include "fusion/fusion_pass.h"
#include "fusion/precision.h"
#include "ir/conv_call.h"
#include "ir/library_call.h"
#include "util/sha256.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

const Computation& Fused(const Instruction& fusion) {
  return *fusion.called_computations()[0];
}

// A library call's one config: legacy cuBLAS (__cublas$gemm) runs the
// library's default, as XLA does from Ampere on (its picker no longer
// tunes it); cuBLASLt the heuristic's first, the start of its candidates.
KernelConfig LibraryCallConfig(const LibraryFusion& call) {
  return KernelConfig("cuda_cublaslt",
                      {{"algorithm", call.target == kCublasGemmTarget ? -1 : 0}});
}

bool IsConvCall(const LibraryFusion& call) { return IsConvCallTarget(call.target); }

// Whether a conv fusion's or a cuDNN call's convolution is one gemm
// (ungrouped, float).
bool TakesImplicitGemm(const Instruction& fusion) {
  return IsConvolutionFusion(fusion) && cpu::AnalyzeGemmFusion(Fused(fusion)).ok();
}

KernelConfig AsImplicitGemm(const KernelConfig& triton) {
  return KernelConfig(kImplicitGemmKind, triton.params());
}

// The packed convolution of a fusion cuDNN's forward convolution computes:
// conv fusions, forward and bias+activation calls (the backward calls'
// algorithms are another API's, so they run as generated kernels).
std::optional<ConvShape> CudnnShape(const Instruction& fusion) {
  std::optional<LibraryFusion> call = LibraryFusionOf(fusion);
  if (call.has_value() ? call->target != kCudnnConvForwardTarget &&
                             call->target != kCudnnConvBiasActivationTarget
                       : ClassifyFusion(fusion) != FusionKind::kConv) {
    return std::nullopt;
  }
  absl::StatusOr<ConvShape> s = LibraryConvShape(Fused(fusion));
  if (!s.ok()) return std::nullopt;
  return *s;
}

// Tensor cores for f16 and bf16; f32 stays f32 (FMA math, not TF32), as
// the convolution's own products.
bool TensorOps(const ConvShape& s) { return s.pack_type != DType::kF32; }

KernelConfig CudnnConfig(int64_t algorithm, bool tensor_ops) {
  return KernelConfig("cuda_cudnn",
                      {{"algorithm", algorithm}, {"tensor_ops", tensor_ops ? 1 : 0}});
}

// The legacy API's forward algorithms (cudnnConvolutionFwdAlgo_t).
constexpr int64_t kCudnnFwdAlgorithms = 8;

// XLA's AlgorithmProto names a cuDNN engine (since 2025 always; before,
// without the frontend, possibly a legacy algorithm: the proto does not
// say which), with its knobs: xtune's candidate runs the legacy API.
absl::Status EngineRefused(const stream_executor::dnn::AlgorithmProto& a) {
  return absl::UnimplementedError(absl::StrCat(
      "XLA's cuDNN choice is engine ", a.algo_id(),
      a.tuning_knobs_size() > 0 ? " with tuning knobs" : "",
      "; xtune's cuDNN candidate runs the legacy forward algorithms (XLA's ConvKey)"));
}

}  // namespace

std::string GpuBackend::DeviceDescription() const {
  return CudaDeviceString(device_);
}

std::vector<KernelConfig> GpuBackend::Candidates(const Instruction& fusion,
                                                 bool exhaustive) const {
  // XLA's library calls stay library calls (CudaBackend adds the
  // heuristic's other algorithms to a cuBLASLt call's algorithm 0).
  // A conv fusion or a cuDNN call takes cuDNN's implicit-gemm algorithms
  // (CudaBackend asks the library for the others), the implicit gemm and
  // the loop kernels.
  std::optional<LibraryFusion> call = LibraryFusionOf(fusion);
  if (call.has_value() && !IsConvCall(*call)) return {LibraryCallConfig(*call)};
  std::vector<KernelConfig> out;
  if (std::optional<ConvShape> s = CudnnShape(fusion)) {
    out = {CudnnConfig(0, TensorOps(*s)), CudnnConfig(1, TensorOps(*s))};
  }
  if (TakesImplicitGemm(fusion)) {
    for (const KernelConfig& c : TritonGemmCandidates(Fused(fusion), device_, exhaustive)) {
      out.push_back(AsImplicitGemm(c));
    }
  }
  for (KernelConfig& c : CudaCandidates(Fused(fusion), device_, exhaustive)) {
    out.push_back(std::move(c));
  }
  return out;
}

KernelConfig GpuBackend::GeneratedDefault(const Instruction& fusion) const {
  if (TakesImplicitGemm(fusion)) return AsImplicitGemm(TritonGemmDefault(Fused(fusion)));
  return CudaDefaultConfig(Fused(fusion), device_);
}

KernelConfig GpuBackend::DefaultConfig(const Instruction& fusion) const {
  std::optional<LibraryFusion> call = LibraryFusionOf(fusion);
  if (call.has_value() && !IsConvCall(*call)) return LibraryCallConfig(*call);
  // cuDNN's heuristic's choice, as XLA runs a convolution it did not tune.
  if (std::optional<ConvShape> s = CudnnShape(fusion)) return CudnnConfig(-1, TensorOps(*s));
  return GeneratedDefault(fusion);
}

absl::Status GpuBackend::CheckKindAndParameters(
    const Instruction& fusion, const KernelConfig& config) const {
  KernelConfig def = DefaultConfig(fusion);
  // A gemm fusion also takes the library candidate; a cuDNN call the
  // generated kernels.
  if (def.kind() == "triton_gemm" && config.kind() == "cuda_cublaslt") {
    def = KernelConfig("cuda_cublaslt", {{"algorithm", 0}});
  }
  // A cuDNN call also takes the implicit gemm and the loop kernels.
  if (def.kind() == "cuda_cudnn" && config.kind() != "cuda_cudnn") {
    def = GeneratedDefault(fusion);
  }
  if (def.kind() == kImplicitGemmKind && config.kind() != kImplicitGemmKind) {
    def = CudaDefaultConfig(Fused(fusion), device_);
  }
  if (config.kind() != def.kind()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fusion '", fusion.name(), "' takes ", def.kind(), " configs, not ",
        config.kind()));
  }
  std::vector<std::string> want, got;
  for (const auto& p : def.params()) want.push_back(p.first);
  for (const auto& p : config.params()) got.push_back(p.first);
  if (want != got) {
    return absl::InvalidArgumentError(absl::StrCat(
        config.ToString(), ": ", def.kind(), " takes the parameters ",
        absl::StrJoin(want, ","), " in that order"));
  }
  return absl::OkStatus();
}

absl::Status GpuBackend::CheckConfig(const Instruction& fusion,
                                     const KernelConfig& config) const {
  std::optional<LibraryFusion> call = LibraryFusionOf(fusion);
  if (call.has_value() && !IsConvCall(*call) && config.kind() != "cuda_cublaslt") {
    return absl::InvalidArgumentError(absl::StrCat(
        "fusion '", fusion.name(), "' is XLA's ", call->target,
        " call: it takes cuda_cublaslt configs, not ", config.kind()));
  }
  if (config.kind() == "cuda_cudnn") {
    if (!CudnnShape(fusion).has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fusion '", fusion.name(), "' takes no cuda_cudnn config: only conv "
          "fusions and XLA's forward and bias+activation cuDNN calls run on cuDNN"));
    }
    XTUNE_RETURN_IF_ERROR(CheckKindAndParameters(fusion, config));
    const int64_t a = config.Get("algorithm", 0), t = config.Get("tensor_ops", 0);
    if (a < -1 || a >= kCudnnFwdAlgorithms || (t != 0 && t != 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          config.ToString(), ": the algorithm is cuDNN's forward algorithm, 0 to ",
          kCudnnFwdAlgorithms - 1, " (cudnnConvolutionFwdAlgo_t) or -1 for its "
          "heuristic's choice; tensor_ops is 0 or 1"));
    }
    return absl::OkStatus();
  }
  if (config.kind() == "cuda_cublaslt") {
    XTUNE_RETURN_IF_ERROR(CheckKindAndParameters(fusion, config));
    int64_t a = config.Get("algorithm", 0);
    if (a < -1 || a >= 64) {
      return absl::InvalidArgumentError(absl::StrCat(
          config.ToString(), ": the algorithm is an index in cuBLASLt's "
          "heuristic list, from 0 to 63, or -1 for the library's default "
          "(XLA's se::blas::kDefaultAlgorithm)"));
    }
    return absl::OkStatus();
  }
  if (config.kind() == "triton_gemm" || config.kind() == kImplicitGemmKind) {
    absl::StatusOr<TritonGemm> g = TritonSource(fusion, config);
    if (!g.ok() && g.status().code() == absl::StatusCode::kUnimplemented) {
      return absl::OkStatus();  // the evaluator runs it
    }
    return g.status();
  }
  absl::StatusOr<CudaKernelSource> source = Source(fusion, config);
  if (!source.ok() && source.status().code() == absl::StatusCode::kUnimplemented) {
    return absl::OkStatus();  // the evaluator runs it: any config of the kind
  }
  return source.status();
}

absl::StatusOr<CudaKernelSource> GpuBackend::Source(
    const Instruction& fusion, const KernelConfig& config) const {
  XTUNE_RETURN_IF_ERROR(CheckKindAndParameters(fusion, config));
  if (config.kind() == "cuda_cublaslt" || config.kind() == "triton_gemm" ||
      config.kind() == kImplicitGemmKind || config.kind() == "cuda_cudnn") {
    return absl::UnimplementedError(
        "gemm and library fusions have their own kernels (TritonSource, "
        "LibrarySource, ConvSource)");
  }
  std::unique_ptr<Module> rounded;
  const Computation& fused = Generated(fusion, &rounded);
  CudaKernelOptions options;
  options.round_low_precision_accumulators = !excess_precision_;
  options.name = fusion.name();
  return CudaKernel(fused, config, options);
}

const Computation& GpuBackend::Generated(const Instruction& fusion,
                                         std::unique_ptr<Module>* holder) const {
  // Without excess precision the generators see a copy that rounds every
  // f16/bf16 result (the key and the config stay the original's).
  if (!excess_precision_) *holder = RoundEveryLowPrecisionResult(Fused(fusion));
  return *holder ? *(*holder)->entry() : Fused(fusion);
}

namespace {

// What NVRTC (or the emulator's compiler) sees of a kernel: its body. The
// launch shape is chosen at run time.
void AppendKernel(const CudaKernelSource& k, std::string* text) {
  absl::StrAppend(text, k.body.size(), "\n", k.body, "\n");
}

}  // namespace

std::string GpuBackend::CodeKey(const Instruction& fusion,
                                const KernelConfig& config) const {
  std::string text;
  if (config.kind() == "cuda_cublaslt") {
    absl::StatusOr<LibraryGemm> g = LibrarySource(fusion, config);
    if (!g.ok()) return config.ToString();
    AppendKernel(g->pack_a, &text);
    AppendKernel(g->pack_b, &text);
    if (g->has_epilogue) AppendKernel(g->epilogue, &text);
  } else if (config.kind() == "cuda_cudnn") {
    absl::StatusOr<LibraryConv> c = ConvSource(fusion, config);
    if (!c.ok()) return config.ToString();
    AppendKernel(c->pack_x, &text);
    AppendKernel(c->pack_w, &text);
    AppendKernel(c->epilogue, &text);
  } else if (config.kind() == "triton_gemm" || config.kind() == kImplicitGemmKind) {
    absl::StatusOr<TritonGemm> g = TritonSource(fusion, config);
    if (!g.ok()) return config.ToString();
    absl::StrAppend(&text, g->splits, " ", g->partial_bytes, "\n");
    AppendKernel(g->main, &text);
    if (g->splits > 1) AppendKernel(g->epilogue, &text);
  } else {
    absl::StatusOr<CudaKernelSource> k = Source(fusion, config);
    if (!k.ok()) return config.ToString();
    AppendKernel(*k, &text);
  }
  return absl::StrCat(config.kind(), ":", Sha256Hex(text));
}

absl::StatusOr<LibraryGemm> GpuBackend::LibrarySource(
    const Instruction& fusion, const KernelConfig& config) const {
  XTUNE_RETURN_IF_ERROR(CheckConfig(fusion, config));
  if (config.kind() != "cuda_cublaslt") {
    return absl::InvalidArgumentError(
        absl::StrCat(config.ToString(), " is not a cuBLASLt config"));
  }
  std::unique_ptr<Module> rounded;
  const Computation& fused = Generated(fusion, &rounded);
  CudaKernelOptions options;
  options.name = fusion.name();
  options.tf32 = Tf32Dots();
  return LibraryGemmKernels(fused, options);
}

absl::StatusOr<LibraryConv> GpuBackend::ConvSource(const Instruction& fusion,
                                                   const KernelConfig& config) const {
  XTUNE_RETURN_IF_ERROR(CheckConfig(fusion, config));
  if (config.kind() != "cuda_cudnn") {
    return absl::InvalidArgumentError(
        absl::StrCat(config.ToString(), " is not a cuDNN config"));
  }
  std::unique_ptr<Module> rounded;
  const Computation& fused = Generated(fusion, &rounded);
  CudaKernelOptions options;
  options.name = fusion.name();
  return LibraryConvKernels(fused, options);
}

absl::StatusOr<TritonGemm> GpuBackend::TritonSource(
    const Instruction& fusion, const KernelConfig& config) const {
  XTUNE_RETURN_IF_ERROR(CheckKindAndParameters(fusion, config));
  if (config.kind() != "triton_gemm" && config.kind() != kImplicitGemmKind) {
    return absl::InvalidArgumentError(
        absl::StrCat(config.ToString(), " is not a triton_gemm config"));
  }
  std::unique_ptr<Module> rounded;
  const Computation& fused = Generated(fusion, &rounded);
  CudaKernelOptions options;
  options.name = fusion.name();
  options.tf32 = Tf32Dots();
  options.fp8_mma = Fp8Mma();
  absl::StatusOr<TritonGemm> g =
      TritonGemmKernels(fused, KernelConfig("triton_gemm", config.params()), options);
  if (!g.ok() && config.kind() == kImplicitGemmKind) {
    // The errors name the config the user gave, not the generator's kind.
    return absl::Status(g.status().code(),
                        absl::StrReplaceAll(g.status().message(),
                                            {{"triton_gemm:", absl::StrCat(kImplicitGemmKind, ":")}}));
  }
  return g;
}

bool GpuBackend::IsLibraryCall(const KernelConfig& config) const {
  return config.kind() == "cuda_cublaslt" || config.kind() == "cuda_cudnn";
}

absl::Status GpuBackend::ConfigToResult(const KernelConfig& config,
                                        xla::AutotuneResult* result) const {
  if (config.kind() == "triton_gemm") {
    result->clear_key();
    return ConfigToTritonKey(config, result);
  }
  if (config.kind() == "cuda_cudnn" && config.Get("algorithm", -1) >= 0) {
    result->clear_key();
    result->mutable_conv()->set_algorithm(config.Get("algorithm", 0));
    result->mutable_conv()->set_tensor_ops_enabled(config.Get("tensor_ops", 0) != 0);
    return absl::OkStatus();
  }
  if (config.kind() != "cuda_cublaslt") {
    return Backend::ConfigToResult(config, result);
  }
  result->clear_key();
  result->mutable_gemm()->set_algorithm(config.Get("algorithm", 0));
  return absl::OkStatus();
}

absl::StatusOr<KernelConfig> GpuBackend::ConfigFromResult(
    const xla::AutotuneResult& result) const {
  if (result.has_triton()) return ConfigFromTritonKey(result);
  if (result.has_gemm()) {
    return KernelConfig("cuda_cublaslt",
                        {{"algorithm", result.gemm().algorithm()}});
  }
  if (result.has_conv()) {
    return CudnnConfig(result.conv().algorithm(), result.conv().tensor_ops_enabled());
  }
  if (result.has_algorithm()) return EngineRefused(result.algorithm());
  if (result.has_other() && result.other().name() == "CUDNN") {
    stream_executor::dnn::AlgorithmProto algorithm;
    if (!result.other().config().UnpackTo(&algorithm)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "XLA's CUDNN result does not hold an AlgorithmProto (",
          result.other().config().type_url(), ")"));
    }
    return EngineRefused(algorithm);
  }
  if (result.has_other()) {
    // XLA's autotuner infrastructure names its backends: the cuBLAS ones
    // (and their "fission" forms for fusions) carry a GemmKey.
    const std::string& name = result.other().name();
    if (name == "CUBLAS" || name == "CUBLASLT" || name == "CUBLAS_FISSION" ||
        name == "CUBLASLT_FISSION") {
      xla::AutotuneResult::GemmKey gemm;
      if (!result.other().config().UnpackTo(&gemm)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "XLA's ", name, " result does not hold a GemmKey (",
            result.other().config().type_url(), ")"));
      }
      // Legacy cuBLAS numbers its algorithms as cublasGemmAlgo_t, which
      // name nothing in cuBLASLt's list: its choice runs as the library's
      // default. cuBLASLt's are indices in the heuristic's list, as ours.
      const bool lt = name == "CUBLASLT" || name == "CUBLASLT_FISSION";
      return KernelConfig("cuda_cublaslt",
                          {{"algorithm", lt ? gemm.algorithm() : -1}});
    }
    if (name.find(':') == std::string::npos) {
      return absl::UnimplementedError(absl::StrCat(
          "XLA's ", name, " results have no meaning for xtune's CUDA backend"));
    }
  }
  return Backend::ConfigFromResult(result);
}

absl::StatusOr<KernelConfig> GpuBackend::ConfigFromResultFor(
    const Instruction& fusion, const xla::AutotuneResult& result) const {
  if (result.has_other() && result.other().name() == "NATIVE_EMITTER") {
    return DefaultConfig(fusion);
  }
  std::optional<LibraryFusion> call = LibraryFusionOf(fusion);
  const bool cudnn_result = result.has_conv() || result.has_algorithm() ||
                            (result.has_other() && result.other().name() == "CUDNN");
  if (cudnn_result && call.has_value() && IsConvCall(*call) && !CudnnShape(fusion).has_value()) {
    return absl::UnimplementedError(absl::StrCat(
        "XLA's cuDNN algorithm for a ", call->target, " call is one of that call's "
        "own algorithms; xtune runs backward calls as generated kernels"));
  }
  if (call.has_value() && call->target == kCublasGemmTarget &&
      result.has_gemm()) {
    // XLA's picker numbers legacy cuBLAS algorithms as cublasGemmAlgo_t,
    // which name nothing in cuBLASLt's list: the library's default.
    return KernelConfig("cuda_cublaslt", {{"algorithm", -1}});
  }
  return ConfigFromResult(result);
}

}  // namespace xtune::cuda
