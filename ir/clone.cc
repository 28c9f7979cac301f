#include "ir/clone.h"

#include "absl/container/flat_hash_map.h"

namespace xtune {

std::unique_ptr<Instruction> CloneInstruction(
    const Instruction& src, std::string name,
    const std::vector<Instruction*>& operands,
    const ComputationMap& map_computation) {
  auto copy = std::make_unique<Instruction>(std::move(name), src.opcode(),
                                            src.shape());
  if (src.has_attrs()) *copy->mutable_attrs() = src.attrs();
  copy->set_location(src.location());
  for (Instruction* op : operands) copy->AppendOperand(op);
  for (const Computation* c : src.called_computations()) {
    copy->AppendCalledComputation(map_computation(c));
  }
  return copy;
}

Computation* CopyComputation(const Computation& src, Module* dst,
                             std::string name,
                             const ComputationMap& map_computation,
                             const AfterClone& after_clone) {
  auto copy = std::make_unique<Computation>(std::move(name));
  copy->set_location(src.location());
  absl::flat_hash_map<const Instruction*, Instruction*> mapped;
  for (const auto& inst : src.instructions()) {
    std::vector<Instruction*> operands;
    for (const Instruction* op : inst->operands()) operands.push_back(mapped[op]);
    Instruction* clone = copy->AddInstruction(
        CloneInstruction(*inst, inst->name(), operands, map_computation));
    mapped[inst.get()] = after_clone ? after_clone(copy.get(), clone) : clone;
  }
  std::vector<Instruction*> params;
  for (const Instruction* p : src.parameters()) params.push_back(mapped[p]);
  copy->set_parameters(std::move(params));
  copy->set_root(mapped[src.root()]);
  return dst->AddComputation(std::move(copy));
}

}  // namespace xtune
