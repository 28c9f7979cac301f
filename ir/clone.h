// Copying IR between computations and modules: the building blocks of
// passes that construct new modules (fusion).
#ifndef XTUNE_IR_CLONE_H_
#define XTUNE_IR_CLONE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/module.h"

namespace xtune {

// Maps a computation of the source module to its copy in the destination.
using ComputationMap = std::function<Computation*(const Computation*)>;

// A copy of `src` (opcode, shape, attributes, source location) named `name`
// with the given operands, which must belong to the computation the copy
// will be added to. Called computations go through `map_computation`.
std::unique_ptr<Instruction> CloneInstruction(
    const Instruction& src, std::string name,
    const std::vector<Instruction*>& operands,
    const ComputationMap& map_computation);

// Given the copy of an instruction (already in `computation`), returns
// the value its users read instead (the copy itself, or something built on
// it in `computation`).
using AfterClone =
    std::function<Instruction*(Computation* computation, Instruction* copy)>;

// Copies `src` into `dst` under `name` (instructions keep their names),
// mapping its called computations through `map_computation`, and, when
// `after_clone` is given, each instruction's users through it. Returns the
// copy, owned by `dst`.
Computation* CopyComputation(const Computation& src, Module* dst,
                             std::string name,
                             const ComputationMap& map_computation,
                             const AfterClone& after_clone = nullptr);

}  // namespace xtune

#endif  // XTUNE_IR_CLONE_H_
