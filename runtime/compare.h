// Comparing computed outputs with reference outputs, with XLA's rule: two
// floats mismatch iff |a - b| / (max(|a|, |b|) + 1) > tolerance; NaN matches
// NaN, infinities must be equal; integers and pred must be equal.
#ifndef XTUNE_RUNTIME_COMPARE_H_
#define XTUNE_RUNTIME_COMPARE_H_

#include "absl/status/status.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace xtune {

struct CompareOptions {
  double f32_tolerance = 1e-3;   // f32 and f64
  double f16_tolerance = 2e-2;   // f16 and bf16
};

// The tolerance a module's outputs are verified with against the evaluator
// (--verify): the defaults, and f32 within kTf32Tolerance when the kernels
// ran TF32 dots (`tf32_dots`, Backend::Tf32Dots) and `module` has one.
CompareOptions VerifyTolerance(const Module& module, bool tf32_dots);

// OK when `actual` matches `expected` element by element (shapes must be
// compatible; layouts may differ). Otherwise InvalidArgument naming the
// number of mismatches, the worst one (index, both values) and `what`.
absl::Status CompareLiterals(const Literal& expected, const Literal& actual,
                             absl::string_view what,
                             const CompareOptions& options = {});

}  // namespace xtune

#endif  // XTUNE_RUNTIME_COMPARE_H_
