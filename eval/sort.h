// The evaluator's sort and topk. Both sort every slice along one dimension
// with a stable merge sort (StableSortOrder): for a comparator that is a
// strict weak order (what XLA requires) the result is the one stable order,
// whatever is_stable says, and it is the order every backend's kernels
// produce; for any other comparator the sort still finishes and stays in
// bounds.
#ifndef XTUNE_EVAL_SORT_H_
#define XTUNE_EVAL_SORT_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "eval/reduce.h"
#include "eval/tensor.h"

namespace xtune {

// The positions 0..n-1 in stable sorted order under `less(a, b)` ("a
// before b"): bottom-up merge sort, taking from the right run only when
// its element is strictly before the left one's.
absl::StatusOr<std::vector<int64_t>> StableSortOrder(
    int64_t n, absl::FunctionRef<absl::StatusOr<bool>(int64_t, int64_t)> less);

// sort(operands...), dimensions={dim}, to_apply=comparator: an array for
// one operand, else a tuple.
absl::StatusOr<Tensor> EvalSort(const std::vector<const Tensor*>& operands,
                                int64_t dim, const Computation& comparator,
                                const Shape& out, const ComputationRunner& run);

// topk(x), k=, largest=: (values, s32 indices) of the k largest (smallest)
// along the last dimension; floats in total order (NaN above +inf, -NaN
// below -inf), ties to the lower index.
Tensor EvalTopK(const Tensor& x, int64_t k, bool largest, const Shape& out);

}  // namespace xtune

#endif  // XTUNE_EVAL_SORT_H_
