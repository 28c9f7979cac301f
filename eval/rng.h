// rng-bit-generator in the evaluator: XLA's ThreeFry-2x32 (20 rounds) and
// Philox-4x32 (10 rounds) counter-based generators computed directly,
// element by element, as the reference the backends (which run the HLO
// expansion of fusion/rng_expander.h) are checked against. See ir/rng.h.
#ifndef XTUNE_EVAL_RNG_H_
#define XTUNE_EVAL_RNG_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "eval/tensor.h"
#include "ir/instruction.h"

namespace xtune {

// The tuple (new state, bits) of rng-bit-generator `inst` on `state`.
absl::StatusOr<Tensor> EvalRngBitGenerator(const Instruction& inst,
                                           const Tensor& state);

// The generators' blocks, exposed for tests against published vectors.
std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter,
                                     std::array<uint32_t, 2> key);
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

}  // namespace xtune

#endif  // XTUNE_EVAL_RNG_H_
