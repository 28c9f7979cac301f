// The tensor-core path of the generated gemm (triton_gemm.h): when both of
// the dot's operands are f16 or both bf16 (mma.sync m16n8k16), or both f32
// and the dot allows TF32 under CudaKernelOptions::tf32 (m16n8k8 .tf32,
// operands rounded to nearest in the loader), warps compute 16x8 tiles with
// f32 accumulators.
//
// Shared memory. Each operand's tile is stored as rows of 16-byte chunks,
// either K-major (rows are m or n, K contiguous) or MN-major (rows are k,
// m or n contiguous), with the chunks of row r XOR-swizzled
// (chunk c at c ^ ((r / max(1, 8 / C)) % min(C, 8)), C chunks a row), so
// that the eight row addresses of an ldmatrix fall in eight different
// 16-byte bank groups. Fragments are loaded with ldmatrix (x4 for A, x2
// for B; .trans for MN-major 16-bit tiles), whose per-lane layouts are the
// m16n8k16 / m16n8k8 operand layouts of the PTX ISA; MN-major f32 tiles
// (TF32) are read a 32-bit word at a time in those layouts.
//
// Loading. When both operands are fusion parameters of the mma type whose
// contiguous dimension is the dot's last contracting or last free
// dimension (a multiple of 16 bytes), each tile is copied with cp.async
// 16 bytes at a time into a pipeline of min(num_stages, what fits in
// 48 KiB) buffers, with chunks past M, N or K zero-filled (TF32: each
// thread rounds the chunks it copied once they have landed); otherwise tiles
// go through registers and the operands' producers (converts, transposes,
// broadcasts) K-major, as on the CUDA-core path (register prefetch with
// num_stages >= 2). Split-k is as on the CUDA-core path.
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
