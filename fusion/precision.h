// --xla_allow_excess_precision=false for generated kernels: a copy of a
// fused computation in which every f16/bf16 value that an op may compute
// beyond its element type's precision is rounded to that type right away.
//
// Kernels compute f16/bf16 arithmetic in f32 and, left alone, round only at
// converts and stores (excess precision, which XLA allows by default). The
// copy makes each such result explicit: `y = f16 op(...)` is followed by
// `f16 convert(f32 convert(y))`, which every generator emits as one
// rounding, and y's users read the rounded value. The same applies inside
// called computations, so a reduce with an f16 add accumulates in f16,
// rounding after every combine, in the order the generator visits the
// elements. The cache key stays that of the original computation.
#ifndef XTUNE_FUSION_PRECISION_H_
#define XTUNE_FUSION_PRECISION_H_

#include <memory>

#include "ir/module.h"

namespace xtune {

// Whether `inst` (an f16/bf16 result) may hold more precision than its type
// in a kernel that computes in f32: arithmetic, math functions and dots.
// Moves, selects, min/max, negate/abs, converts and constants cannot.
bool MayExceedPrecision(const Instruction& inst);

// A module whose entry is `computation` with every MayExceedPrecision
// result rounded to its element type (called computations likewise).
// Names of inserted instructions end in ".round".
std::unique_ptr<Module> RoundEveryLowPrecisionResult(
    const Computation& computation);

}  // namespace xtune

#endif  // XTUNE_FUSION_PRECISION_H_
