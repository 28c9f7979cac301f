// Flattening before fusion: a copy of the entry computation (or of a while
// body or a branch) with `call`s inlined (recursively), single-replica
// all-reduces and opt-barriers replaced by their operands, library
// custom-calls expanded into fusions (fusion/library_call_expander.h), and
// instructions the root does not use removed.
#ifndef XTUNE_FUSION_FLATTEN_H_
#define XTUNE_FUSION_FLATTEN_H_

#include "ir/module.h"

namespace xtune {

// Adds the flattened copy of `src.entry()` to `scratch` and returns it.
// Called computations of kept instructions (reduce's to_apply, existing
// fusions' bodies) still point into `src`; expanded library calls'
// computations are added to `scratch`.
Computation* FlattenEntry(const Module& src, Module* scratch);
// The same for any computation of `src`'s module (a while body, a branch).
Computation* FlattenComputation(const Computation& src, Module* scratch);

}  // namespace xtune

#endif  // XTUNE_FUSION_FLATTEN_H_
