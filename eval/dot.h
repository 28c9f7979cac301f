// The evaluator's dot: any batch and contracting dimensions. Accumulates in
// f32 for f16/bf16/f32 (f64 when an operand or the result is f64) and in
// int64 for integers, then rounds or wraps to the result type. Each output
// element sums its products in order of the contracting index (row-major
// over the contracting dimensions).
#ifndef XTUNE_EVAL_DOT_H_
#define XTUNE_EVAL_DOT_H_

#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

// An f32 operand as TF32 tensor cores read it (ir/dot_precision.h).
Tensor Tf32(const Tensor& t);

Tensor EvalDot(const Tensor& lhs, const Tensor& rhs, const DotDimensions& dims,
               const Shape& out);

}  // namespace xtune

#endif  // XTUNE_EVAL_DOT_H_
