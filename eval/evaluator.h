// The reference evaluator (the `interpreter` backend): computes an HLO
// module exactly, op by op, with XLA's semantics. It is the oracle for every
// other backend and for the autotuner's correctness checks, so it favours
// being obviously right; dots and common reductions still run as tight
// loops (a 512x512x512 f32 dot takes well under a second).
//
// Thread-safe: evaluations share no state.
#ifndef XTUNE_EVAL_EVALUATOR_H_
#define XTUNE_EVAL_EVALUATOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace xtune {

struct EvaluatorOptions {
  // Largest intermediate value, in bytes of the evaluator's working form (8
  // bytes an element), before evaluation stops with ResourceExhausted.
  // Default: 8 GiB.
  int64_t max_value_bytes = int64_t{8} << 30;
  // Excess precision (--xla_allow_excess_precision, the reference the
  // autotuner and --verify use when it is on): f16/bf16 values are kept in
  // f32 between ops, as generated kernels keep them, and rounded to their
  // type only by converts, iota, fusion outputs (stores) and the result.
  // Reductions with an f16/bf16 accumulator then accumulate in f32.
  // Default false: HLO semantics, every f16/bf16 result rounded (the
  // interpreter backend).
  bool excess_precision = false;
  // f32 dots that allow TF32 (ir/dot_precision.h) multiply their operands
  // rounded to TF32, as GPU backends from Ampere on compute them (the
  // reference for those backends, Backend::Tf32Dots). Default false.
  bool tf32_dots = false;
};

// Evaluates the entry computation of `module` on `arguments` (one per
// parameter, in order; their layouts may differ from the parameters'). The
// result has the root's shape and layout.
// Errors: InvalidArgument (wrong argument count or shapes), Unimplemented
// (an elided constant), ResourceExhausted (a value over the size limit); each
// names the instruction and its source location.
absl::StatusOr<Literal> Evaluate(const Module& module,
                                 absl::Span<const Literal> arguments,
                                 const EvaluatorOptions& options = {});

// The same for any computation of a module.
absl::StatusOr<Literal> EvaluateComputation(
    const Computation& computation, absl::Span<const Literal> arguments,
    const EvaluatorOptions& options = {});

}  // namespace xtune

#endif  // XTUNE_EVAL_EVALUATOR_H_
