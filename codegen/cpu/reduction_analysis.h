// Analysis of reduction fusions for the row and column kernels.
#ifndef XTUNE_CODEGEN_CPU_REDUCTION_ANALYSIS_H_
#define XTUNE_CODEGEN_CPU_REDUCTION_ANALYSIS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/computation.h"

namespace xtune::cpu {

// A reduction whose to_apply is one add/multiply/maximum/minimum of its two
// parameters on an f16/bf16/f32 type: lanes can accumulate separately from
// the identity and be combined at the end.
struct SimpleReduction {
  Opcode op;
  std::string identity;  // C++ float literal
};
std::optional<SimpleReduction> AsSimpleReduction(const Instruction& reduce);

// A row fusion: every reduce reduces the same (default-layout) input dims
// over its minor dimensions; the root is either over the full input dims
// or one value per row.
struct RowFusion {
  std::vector<int64_t> full_dims;  // the reduced inputs' dimensions
  int64_t kept = 0;                // leading (row) dimensions
  int64_t rows = 0;                // product of the row dimensions
  int64_t columns = 0;             // product of the reduced dimensions
  bool root_is_full = false;
  // Reduces by pass: all reduces of a pass only need earlier passes.
  std::vector<std::vector<const Instruction*>> passes;
  // Per-row values (not reduces) that need reduction results, by the pass
  // after which they can be computed.
  std::vector<std::vector<const Instruction*>> row_values;
};
absl::StatusOr<RowFusion> AnalyzeRowFusion(const Computation& fused);

// A column fusion: the root is a reduce of a default-layout input over all
// dimensions but the last.
absl::StatusOr<const Instruction*> AnalyzeColumnFusion(const Computation& fused);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_REDUCTION_ANALYSIS_H_
