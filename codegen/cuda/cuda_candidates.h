// The search spaces of the CUDA backends' generated kernels (configs in
// cuda_kernels.h), pruned by problem shape and the device's limits, in
// canonical order; shared by `cuda` and `cuda_emulator`.
#ifndef XTUNE_CODEGEN_CUDA_CUDA_CANDIDATES_H_
#define XTUNE_CODEGEN_CUDA_CUDA_CANDIDATES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/backend_factory.h"
#include "codegen/cuda/gpu_device_info.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

// The kind a fusion's kernel has: "cuda_loop", "cuda_row_reduce",
// "cuda_col_reduce", or "triton_gemm" for gemm fusions (triton_gemm.h,
// XLA's TritonGemmKey), whose candidates also hold the library candidate
// "cuda_cublaslt" (library_gemm.h; {algorithm} is XLA's GemmKey: the index
// in cuBLASLt's heuristic list, 0 its first choice).
std::string CudaKernelKind(const Computation& fused);

std::vector<KernelConfig> CudaCandidates(const Computation& fused,
                                         const GpuDeviceInfo& device,
                                         bool exhaustive);
KernelConfig CudaDefaultConfig(const Computation& fused,
                               const GpuDeviceInfo& device);

// The GPU the options name (a target file or a shipped target), or
// `fallback` when they name none. InvalidArgument for both at once, an
// unknown name or a bad file; NotFound for a missing file.
absl::StatusOr<GpuDeviceInfo> GpuTargetFromOptions(
    const BackendOptions& options, const std::string& fallback);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUDA_CANDIDATES_H_
