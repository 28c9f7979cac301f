// The evaluator's reduce: N inputs, N initial values, any `to_apply`.
//
// Elements are combined in row-major order of the reduced dimensions,
// starting from the initial value: acc = to_apply(acc, x). A to_apply that
// is a single add/multiply/maximum/minimum/and/or/xor of its two parameters
// runs as a tight loop; anything else calls the computation per element.
#ifndef XTUNE_EVAL_REDUCE_H_
#define XTUNE_EVAL_REDUCE_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/tensor.h"
#include "ir/computation.h"

namespace xtune {

// Evaluates a computation on argument tensors (supplied by the evaluator).
using ComputationRunner = std::function<absl::StatusOr<Tensor>(
    const Computation&, const std::vector<const Tensor*>&)>;

absl::StatusOr<Tensor> EvalReduce(const std::vector<const Tensor*>& inputs,
                                  const std::vector<const Tensor*>& inits,
                                  const std::vector<int64_t>& dimensions,
                                  const Computation& to_apply,
                                  const Shape& out,
                                  const ComputationRunner& run);

}  // namespace xtune

#endif  // XTUNE_EVAL_REDUCE_H_
