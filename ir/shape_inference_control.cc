// Shape inference for control flow: while, conditional, opt-barrier.
#include "absl/strings/str_cat.h"
#include "ir/shape_inference_internal.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

// `c` takes one parameter compatible with `arg` (the caller's operand).
absl::Status CheckTakes(const Computation* c, const Shape& arg,
                        absl::string_view role) {
  if (c->parameter_count() != 1) {
    return Invalid(absl::StrCat(role, " '", c->name(), "' takes ",
                                c->parameter_count(),
                                " parameters, expected 1"));
  }
  if (!c->parameter(0)->shape().Compatible(arg)) {
    return Invalid(absl::StrCat(role, " '", c->name(), "' takes ",
                                c->parameter(0)->shape().ToString(false),
                                " but is given ", arg.ToString(false)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferWhile(const Instruction& inst) {
  if (inst.called_computations().size() != 2) {
    return Invalid("while needs a condition and a body");
  }
  if (inst.operand_count() != 1) {
    return Invalid(absl::StrCat("while takes 1 operand (the loop state), got ",
                                inst.operand_count()));
  }
  const Shape& state = inst.operand(0)->shape();
  const Computation* cond = inst.called_computations()[0];
  const Computation* body = inst.called_computations()[1];
  XTUNE_RETURN_IF_ERROR(CheckTakes(cond, state, "while condition"));
  XTUNE_RETURN_IF_ERROR(CheckTakes(body, state, "while body"));
  if (!cond->root()->shape().Compatible(Shape(DType::kPred, {}))) {
    return Invalid(absl::StrCat("while condition '", cond->name(),
                                "' returns ",
                                cond->root()->shape().ToString(false),
                                ", expected pred[]"));
  }
  if (!body->root()->shape().Compatible(state)) {
    return Invalid(absl::StrCat("while body '", body->name(), "' returns ",
                                body->root()->shape().ToString(false),
                                " but the loop state is ",
                                state.ToString(false)));
  }
  return state;
}

absl::StatusOr<Shape> InferConditional(const Instruction& inst) {
  const std::vector<Computation*>& branches = inst.called_computations();
  if (branches.empty()) return Invalid("conditional needs branches");
  if (inst.operand_count() != static_cast<int64_t>(branches.size()) + 1) {
    return Invalid(absl::StrCat(
        "conditional takes the branch selector and one operand per branch (",
        branches.size(), "), got ", inst.operand_count(), " operands"));
  }
  const Shape& selector = inst.operand(0)->shape();
  const bool pred = selector.IsArray() && selector.rank() == 0 &&
                    selector.dtype() == DType::kPred;
  const bool index = selector.IsArray() && selector.rank() == 0 &&
                     selector.dtype() == DType::kS32;
  if (!pred && !index) {
    return Invalid(absl::StrCat("conditional's selector must be pred[] or "
                                "s32[], got ",
                                selector.ToString(false)));
  }
  if (pred && branches.size() != 2) {
    return Invalid("a conditional on a pred takes exactly two branches");
  }
  const Shape& result = branches[0]->root()->shape();
  for (size_t b = 0; b < branches.size(); ++b) {
    XTUNE_RETURN_IF_ERROR(CheckTakes(branches[b], inst.operand(b + 1)->shape(),
                                     "conditional branch"));
    if (!branches[b]->root()->shape().Compatible(result)) {
      return Invalid(absl::StrCat("conditional branches return different "
                                  "shapes: ",
                                  result.ToString(false), " and ",
                                  branches[b]->root()->shape().ToString(false)));
    }
  }
  return result;
}

absl::StatusOr<Shape> InferOptimizationBarrier(const Instruction& inst) {
  if (inst.operand_count() != 1) {
    return Invalid(absl::StrCat("opt-barrier takes 1 operand, got ",
                                inst.operand_count()));
  }
  return inst.operand(0)->shape();
}

absl::StatusOr<Shape> InferMap(const Instruction& inst) {
  if (inst.operand_count() < 1) {
    return absl::InvalidArgumentError("map needs at least one operand");
  }
  const Shape& first = inst.operand(0)->shape();
  std::vector<DType> params;
  for (const Instruction* o : inst.operands()) {
    if (!o->shape().IsArray() || o->shape().dims() != first.dims()) {
      return absl::InvalidArgumentError(
          "map operands must be arrays of the same dimensions");
    }
    params.push_back(o->shape().dtype());
  }
  const Computation* f = inst.called_computations()[0];
  const DType result = f->root()->shape().IsArray()
                           ? f->root()->shape().dtype()
                           : DType::kTuple;
  XTUNE_RETURN_IF_ERROR(
      CheckScalarComputation(f, params, {result}, "map's to_apply"));
  // xtune applies the computation as elementwise operations on the whole
  // arrays (fusion/flatten.cc): scalar elementwise ops and constants only.
  for (const auto& i : f->instructions()) {
    const Opcode op = i->opcode();
    if (op != Opcode::kParameter && op != Opcode::kConstant &&
        !IsElementwise(op)) {
      return absl::UnimplementedError(absl::StrCat(
          "map's to_apply '", f->name(), "' uses '", OpcodeName(op),
          "': xtune maps computations of elementwise operations only"));
    }
  }
  return Shape(result, first.dims());
}

}  // namespace xtune
