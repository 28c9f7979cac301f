// The CPU backend's search spaces: which kernel generator a fusion uses and
// the configs it may take, clamped to the problem and in canonical order.
#ifndef XTUNE_CODEGEN_CPU_CPU_CANDIDATES_H_
#define XTUNE_CODEGEN_CPU_CPU_CANDIDATES_H_

#include <vector>

#include "absl/status/status.h"

#include "codegen/cpu/cpu_device.h"
#include "codegen/kernel_config.h"
#include "ir/computation.h"

namespace xtune::cpu {

enum class CpuKernelKind {
  kGemm,       // cpu_gemm + cpu_gemm_blas
  kRowReduce,  // cpu_row_reduce
  kColReduce,  // cpu_col_reduce
  kScatter,    // cpu_scatter
  kSort,       // cpu_sort
  kLoop,       // cpu_loop (also any fusion the others cannot take)
};

// Picks the generator for a fused computation.
CpuKernelKind ChooseKernelKind(const Computation& fused);

// `conv_as_gemm` (XLA's cuDNN calls, kept whole as their convolution and
// epilogue): a fusion whose convolution is one gemm (cpu::GemmFusion::conv)
// also takes the gemm kinds, which read the input's patches as they pack A.
std::vector<KernelConfig> CpuCandidates(const Computation& fused,
                                        const CpuDevice& device,
                                        bool exhaustive, bool conv_as_gemm = false);
// With `conv_as_gemm`, a convolution that is one gemm defaults to it.
KernelConfig CpuDefaultConfig(const Computation& fused, const CpuDevice& device,
                              bool conv_as_gemm = false);

// Whether the CPU generators take `config` for `fused`: a kind of this
// fusion with exactly its parameters in order (kernels read them by
// position), every value >= 1, and bounds that keep buffers sane (blocks
// may exceed the problem, up to a cap; split_k <= min(K, max(64, device
// threads)); threads <= max(1024, device threads)). InvalidArgument naming the offending parameter.
absl::Status CheckCpuConfig(const Computation& fused, const CpuDevice& device,
                            const KernelConfig& config, bool conv_as_gemm = false);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_CANDIDATES_H_
