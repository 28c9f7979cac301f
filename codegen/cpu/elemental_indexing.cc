// Elemental code for the indexing family: dynamic-slice,
// dynamic-update-slice and gather compute the operand index of each output
// element from the start indices they load, with XLA's clamp
// (xt_clamp_start, the kernel-side twin of ir/indexing.h's
// ClampSliceStart). Scalar mode only: the start indices are per element
// (gather) or scalars that a vector lane cannot carry.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/elemental.h"
#include "ir/indexing.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

absl::Status VectorModeError(const Instruction* inst) {
  return absl::UnimplementedError(
      absl::StrCat(OpcodeName(inst->opcode()), " in vector mode"));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ElementalEmitter::EmitClampedStarts(
    const Instruction* inst, int64_t first, const Shape& slice,
    CodeBuffer* out) {
  const Shape& operand = inst->operand(0)->shape();
  std::vector<std::string> starts;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    XTUNE_ASSIGN_OR_RETURN(std::string s,
                           Emit(inst->operand(first + d), {}, out));
    std::string v = out->Fresh("start");
    out->Linef("const int64_t ", v, " = xt_clamp_start((int64_t)", s, ", ",
               operand.dim(d), ", ", slice.dim(d), ");");
    starts.push_back(v);
  }
  return starts;
}

absl::StatusOr<std::string> ElementalEmitter::EmitDynamicSlice(
    const Instruction* inst, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  if (width_ > 1) return VectorModeError(inst);
  XTUNE_ASSIGN_OR_RETURN(std::vector<std::string> starts,
                         EmitClampedStarts(inst, 1, inst->shape(), out));
  std::vector<IndexExpr> op_index;
  for (size_t d = 0; d < index.size(); ++d) {
    op_index.push_back({absl::StrCat("(", index[d].base, " + ", starts[d], ")"),
                        0});
  }
  return Emit(inst->operand(0), op_index, out);
}

absl::StatusOr<std::string> ElementalEmitter::EmitDynamicUpdateSlice(
    const Instruction* inst, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  if (width_ > 1) return VectorModeError(inst);
  const Shape& update = inst->operand(1)->shape();
  XTUNE_ASSIGN_OR_RETURN(std::vector<std::string> starts,
                         EmitClampedStarts(inst, 2, update, out));
  std::vector<std::string> inside;
  std::vector<IndexExpr> update_index;
  for (size_t d = 0; d < index.size(); ++d) {
    std::string rel = absl::StrCat("(", index[d].base, " - ", starts[d], ")");
    inside.push_back(absl::StrCat(rel, " >= 0 && ", rel, " < ", update.dim(d)));
    update_index.push_back({rel, 0});
  }
  std::string v = out->Fresh();
  out->Linef(ScalarType(inst->shape().dtype()), " ", v, ";");
  out->Open(absl::StrCat(
      "if (", inside.empty() ? "true" : absl::StrJoin(inside, " && "), ")"));
  XTUNE_ASSIGN_OR_RETURN(std::string u, Emit(inst->operand(1), update_index, out));
  out->Linef(v, " = ", u, ";");
  out->Close();
  out->Open("else");
  XTUNE_ASSIGN_OR_RETURN(std::string x, Emit(inst->operand(0), index, out));
  out->Linef(v, " = ", x, ";");
  out->Close();
  return v;
}

absl::StatusOr<std::string> ElementalEmitter::EmitGather(
    const Instruction* inst, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  if (width_ > 1) return VectorModeError(inst);
  const IndexingPlan plan = MakeGatherPlan(*inst);
  const Shape& operand = inst->operand(0)->shape();
  const Instruction* indices = inst->operand(1);
  // The indices' position for this output element; component c goes at
  // index_vector_dim.
  std::vector<IndexExpr> position;
  for (int64_t src : plan.indices_dim_source) {
    position.push_back(src >= 0 ? index[src] : IndexExpr{"0", 0});
  }
  std::vector<IndexExpr> op_index;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const OperandDimSource& s = plan.operand[d];
    std::string pos = "0";
    if (s.start_component >= 0) {
      std::vector<IndexExpr> at = position;
      if (plan.index_vector_dim < static_cast<int64_t>(at.size())) {
        at[plan.index_vector_dim] = {absl::StrCat(s.start_component), 0};
      }
      XTUNE_ASSIGN_OR_RETURN(std::string start, Emit(indices, at, out));
      pos = out->Fresh("start");
      out->Linef("const int64_t ", pos, " = xt_clamp_start((int64_t)", start,
                 ", ", operand.dim(d), ", ", s.size, ");");
    } else if (s.batch_indices_dim >= 0) {
      pos = absl::StrCat("(", position[s.batch_indices_dim].base, ")");
    }
    if (s.window_dim >= 0) {
      pos = absl::StrCat("(", pos, " + ", index[s.window_dim].base, ")");
    }
    op_index.push_back({pos, 0});
  }
  return Emit(inst->operand(0), op_index, out);
}

}  // namespace xtune::cpu
