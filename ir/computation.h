// Computation: a named list of instructions with parameters and a root,
// owned by its Module. Instructions are kept in definition order, which is a
// valid topological order (operands are defined before their users).
#ifndef XTUNE_IR_COMPUTATION_H_
#define XTUNE_IR_COMPUTATION_H_

#include "absl/strings/string_view.h"
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/instruction.h"

namespace xtune {

class Module;

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  const std::string& name() const { return name_; }

  // Takes ownership; the instruction's operands must already belong to this
  // computation. Returns the stored pointer.
  Instruction* AddInstruction(std::unique_ptr<Instruction> instruction);

  const std::vector<std::unique_ptr<Instruction>>& instructions() const {
    return instructions_;
  }
  // Looks an instruction up by name; nullptr when absent.
  Instruction* FindInstruction(absl::string_view name) const;

  // Parameters indexed by parameter number (filled by SetParameters()).
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  Instruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t parameter_count() const {
    return static_cast<int64_t>(parameters_.size());
  }
  void set_parameters(std::vector<Instruction*> params) {
    parameters_ = std::move(params);
  }

  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }

  Module* parent() const { return parent_; }
  void set_parent(Module* parent) { parent_ = parent; }
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }

  // XLA's post order: a depth-first post order from each instruction that
  // has no users, taken in definition order. Operands come before users.
  std::vector<const Instruction*> PostOrder() const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  absl::flat_hash_map<std::string, Instruction*> by_name_;
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  Module* parent_ = nullptr;
  SourceLocation location_;
};

}  // namespace xtune

#endif  // XTUNE_IR_COMPUTATION_H_
