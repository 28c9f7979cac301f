// Expansions the flatten pass (fusion/flatten.h) applies before fusion, so
// that every backend runs these operations as ordinary fused HLO:
// - rng-bit-generator as XLA's rng-bit-generator expander writes it: the
//   ThreeFry-2x32 or Philox-4x32 rounds on u32 arrays of counters built
//   from iotas (ir/rng.h; eval/rng.cc is the direct reference);
// - bitcast-convert between element types of different widths (JAX turns
//   a u32[4] key into the u64[2] state with one) as slices, shifts and ors
//   of unsigned integers, little-endian as XLA's.
#ifndef XTUNE_FUSION_RNG_EXPANDER_H_
#define XTUNE_FUSION_RNG_EXPANDER_H_

#include "absl/status/statusor.h"
#include "fusion/hlo_builder.h"
#include "ir/instruction.h"

namespace xtune {

// rng-bit-generator `inst` on `state` (its operand, already in the builder's
// computation); returns the tuple (new state, bits).
absl::StatusOr<Instruction*> ExpandRngBitGenerator(const Instruction& inst,
                                                   Instruction* state,
                                                   HloBuilder& b);

// Whether `inst` is a bitcast-convert that changes the element width.
bool IsWideningOrNarrowingBitcast(const Instruction& inst);

// That bitcast-convert of `x` (already in the builder's computation).
Instruction* ExpandWidthBitcast(const Instruction& inst, Instruction* x,
                                HloBuilder& b);

}  // namespace xtune

#endif  // XTUNE_FUSION_RNG_EXPANDER_H_
