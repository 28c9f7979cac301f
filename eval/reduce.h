// The evaluator's reduce: N inputs, N initial values, any `to_apply`.
//
// Elements are combined in row-major order of the reduced dimensions,
// starting from the initial value: acc = to_apply(acc, x). A to_apply that
// is a single add/multiply/maximum/minimum/and/or/xor of its two parameters
// runs as a tight loop; anything else calls the computation per element.
#ifndef XTUNE_EVAL_REDUCE_H_
#define XTUNE_EVAL_REDUCE_H_

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/tensor.h"
#include "ir/computation.h"

namespace xtune {

// Evaluates a computation on argument tensors (supplied by the evaluator).
using ComputationRunner = std::function<absl::StatusOr<Tensor>(
    const Computation&, const std::vector<const Tensor*>&)>;

// If `c` is `ROOT op(p0, p1)` (or op(p1, p0)) for a binary op of the
// parameters' type, returns the op and whether the operands are swapped.
std::optional<std::pair<Opcode, bool>> SimpleBinary(const Computation& c);

// Element `k` of `t` as a scalar tensor; stores a scalar tensor at `k`.
Tensor ScalarOf(const Tensor& t, int64_t k);
void Store(Tensor& dst, int64_t k, const Tensor& scalar);

absl::StatusOr<Tensor> EvalReduce(const std::vector<const Tensor*>& inputs,
                                  const std::vector<const Tensor*>& inits,
                                  const std::vector<int64_t>& dimensions,
                                  const Computation& to_apply,
                                  const Shape& out,
                                  const ComputationRunner& run);

}  // namespace xtune

#endif  // XTUNE_EVAL_REDUCE_H_
