// Shape inference for collectives on one replica (ir/collectives.h).
#include "absl/strings/str_cat.h"
#include "ir/shape_inference_internal.h"

namespace xtune {

absl::StatusOr<Shape> InferAllReduce(const Instruction& inst) {
  if (inst.operand_count() < 1) return absl::InvalidArgumentError("all-reduce needs operands");
  std::vector<Shape> elems;
  for (const Instruction* o : inst.operands()) elems.push_back(o->shape());
  DType t = elems[0].dtype();
  absl::Status s = CheckScalarComputation(inst.called_computations()[0], {t, t}, {t},
                                          "all-reduce");
  if (!s.ok()) return s;
  if (elems.size() == 1) return elems[0];
  return Shape::Tuple(std::move(elems));
}

absl::StatusOr<Shape> InferCollective(const Instruction& inst) {
  const Opcode op = inst.opcode();
  if (op == Opcode::kReplicaId || op == Opcode::kPartitionId) {
    if (inst.operand_count() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(OpcodeName(op), " takes no operands"));
    }
    return Shape(DType::kU32, {});
  }
  if (inst.operand_count() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), " needs an operand"));
  }
  if (op == Opcode::kCollectivePermute && inst.operand_count() == 4 &&
      inst.operand(2)->shape().IsTuple()) {
    // XLA's in-place form: (input, output, input start indices, output
    // start indices) with slice_sizes, written by its collective
    // pipeliner, never by JAX.
    return absl::UnimplementedError(
        "the in-place form of collective-permute (input, output buffer and "
        "two tuples of start indices, with slice_sizes) is not supported; "
        "xtune runs the form whose operands are the values permuted");
  }
  std::vector<Shape> shapes;
  for (const Instruction* o : inst.operands()) shapes.push_back(o->shape());
  Shape expected =
      shapes.size() == 1 ? shapes[0] : Shape::Tuple(std::move(shapes));
  // One participant: the result is the operand. A module that gathers or
  // scatters over several declares another shape; say what xtune does.
  if (!inst.shape().Compatible(expected)) {
    return absl::UnimplementedError(absl::StrCat(
        "declared as ",
        inst.shape().ToString(false), " from ", expected.ToString(false),
        ": it exchanges data between several devices, and xtune runs one"));
  }
  return expected;
}

}  // namespace xtune
