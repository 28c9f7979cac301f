// Elementwise operations of the evaluator, with XLA's semantics:
// f16/bf16/f32 compute in f32 and round to the element type on store, f64
// in f64; integers wrap; integer division by zero gives -1 (unsigned: the
// maximum) and x % 0 gives x; INT_MIN / -1 gives INT_MIN; float max/min
// propagate NaN (and so does clamp); float -> int conversion saturates and
// maps NaN to 0; int -> f16/bf16 converts through f32; integer power with a
// negative exponent is 0 (1 for base 1).
#ifndef XTUNE_EVAL_ELEMENTWISE_H_
#define XTUNE_EVAL_ELEMENTWISE_H_

#include <string>

#include "absl/status/statusor.h"
#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

// One binary op on scalars already of element type `t`; the result is
// rounded/wrapped to `t`. Used by elementwise evaluation and reductions.
double BinaryFloat(Opcode op, double a, double b, DType t);
int64_t BinaryInt(Opcode op, int64_t a, int64_t b, DType t);

// `x` has the operand's dtype; the result has `out` (== x's for all unary
// ops but convert and is-finite). Unimplemented for ops outside the subset.
absl::StatusOr<Tensor> EvalUnary(Opcode op, const Tensor& x, DType out);
absl::StatusOr<Tensor> EvalBinary(Opcode op, const Tensor& a, const Tensor& b);
// `type` is the compare's `type=` attribute ("" for the default).
Tensor EvalCompare(ComparisonDirection direction, const std::string& type,
                   const Tensor& a, const Tensor& b);
// Scalar predicates and bounds broadcast.
Tensor EvalSelect(const Tensor& pred, const Tensor& on_true,
                  const Tensor& on_false);
Tensor EvalClamp(const Tensor& lo, const Tensor& x, const Tensor& hi);
// Reinterprets element bits; `out` is the result array shape.
Tensor EvalBitcastConvert(const Tensor& x, const Shape& out);

// reduce-precision of `v`, a value of float type `t` (rounded to it first):
// XLA's bit algorithm on t's own format (mantissa rounded to nearest even,
// exponents out of range to signed zero or infinity, NaN kept; NaN becomes
// +inf when no mantissa bit is left).
double ReducePrecision(double v, DType t, int exponent_bits,
                       int mantissa_bits);

// The order of compare's TOTALORDER on floats as an integer key:
// -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
int64_t TotalOrderKey(double v);

}  // namespace xtune

#endif  // XTUNE_EVAL_ELEMENTWISE_H_
