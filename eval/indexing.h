// The evaluator's indexing family: dynamic-slice, dynamic-update-slice,
// gather, scatter. The rules (clamping, dropped scatter windows, update
// order) are ir/indexing.h's; these functions only walk the elements.
#ifndef XTUNE_EVAL_INDEXING_H_
#define XTUNE_EVAL_INDEXING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "eval/reduce.h"
#include "eval/tensor.h"
#include "ir/indexing.h"

namespace xtune {

// `starts`: one scalar integer tensor per dimension of x.
Tensor EvalDynamicSlice(const Tensor& x,
                        const std::vector<const Tensor*>& starts,
                        const Shape& out);
Tensor EvalDynamicUpdateSlice(const Tensor& x, const Tensor& update,
                              const std::vector<const Tensor*>& starts);
Tensor EvalGather(const Tensor& x, const Tensor& indices,
                  const IndexingPlan& plan, const Shape& out);
// `operands` and `updates`: N each; `to_apply` combines (N current values,
// N updates) into N new values. Returns an array for N = 1, else a tuple.
absl::StatusOr<Tensor> EvalScatter(const std::vector<const Tensor*>& operands,
                                   const Tensor& indices,
                                   const std::vector<const Tensor*>& updates,
                                   const IndexingPlan& plan,
                                   const Computation& to_apply,
                                   const Shape& out,
                                   const ComputationRunner& run);

}  // namespace xtune

#endif  // XTUNE_EVAL_INDEXING_H_
