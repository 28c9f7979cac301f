// Shape inference for sort and topk (shape_inference_internal.h).
#include "absl/strings/str_cat.h"
#include "ir/shape_inference_internal.h"
#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<Shape> InferSort(const Instruction& inst) {
  if (inst.operand_count() < 1) {
    return absl::InvalidArgumentError("sort needs at least one operand");
  }
  const Shape& first = inst.operand(0)->shape();
  std::vector<Shape> shapes;
  std::vector<DType> params;
  for (const Instruction* o : inst.operands()) {
    const Shape& s = o->shape();
    if (!s.IsArray()) {
      return absl::InvalidArgumentError("sort operands must be arrays");
    }
    if (s.dims() != first.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sort operands must have the same dimensions: ",
          first.ToString(false), " and ", s.ToString(false)));
    }
    shapes.push_back(s);
    params.push_back(s.dtype());
    params.push_back(s.dtype());
  }
  const std::vector<int64_t>& dims = inst.attrs().dimensions;
  if (dims.size() != 1) {
    return absl::InvalidArgumentError(
        "sort takes exactly one dimension (dimensions={d})");
  }
  XTUNE_RETURN_IF_ERROR(CheckDims(dims, first.rank(), "sort dimension"));
  // The comparator: (lhs_0, rhs_0, lhs_1, rhs_1, ...) -> pred[].
  XTUNE_RETURN_IF_ERROR(CheckScalarComputation(
      inst.called_computations()[0], params, {DType::kPred}, "sort comparator"));
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

absl::StatusOr<Shape> InferTopK(const Instruction& inst) {
  if (inst.operand_count() != 1) {
    return absl::InvalidArgumentError("topk takes one operand");
  }
  const Shape& in = inst.operand(0)->shape();
  if (!in.IsArray() || in.rank() < 1) {
    return absl::InvalidArgumentError("topk needs an array of rank >= 1");
  }
  const int64_t k = inst.attrs().k;
  const int64_t n = in.dims().back();
  if (k < 0 || k > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "topk k=", k, " must be in [0, ", n, "] (the last dimension)"));
  }
  std::vector<int64_t> dims = in.dims();
  dims.back() = k;
  return Shape::Tuple({Shape(in.dtype(), dims), Shape(DType::kS32, dims)});
}

}  // namespace xtune
