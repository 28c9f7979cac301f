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

// The longest sum one output element of `fused` (a fusion's computation,
// nested computations included) adds up: a dot's contraction, a
// convolution's window x input features per group, a reduce's or
// reduce-window's reduced elements; 1 with none.
int64_t LongestSum(const Computation& fused);

// The tolerance of a GPU run of a fusion's kernel against the emulator's
// run of the same kernel source. The two differ only in the order of
// floating-point sums (the tensor cores add inside an mma in an order of
// their own) and in FMA contraction (NVRTC fuses multiply-adds, the host
// compiler may not), so a sum of L terms may differ by a few units in the
// last place per term: f32 within 1e-5 + 16 * L * 2^-24 (1e-5 at L = 1,
// about 4e-3 at L = 4096), relative with XLA's +1 in the denominator;
// f16/bf16 outputs within their default (2e-2), which a rounding flip of
// the 16-bit output dominates.
CompareOptions EmulatorMatchTolerance(const Computation& fused);

// OK when `actual` matches `expected` element by element (shapes must be
// compatible; layouts may differ). Otherwise InvalidArgument naming the
// number of mismatches, the worst one (index, both values) and `what`.
absl::Status CompareLiterals(const Literal& expected, const Literal& actual,
                             absl::string_view what,
                             const CompareOptions& options = {});

}  // namespace xtune

#endif  // XTUNE_RUNTIME_COMPARE_H_
