// Collectives as one replica sees them, written once for every layer
// (shape inference, the evaluator, the fusion pass's flattening). xtune runs
// a module on one device: replica and partition ids are 0, and each
// collective's group holds that one participant:
//  - all-reduce, all-gather, reduce-scatter and all-to-all return their
//    operands unchanged (a gather or scatter over one participant);
//  - collective-permute returns its operand when the pair {0,0} (replica 0
//    sends to itself) is among its source_target_pairs, else zeros (no one
//    sends to replica 0: XLA's rule for targets without a source);
//  - replica-id and partition-id are u32[] 0.
// A module built for several replicas or partitions (replica_count or
// num_partitions above 1 in its header) runs with these semantics too,
// with a warning (ReplicaWarning).
#ifndef XTUNE_IR_COLLECTIVES_H_
#define XTUNE_IR_COLLECTIVES_H_

#include <string>

#include "ir/instruction.h"
#include "ir/module.h"

namespace xtune {

// Whether `op` is one of the collectives above (all-reduce included).
bool IsCollective(Opcode op);

// For a collective-permute: whether replica 0 sends to itself.
bool PermuteKeepsReplicaZero(const Instruction& permute);

// A warning (empty when none) for a module whose header asks for more than
// one replica or partition.
std::string ReplicaWarning(const Module& module);

}  // namespace xtune

#endif  // XTUNE_IR_COLLECTIVES_H_
