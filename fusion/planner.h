// The fusion planner: decides which instructions of a flattened entry
// computation go together into one fusion (see fusion_pass.h for the rules).
#ifndef XTUNE_FUSION_PLANNER_H_
#define XTUNE_FUSION_PLANNER_H_

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fusion/fusion_pass.h"
#include "ir/computation.h"

namespace xtune {

struct FusionGroup {
  FusionKind kind;
  // Members computed only by this fusion, in definition order. The last one
  // is the root (the fusion's single output).
  std::vector<const Instruction*> members;
  // Cheap instructions (constants, iotas, broadcasts) copied into this
  // fusion; they may also live elsewhere.
  absl::flat_hash_set<const Instruction*> duplicated;
  const Instruction* root() const { return members.back(); }
};

// Plans the fusions of `flat` (a flattened entry computation). Instructions
// in no group are parameters, constants, tuples, get-tuple-elements and
// fusions that already existed.
std::vector<FusionGroup> PlanFusions(const Computation& flat);

}  // namespace xtune

#endif  // XTUNE_FUSION_PLANNER_H_
