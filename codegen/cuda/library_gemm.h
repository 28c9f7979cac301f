// The library candidate of a gemm fusion (kind `cuda_cublaslt`, XLA's
// GemmKey{algorithm}): what a user would write around cuBLASLt.
//   1. pack_a, pack_b: generated kernels that compute the dot's operands
//      from the fusion's parameters (converts, transposes, broadcasts,
//      layouts) into dense row-major [batch, m, k] and [batch, k, n]
//      buffers of `pack_type` (f16/bf16 when both operands are that type,
//      so cuBLASLt runs on tensor cores; f32 otherwise);
//   2. the gemm, C[b] = A[b] x B[b] in f32 (cuBLASLt on the GPU, a plain
//      f32 loop in the emulator), row-major [batch, m, n];
//   3. epilogue: a generated kernel that applies the fusion's elementwise
//      epilogue to C and stores the fusion's result, unless the result is
//      C itself (a plain f32 [batch, m, n]: the gemm writes it directly).
// Every kernel takes the fusion's parameters first (the epilogue also C)
// and writes its one output, as in cuda_kernels.h.
#ifndef XTUNE_CODEGEN_CUDA_LIBRARY_GEMM_H_
#define XTUNE_CODEGEN_CUDA_LIBRARY_GEMM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cuda/cuda_kernels.h"
#include "ir/computation.h"

namespace xtune::cuda {

struct GemmShape {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  DType pack_type = DType::kF32;  // of A and B; C is f32
  // f32 operands rounded to TF32 by the pack kernels, multiplied in TF32
  // (CUBLAS_COMPUTE_32F_FAST_TF32): CudaKernelOptions::tf32 and a dot that
  // allows it.
  bool tf32 = false;
};

struct LibraryGemm {
  GemmShape shape;
  CudaKernelSource pack_a, pack_b;
  bool has_epilogue = false;
  CudaKernelSource epilogue;  // when has_epilogue
};

// Unimplemented for dots it cannot express (integer or f64 results; what
// cpu::AnalyzeGemmFusion rejects).
absl::StatusOr<LibraryGemm> LibraryGemmKernels(const Computation& fused,
                                               const CudaKernelOptions& options);

// Only the gemm's shape (what cuBLASLt is asked for), without generating
// the kernels, with `tf32` as CudaKernelOptions::tf32. Unimplemented as
// LibraryGemmKernels.
absl::StatusOr<GemmShape> LibraryGemmShape(const Computation& fused, bool tf32);

// The kernel that finishes a gemm from its f32 product C (row-major
// [batch, m, n]; with `splits` > 1, that many partial products one after
// another, summed in order): applies the fusion's epilogue and stores its
// result. Inputs: the fusion's parameters, then C.
absl::StatusOr<CudaKernelSource> GemmEpilogueKernel(
    const Computation& fused, const cpu::GemmFusion& g, int64_t splits,
    const CudaKernelOptions& options);

// Emits the store of the fusion's result element (xt_bi, xt_mi, xt_ni) from
// `acc`, the dot's f32 value there: the epilogue through `emitter`, then
// the store to xt_out as `out` in the result's layout.
absl::Status EmitGemmResultStore(const cpu::GemmFusion& g, const std::string& acc,
                                 DType out, cpu::ElementalEmitter* emitter,
                                 cpu::CodeBuffer* body);

// The emulator's stand-in for cuBLASLt: C = A x B per batch, products and
// sums in f32 in k order. `a` and `b` hold shape.pack_type elements.
void HostGemm(const GemmShape& shape, const void* a, const void* b, float* c);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_LIBRARY_GEMM_H_
