// The CUDA scatter fusion kernel ("cuda_scatter" {block_size}); see
// scatter_kernel.cc for how it stays deterministic without atomics.
#ifndef XTUNE_CODEGEN_CUDA_SCATTER_KERNEL_H_
#define XTUNE_CODEGEN_CUDA_SCATTER_KERNEL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

// The threads a scatter's kernel runs: the product of its owned output
// dimensions (1 when windows of different positions can overlap).
int64_t ScatterOwners(const Instruction& scatter);

// The kernel of a single-operand scatter fusion; Unimplemented for
// several operands.
absl::StatusOr<CudaKernelSource> ScatterKernel(const Computation& fused,
                                               const KernelConfig& config,
                                               const CudaKernelOptions& options);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_SCATTER_KERNEL_H_
