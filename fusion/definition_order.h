// Putting instructions back in definition order, in linear time.
//
// The planner and the fused-computation builder both order sets of
// instructions by their position in the flattened entry. A comparison sort
// costs n log n comparisons, each two hash lookups; on a module of a million
// instructions with one long chain (one fusion) that was a tenth of `xtune
// fuse`. These helpers look each position up once and sort by a radix sort
// on the position: linear in the number of instructions.
#ifndef XTUNE_FUSION_DEFINITION_ORDER_H_
#define XTUNE_FUSION_DEFINITION_ORDER_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/instruction.h"

namespace xtune {

// Each instruction's position in its computation (0, 1, ...).
using Positions = absl::flat_hash_map<const Instruction*, int>;

// The indices 0..keys.size()-1 ordered by their key, equal keys in index
// order (stable). Keys are non-negative. Linear time: a comparison sort for
// short inputs, a least-significant-digit radix sort (16-bit digits) for
// long ones.
std::vector<uint32_t> OrderByKey(const std::vector<uint32_t>& keys);

// Sorts `insts` by their position in `pos`, which holds every one of them.
void SortByPosition(std::vector<const Instruction*>& insts, const Positions& pos);

}  // namespace xtune

#endif  // XTUNE_FUSION_DEFINITION_ORDER_H_
