#include "fusion/in_place.h"

#include "fusion/fusion_pass.h"

namespace xtune {

std::optional<int64_t> InPlaceDusParameter(const Computation& fused) {
  const Instruction* root = fused.root();
  if (root == nullptr || root->opcode() != Opcode::kDynamicUpdateSlice ||
      !root->shape().IsArray()) {
    return std::nullopt;
  }
  const Instruction* operand = root->operand(0);
  if (operand->opcode() != Opcode::kParameter ||
      operand->users().size() != 1 || !(operand->shape() == root->shape())) {
    return std::nullopt;
  }
  // The parameter is read by the root once, as the updated array.
  for (size_t i = 1; i < root->operands().size(); ++i) {
    if (root->operand(i) == operand) return std::nullopt;
  }
  return operand->attrs().parameter_number;
}

std::optional<int64_t> InPlaceOperand(const Instruction& fusion) {
  if (fusion.opcode() != Opcode::kFusion ||
      ClassifyFusion(fusion) != FusionKind::kLoop) {
    return std::nullopt;
  }
  return InPlaceDusParameter(*fusion.called_computations()[0]);
}

}  // namespace xtune
