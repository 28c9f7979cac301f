#include "ir/computation.h"

#include <utility>

#include "absl/container/flat_hash_set.h"

namespace xtune {

Instruction* Computation::AddInstruction(
    std::unique_ptr<Instruction> instruction) {
  Instruction* raw = instruction.get();
  raw->set_parent(this);
  by_name_[raw->name()] = raw;
  instructions_.push_back(std::move(instruction));
  return raw;
}

Instruction* Computation::FindInstruction(absl::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<const Instruction*> Computation::PostOrder() const {
  std::vector<const Instruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const Instruction*> visited;
  // Iterative DFS: (instruction, next operand to visit).
  std::vector<std::pair<const Instruction*, size_t>> stack;
  auto visit = [&](const Instruction* start) {
    if (!visited.insert(start).second) return;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      if (next < inst->operands().size()) {
        const Instruction* op = inst->operand(next++);
        if (visited.insert(op).second) stack.push_back({op, 0});
      } else {
        order.push_back(inst);
        stack.pop_back();
      }
    }
  };
  for (const auto& inst : instructions_) {
    if (inst->users().empty()) visit(inst.get());
  }
  // Instructions whose users are all unreachable (cannot happen in a
  // well-formed computation, where users are always reachable from a
  // user-less instruction) are still emitted, in definition order.
  for (const auto& inst : instructions_) visit(inst.get());
  return order;
}

}  // namespace xtune
