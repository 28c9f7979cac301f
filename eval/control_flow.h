// The evaluator's control flow: while and conditional, each running its
// called computations through the evaluator (XLA's semantics: a while runs
// its body while the condition holds; a conditional on a pred runs branch 0
// when true, 1 when false; on an s32 index runs that branch, and the last
// one for an index out of range).
#ifndef XTUNE_EVAL_CONTROL_FLOW_H_
#define XTUNE_EVAL_CONTROL_FLOW_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/reduce.h"
#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

absl::StatusOr<Tensor> EvalWhile(const Instruction& inst, const Tensor& init,
                                 const ComputationRunner& run);

absl::StatusOr<Tensor> EvalConditional(const Instruction& inst,
                                       const std::vector<const Tensor*>& ops,
                                       const ComputationRunner& run);

// The branch a conditional takes for selector value `selector` (a pred as
// 0/1, or an index) among `branches`: XLA's rule, written once for every
// backend.
int64_t ConditionalBranch(bool is_pred, int64_t selector, int64_t branches);

}  // namespace xtune

#endif  // XTUNE_EVAL_CONTROL_FLOW_H_
