// Analysis of gemm fusions: the dot, its problem size, how to read its
// operands element by element, and how its (epilogue) result is stored.
#ifndef XTUNE_CODEGEN_CPU_GEMM_ANALYSIS_H_
#define XTUNE_CODEGEN_CPU_GEMM_ANALYSIS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cpu/elemental.h"
#include "ir/computation.h"

namespace xtune::cpu {

struct GemmFusion {
  // The dot; or (conv) a convolution computed as an implicit gemm: m runs
  // over the output's batch and spatial positions (batch major), n over
  // its features, k over the kernel's spatial positions and input features
  // (features minor); the input's patches are read where the loaders need
  // them, 0 in the padding, never written out.
  const Instruction* dot = nullptr;
  bool conv = false;
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

// InvalidArgument when the fusion has no dot (nor, without one, a single
// convolution) or its root is not an elementwise epilogue (plus identity
// reshapes) of it; Unimplemented for dots the generated micro-kernel does
// not handle (integer or f64) and grouped convolutions.
absl::StatusOr<GemmFusion> AnalyzeGemmFusion(const Computation& fused);

// Index of the dot's operand `operand` (0 = lhs, 1 = rhs) for the C++
// index variables b, m (lhs) or n (rhs), and k.
std::vector<IndexExpr> DotOperandIndex(const Instruction& dot, int operand,
                                       const std::string& b,
                                       const std::string& mn,
                                       const std::string& k);

// The dimensions of operand `operand` of the gemm's core that b, k and m
// (or n) run over, each list major to minor; nullopt for a convolution's
// input, which is no plain view of a matrix.
struct GemmOperandDims {
  std::vector<int64_t> batch, contracting, free;
};
std::optional<GemmOperandDims> OperandDimsOf(const GemmFusion& g, int operand);

// The index of operand `operand` for b, m (or n) and k where it is a
// plain view (OperandDimsOf); nullopt for a convolution's input.
std::optional<std::vector<IndexExpr>> GemmOperandIndex(const GemmFusion& g, int operand,
                                                       const std::string& b,
                                                       const std::string& mn,
                                                       const std::string& k);

// Emits the code computing the core's operand `operand` at b, m (or n) and
// k through its producers, and returns the variable holding it (the
// operand's register type; 0 in a convolution's padding and dilation
// holes).
absl::StatusOr<std::string> EmitGemmOperand(ElementalEmitter& emitter, const GemmFusion& g,
                                            int operand, const std::string& b,
                                            const std::string& mn, const std::string& k,
                                            CodeBuffer* out);

// A convolution core's input element for output position `mn` (as m
// runs), kernel position `kpos` (row-major over the kernel's spatial
// dimensions) and input feature `c`: k = kpos * features + c. 0 in the
// padding and dilation holes.
absl::StatusOr<std::string> EmitConvInput(ElementalEmitter& emitter, const GemmFusion& g,
                                          const std::string& mn, const std::string& kpos,
                                          const std::string& c, CodeBuffer* out);

// The core's result index for b, m and n whose lanes step by
// `n_lane_stride` (DotResultIndex, or the convolution's output).
std::vector<IndexExpr> GemmResultIndex(const GemmFusion& g, const std::string& b,
                                       const std::string& m, const std::string& n,
                                       int64_t n_lane_stride);

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
