// Data-movement operations of the evaluator: they move elements without
// computing on them. All work in logical row-major order; `out` shapes are
// the instruction's declared shapes.
#ifndef XTUNE_EVAL_SHAPE_OPS_H_
#define XTUNE_EVAL_SHAPE_OPS_H_

#include <vector>

#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

Tensor EvalIota(const Shape& out, int64_t iota_dimension);
Tensor EvalBroadcast(const Tensor& x, const Shape& out,
                     const std::vector<int64_t>& dimensions);
// Reshape keeps the logical row-major order of the elements.
Tensor EvalReshape(const Tensor& x, const Shape& out);
// Bitcast reinterprets x's physical bytes (under x's layout) as `out` (under
// out's layout).
Tensor EvalBitcast(const Tensor& x, const Shape& x_shape, const Shape& out);
Tensor EvalTranspose(const Tensor& x, const Shape& out,
                     const std::vector<int64_t>& permutation);
Tensor EvalSlice(const Tensor& x, const Shape& out,
                 const std::vector<SliceDimension>& slice);
Tensor EvalConcatenate(const std::vector<const Tensor*>& xs, const Shape& out,
                       int64_t dimension);
Tensor EvalPad(const Tensor& x, const Tensor& value, const Shape& out,
               const std::vector<PaddingDimension>& padding);
Tensor EvalReverse(const Tensor& x, const std::vector<int64_t>& dimensions);

}  // namespace xtune

#endif  // XTUNE_EVAL_SHAPE_OPS_H_
