// rng-bit-generator: XLA's counter-based bit generators, as the HLO names
// them (`algorithm=rng_default|rng_three_fry|rng_philox`). The operand is
// the generator's state (u64[2], or u64[3] for Philox: the key, then the
// counter); the result is (new state, bits). rng_default is Philox, as on
// XLA:CPU and XLA:GPU. The bits are XLA's bit for bit (xla/hlo/builder/lib/
// prng.cc and the rng-bit-generator expander): eval/rng.cc computes them
// directly, fusion/rng_expander.cc as HLO that every backend runs.
#ifndef XTUNE_IR_RNG_H_
#define XTUNE_IR_RNG_H_

#include "absl/status/statusor.h"
#include "ir/instruction.h"

namespace xtune {

enum class RngAlgorithm { kThreeFry, kPhilox };

// The algorithm `inst` (an rng-bit-generator) runs; InvalidArgument for an
// unknown `algorithm=` value.
absl::StatusOr<RngAlgorithm> RngAlgorithmOf(const Instruction& inst);

// Checks operand and declared shape: a u64[2] state (u64[2] or u64[3] for
// Philox) and (that state, an integer array). Returns the declared shape.
absl::StatusOr<Shape> InferRngBitGenerator(const Instruction& inst);

}  // namespace xtune

#endif  // XTUNE_IR_RNG_H_
