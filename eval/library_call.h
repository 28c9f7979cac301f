// The evaluator's library calls (ir/library_call.h): XLA's cuBLAS gemm
// custom-calls computed directly from their semantics — the dot as
// eval/dot.h computes it (f32 accumulation, f64 for f64), then alpha,
// beta * C, the bias, the activation in double, each output rounded once to
// its type; the workspace is zeros.
#ifndef XTUNE_EVAL_LIBRARY_CALL_H_
#define XTUNE_EVAL_LIBRARY_CALL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

// `inst` (a custom-call) on `ops`, producing `out` (its shape). With `tf32`,
// f32 operands of a call whose precision is DEFAULT are rounded to TF32
// first (ir/dot_precision.h). Errors as ReadGemmCall.
absl::StatusOr<Tensor> EvalLibraryCall(const Instruction& inst,
                                       const std::vector<const Tensor*>& ops,
                                       const Shape& out, bool tf32);

}  // namespace xtune

#endif  // XTUNE_EVAL_LIBRARY_CALL_H_
