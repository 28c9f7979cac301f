#include "codegen/cuda/gpu_backend.h"

#include "codegen/cuda/cuda_candidates.h"
#include "fusion/precision.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

const Computation& Fused(const Instruction& fusion) {
  return *fusion.called_computations()[0];
}

}  // namespace

std::string GpuBackend::DeviceDescription() const {
  return CudaDeviceString(device_);
}

std::vector<KernelConfig> GpuBackend::Candidates(const Instruction& fusion,
                                                 bool exhaustive) const {
  return CudaCandidates(Fused(fusion), device_, exhaustive);
}

KernelConfig GpuBackend::DefaultConfig(const Instruction& fusion) const {
  return CudaDefaultConfig(Fused(fusion), device_);
}

absl::StatusOr<CudaKernelSource> GpuBackend::Source(
    const Instruction& fusion, const KernelConfig& config) const {
  if (config.kind() == "cuda_gemm") {
    return absl::UnimplementedError(
        "gemm fusions: neither the generated CUDA gemm nor cuBLASLt is "
        "implemented yet; the evaluator computes them");
  }
  XTUNE_RETURN_IF_ERROR(CheckConfig(fusion, config));
  // Without excess precision the generators see a copy that rounds every
  // f16/bf16 result (the key and the config stay the original's).
  std::unique_ptr<Module> rounded;
  if (!excess_precision_) rounded = RoundEveryLowPrecisionResult(Fused(fusion));
  const Computation& fused = rounded ? *rounded->entry() : Fused(fusion);
  CudaKernelOptions options;
  options.round_low_precision_accumulators = !excess_precision_;
  options.name = fusion.name();
  return CudaKernel(fused, config, options);
}

}  // namespace xtune::cuda
