// The tensor-core path of the generated gemm (triton_gemm.h): when both of
// the dot's operands are f16 or both bf16, warps compute 16x8 tiles with
// mma.sync m16n8k16 (f32 accumulators). Operand tiles are kept in shared
// memory as pairs of 16-bit values along K (A as [block_m][block_k], B
// transposed as [block_n][block_k]), so each fragment register is one
// 32-bit shared load, in the layouts of the PTX ISA's m16n8k16 tables
// (a: rows groupID and groupID+8, columns 2*threadID_in_group + {0,1} and
// + 8; b: rows (k) 2*threadID_in_group + {0,1} and + 8, column groupID;
// c: rows groupID and groupID+8, columns 2*threadID_in_group + {0,1}).
// Loading, prefetching and split-k are as on the CUDA-core path.
#ifndef XTUNE_CODEGEN_CUDA_TRITON_GEMM_MMA_H_
#define XTUNE_CODEGEN_CUDA_TRITON_GEMM_MMA_H_

#include <optional>

#include "absl/status/statusor.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

// The kernel on tensor cores for (fusion, config), or nullopt when this
// path does not apply (operand types, or tiles that do not split into
// warps' 16x8 tiles; the CUDA-core path is used then). `out_type` is what
// the kernel stores (f32 partials with split_k > 1). InvalidArgument for
// shared memory or accumulators over the limits.
absl::StatusOr<std::optional<CudaKernelSource>> MmaGemmKernel(
    const Computation& fused, const cpu::GemmFusion& g,
    const KernelConfig& config, DType out_type,
    const CudaKernelOptions& options);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_TRITON_GEMM_MMA_H_
