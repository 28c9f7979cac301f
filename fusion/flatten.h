// Flattening before fusion: a copy of the entry computation with `call`s
// inlined (recursively), single-replica all-reduces replaced by their
// operands, and instructions the root does not use removed.
#ifndef XTUNE_FUSION_FLATTEN_H_
#define XTUNE_FUSION_FLATTEN_H_

#include "ir/module.h"

namespace xtune {

// Adds the flattened copy of `src.entry()` to `scratch` and returns it.
// Called computations of kept instructions (reduce's to_apply, existing
// fusions' bodies) still point into `src`.
Computation* FlattenEntry(const Module& src, Module* scratch);

}  // namespace xtune

#endif  // XTUNE_FUSION_FLATTEN_H_
