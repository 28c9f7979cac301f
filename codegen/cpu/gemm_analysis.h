// Analysis of gemm fusions: the dot, its problem size, how to read its
// operands element by element, and how its (epilogue) result is stored.
#ifndef XTUNE_CODEGEN_CPU_GEMM_ANALYSIS_H_
#define XTUNE_CODEGEN_CPU_GEMM_ANALYSIS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cpu/elemental.h"
#include "ir/computation.h"

namespace xtune::cpu {

struct GemmFusion {
  const Instruction* dot = nullptr;
  // The last elementwise instruction over the dot's result (the dot itself
  // when there is no epilogue) and the fusion root, which may add
  // layout-preserving bitcasts, reshapes or copies on top of it.
  const Instruction* epilogue_root = nullptr;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool has_epilogue = false;
  // The output buffer can double as a row-major f32 [batch, m, n]
  // accumulator (no epilogue, f32, default layouts).
  bool output_is_plain_f32 = false;
  // Epilogue code can run W columns at a time (one rhs free dimension,
  // vectorizable ops, contiguous output).
  bool vector_epilogue = false;
};

// InvalidArgument when the fusion has no dot or its root is not an
// elementwise epilogue (plus identity reshapes) of it; Unimplemented for
// dots the generated micro-kernel does not handle (integer or f64).
absl::StatusOr<GemmFusion> AnalyzeGemmFusion(const Computation& fused);

// Index of the dot's operand `operand` (0 = lhs, 1 = rhs) for the C++
// index variables b, m (lhs) or n (rhs), and k.
std::vector<IndexExpr> DotOperandIndex(const Instruction& dot, int operand,
                                       const std::string& b,
                                       const std::string& mn,
                                       const std::string& k);

// Whether operand `operand` of `dot` may hold more precision than its
// f16/bf16 type in a kernel that computes in f32 (it is computed by
// arithmetic, through moves): gemm kernels then round it to its type as
// they load it, as the dot reads it in that type.
bool DotOperandNeedsRounding(const Instruction& dot, int operand);

// Index of the dot's result for b, m, and n whose lanes step by
// `n_lane_stride`.
std::vector<IndexExpr> DotResultIndex(const Instruction& dot,
                                      const std::string& b,
                                      const std::string& m,
                                      const std::string& n,
                                      int64_t n_lane_stride);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_GEMM_ANALYSIS_H_
