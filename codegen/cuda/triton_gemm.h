// The generated gemm of a gemm fusion, in Triton's vocabulary (XLA's
// TritonGemmKey, kind "triton_gemm": block_m block_n block_k split_k
// num_stages num_warps num_ctas), so XLA's cache entries drive it and the
// reverse. f16 and bf16 dots run on tensor cores (mma.sync m16n8k16,
// triton_gemm_mma.h); the others with f32 FMAs on CUDA cores, the path
// described here. Not yet: ldmatrix from swizzled shared memory, a cp.async
// pipeline, TF32, wgmma (docs/cuda_backend.md).
//
// One block of num_warps x 32 threads computes a block_m x block_n tile of
// one batch and one K split. Per block_k step it loads the A and B tiles
// through the fusion's operand producers (converts, transposes, broadcasts,
// layouts; elements past M, N or K read as 0) into shared memory as f32,
// then each thread accumulates its micro-tile from shared memory. With
// num_stages >= 2 the next step's tiles are loaded into registers before
// the current step is computed (a software pipeline of depth one); with 1
// they are loaded after. split_k = 1: the epilogue is applied to the
// accumulators and the fusion's result stored directly; split_k > 1: each
// split writes f32 partials and a second kernel (GemmEpilogueKernel) sums
// them in split order and applies the epilogue.
#ifndef XTUNE_CODEGEN_CUDA_TRITON_GEMM_H_
#define XTUNE_CODEGEN_CUDA_TRITON_GEMM_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/cuda/gpu_device_info.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

struct TritonGemm {
  CudaKernelSource main;
  int64_t splits = 1;
  // With splits > 1: main writes splits x batch x m x n f32 partials, which
  // `epilogue` (inputs: the parameters, then the partials) finishes.
  int64_t partial_bytes = 0;
  CudaKernelSource epilogue;
};

// InvalidArgument for a config the generator cannot take (num_ctas != 1,
// sizes not powers of two, more threads than tile elements, over 48 KiB of
// shared memory or 64 accumulators a thread); Unimplemented for dots the
// gemm analysis rejects.
absl::StatusOr<TritonGemm> TritonGemmKernels(const Computation& fused,
                                             const KernelConfig& config,
                                             const CudaKernelOptions& options);

// XLA's search space for the fusion's dot, as its GemmFusionAutotuner
// builds it: the default list (Ampere's, plus the Hopper additions from
// sm_90) or, `exhaustive`, the generated space; tiles clamped to the
// problem (at most the next power of two of M, N, K; block_k at least
// 256 bits / the narrowest operand width), split_k capped so that
// split_k x tiles stays near 5 waves of the device, deduplicated in list
// order; dots whose operands both have at most 32 x 32 elements get only
// XLA's default tiling 32x32x32/1/1/4. Configs the generator refuses are
// dropped.
std::vector<KernelConfig> TritonGemmCandidates(const Computation& fused,
                                               const GpuDeviceInfo& device,
                                               bool exhaustive);
// XLA's default tiling (32, 32, 32, 1, 1, 4), clamped like the others.
KernelConfig TritonGemmDefault(const Computation& fused);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_TRITON_GEMM_H_
