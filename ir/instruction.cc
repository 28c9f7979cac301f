#include "ir/instruction.h"

#include <algorithm>

#include "ir/computation.h"

namespace xtune {

absl::string_view ComparisonDirectionName(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq:
      return "EQ";
    case ComparisonDirection::kNe:
      return "NE";
    case ComparisonDirection::kGe:
      return "GE";
    case ComparisonDirection::kGt:
      return "GT";
    case ComparisonDirection::kLe:
      return "LE";
    case ComparisonDirection::kLt:
      return "LT";
  }
  return "EQ";
}

void Instruction::AppendOperand(Instruction* operand) {
  // `this` is among the operand's users iff the operand is already among
  // this instruction's operands: search whichever list is shorter, so one
  // value with many users and one tuple with many operands both build in
  // linear time.
  std::vector<Instruction*>& users = operand->users_;
  bool known = operands_.size() < users.size()
                   ? std::find(operands_.begin(), operands_.end(), operand) !=
                         operands_.end()
                   : std::find(users.begin(), users.end(), this) != users.end();
  if (!known) users.push_back(this);
  operands_.push_back(operand);
}

const InstructionAttrs& Instruction::DefaultAttrs() {
  static const InstructionAttrs* const kDefault = new InstructionAttrs();
  return *kDefault;
}

bool Instruction::Identical(const Instruction& other) const {
  if (opcode_ != other.opcode_ || name_ != other.name_ ||
      shape_ != other.shape_ || operands_.size() != other.operands_.size() ||
      called_.size() != other.called_.size()) {
    return false;
  }
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (operands_[i]->name() != other.operands_[i]->name()) return false;
  }
  for (size_t i = 0; i < called_.size(); ++i) {
    if (called_[i]->name() != other.called_[i]->name()) return false;
  }
  const InstructionAttrs& a = attrs();
  const InstructionAttrs& b = other.attrs();
  return a.parameter_number == b.parameter_number &&
         a.dimensions == b.dimensions && a.dot == b.dot &&
         a.slice == b.slice && a.padding == b.padding &&
         a.slice_sizes == b.slice_sizes && a.gather == b.gather &&
         a.scatter == b.scatter && a.window == b.window && a.conv == b.conv &&
         a.feature_group_count == b.feature_group_count &&
         a.batch_group_count == b.batch_group_count &&
         a.indices_are_sorted == b.indices_are_sorted &&
         a.unique_indices == b.unique_indices &&
         a.direction == b.direction &&
         a.comparison_type == b.comparison_type &&
         a.tuple_index == b.tuple_index &&
         a.iota_dimension == b.iota_dimension &&
         a.fusion_kind == b.fusion_kind && a.literal == b.literal &&
         a.literal_elided == b.literal_elided &&
         a.backend_config == b.backend_config && a.other == b.other;
}

}  // namespace xtune
