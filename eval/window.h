// The evaluator's windowed operations.
//
// convolution: XLA's semantics (StableHLO's spec) for any rank, dim_labels,
// window (stride, padding, lhs/rhs dilation, reversal), feature groups (the
// input features and the output features split into that many groups, each
// group convolved alone) and batch groups (the input batch and the output
// features split likewise). Accumulates as the dot does (eval/dot.h): in
// f32 for 8/16/32-bit floats, f64 with an f64, int64 for integers; each
// output element sums over its kernel positions (row-major, spatial
// dimension 0 first), then input features.
//
// reduce-window (N inputs): per output position, the window's elements in
// row-major order of the window, padding and base-dilation holes skipped
// (as XLA's evaluator), combined from the initial values with to_apply.
//
// select-and-scatter: per window (row-major), the first element `select`
// prefers (select(current, candidate) false moves to the candidate) gets
// the window's source value combined into it with `scatter`; every output
// element starts at the initial value. Padding positions are never
// selected.
#ifndef XTUNE_EVAL_WINDOW_H_
#define XTUNE_EVAL_WINDOW_H_

#include <vector>

#include "absl/status/statusor.h"
#include "eval/reduce.h"
#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

Tensor EvalConvolution(const Tensor& lhs, const Tensor& rhs,
                       const InstructionAttrs& attrs, const Shape& out);

absl::StatusOr<Tensor> EvalReduceWindow(const std::vector<const Tensor*>& inputs,
                                        const std::vector<const Tensor*>& inits,
                                        const std::vector<WindowDimension>& window,
                                        const Computation& to_apply, const Shape& out,
                                        const ComputationRunner& run);

// XLA's cuDNN convolution custom-calls (ir/conv_call.h): the result and
// zeros for the scratch. Operands are read in their declared types.
absl::StatusOr<Tensor> EvalConvCall(const Instruction& inst,
                                    const std::vector<const Tensor*>& ops, const Shape& out);

absl::StatusOr<Tensor> EvalSelectAndScatter(const Tensor& operand, const Tensor& source,
                                            const Tensor& init,
                                            const std::vector<WindowDimension>& window,
                                            const Computation& select,
                                            const Computation& scatter,
                                            const ComputationRunner& run);

}  // namespace xtune

#endif  // XTUNE_EVAL_WINDOW_H_
