// The CUDA sort fusion kernel ("cuda_sort" {block_size}); see
// sort_kernel.cc.
#ifndef XTUNE_CODEGEN_CUDA_SORT_KERNEL_H_
#define XTUNE_CODEGEN_CUDA_SORT_KERNEL_H_

#include "absl/status/statusor.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cuda {

absl::StatusOr<CudaKernelSource> SortKernel(const Computation& fused,
                                            const KernelConfig& config,
                                            const CudaKernelOptions& options);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_SORT_KERNEL_H_
