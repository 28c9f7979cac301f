// In-place fusions: which fusion outputs may share their buffer with one of
// the fusion's operands, as XLA's buffer assignment shares a
// dynamic-update-slice fusion's output with the operand it updates
// (HloDataflowAnalysis::GetInPlaceInputOutputPairs).
//
// A loop fusion whose root is a dynamic-update-slice of one of its
// parameters (used by nothing else in the fusion, with the root's shape and
// layout) is in place: its kernels on every backend write only the update's
// window when the output buffer is that operand's buffer, and first copy
// the operand into the output when it is not. The executable
// (runtime/executable.h) gives such a fusion its operand's buffer when the
// operand is read by nothing that runs later, so a `lax.scan` writing one
// slice of its stacked outputs per iteration moves the slice, not the
// stack.
#ifndef XTUNE_FUSION_IN_PLACE_H_
#define XTUNE_FUSION_IN_PLACE_H_

#include <cstdint>
#include <optional>

#include "ir/computation.h"
#include "ir/instruction.h"

namespace xtune {

// The parameter number of `fused` (a fused computation) that its root
// dynamic-update-slice updates in place, or nullopt when the root is not
// such a dynamic-update-slice.
std::optional<int64_t> InPlaceDusParameter(const Computation& fused);

// The operand index of `fusion` (a fusion instruction) whose buffer its
// output may share: InPlaceDusParameter of its computation, for loop
// fusions only.
std::optional<int64_t> InPlaceOperand(const Instruction& fusion);

}  // namespace xtune

#endif  // XTUNE_FUSION_IN_PLACE_H_
