// Shape inference for the indexing family: dynamic-slice,
// dynamic-update-slice, gather, scatter (XLA's ShapeInference rules).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/shape_inference_internal.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

std::string Dims(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

absl::Status ExpectArray(const Instruction& inst, int64_t i,
                         absl::string_view role) {
  if (inst.operand(i)->shape().IsTuple()) {
    return Invalid(absl::StrCat(OpcodeName(inst.opcode()), "'s ", role,
                                " must be an array, not a tuple"));
  }
  return absl::OkStatus();
}

absl::Status ExpectIntegral(const Shape& s, absl::string_view what) {
  if (s.IsTuple() || !IsInteger(s.dtype())) {
    return Invalid(absl::StrCat(what, " must be integers, got ",
                                s.ToString(false)));
  }
  return absl::OkStatus();
}

// Operands [first, first + rank) are scalar start indices of one integer
// type.
absl::Status CheckScalarStarts(const Instruction& inst, int64_t first,
                               int64_t rank) {
  if (inst.operand_count() != first + rank) {
    return Invalid(absl::StrCat(OpcodeName(inst.opcode()), " takes ", first,
                                " array operand", first == 1 ? "" : "s",
                                " and one scalar start index per dimension (",
                                rank, "), got ", inst.operand_count(),
                                " operands"));
  }
  for (int64_t i = first; i < first + rank; ++i) {
    const Shape& s = inst.operand(i)->shape();
    XTUNE_RETURN_IF_ERROR(ExpectIntegral(s, "start indices"));
    if (s.rank() != 0) {
      return Invalid(absl::StrCat("start index operand ", i, " of ",
                                  OpcodeName(inst.opcode()),
                                  " must be a scalar, got ", s.ToString(false)));
    }
    if (s.dtype() != inst.operand(first)->shape().dtype()) {
      return Invalid(absl::StrCat("the start indices of ",
                                  OpcodeName(inst.opcode()),
                                  " must share one element type"));
    }
  }
  return absl::OkStatus();
}

// Checks index_vector_dim and returns the index-vector length the indices
// tensor gives.
absl::StatusOr<int64_t> IndexVectorLength(const Shape& indices, int64_t ivd) {
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid(absl::StrCat("index_vector_dim ", ivd,
                                " is out of range for indices of rank ",
                                indices.rank()));
  }
  return ivd == indices.rank() ? 1 : indices.dim(ivd);
}

absl::Status CheckSorted(const std::vector<int64_t>& dims,
                         absl::string_view what) {
  if (!std::is_sorted(dims.begin(), dims.end())) {
    return Invalid(absl::StrCat(what, " ", Dims(dims), " must be sorted"));
  }
  return absl::OkStatus();
}

// The batching dimension pair lists have one entry each and name distinct
// dimensions of matching size.
absl::Status CheckBatching(const std::vector<int64_t>& operand_dims,
                           const std::vector<int64_t>& indices_dims,
                           const Shape& operand, const Shape& indices,
                           int64_t ivd, absl::string_view operand_what,
                           absl::string_view indices_what) {
  if (operand_dims.size() != indices_dims.size()) {
    return Invalid(absl::StrCat(operand_what, " and ", indices_what,
                                " must have the same length"));
  }
  XTUNE_RETURN_IF_ERROR(CheckDims(operand_dims, operand.rank(), operand_what));
  XTUNE_RETURN_IF_ERROR(CheckDims(indices_dims, indices.rank(), indices_what));
  for (size_t m = 0; m < operand_dims.size(); ++m) {
    if (indices_dims[m] == ivd) {
      return Invalid(absl::StrCat(indices_what, " must not name index_vector_dim"));
    }
    if (operand.dim(operand_dims[m]) != indices.dim(indices_dims[m])) {
      return Invalid(absl::StrCat("batching dimensions ", operand_dims[m], " and ",
                                  indices_dims[m], " differ in size"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferDynamicSlice(const Instruction& inst) {
  if (inst.operand_count() < 1) return Invalid("dynamic-slice needs an operand");
  XTUNE_RETURN_IF_ERROR(ExpectArray(inst, 0, "operand"));
  const Shape& x = inst.operand(0)->shape();
  XTUNE_RETURN_IF_ERROR(CheckScalarStarts(inst, 1, x.rank()));
  const std::vector<int64_t>& sizes = inst.attrs().slice_sizes;
  if (static_cast<int64_t>(sizes.size()) != x.rank()) {
    return Invalid(absl::StrCat("dynamic_slice_sizes ", Dims(sizes),
                                " must have one size per operand dimension (",
                                x.rank(), ")"));
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (sizes[d] < 0 || sizes[d] > x.dim(d)) {
      return Invalid(absl::StrCat("dynamic_slice_sizes[", d, "] = ", sizes[d],
                                  " is outside [0, ", x.dim(d), "]"));
    }
  }
  return Shape(x.dtype(), sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& inst) {
  if (inst.operand_count() < 2) {
    return Invalid("dynamic-update-slice needs an operand and an update");
  }
  XTUNE_RETURN_IF_ERROR(ExpectArray(inst, 0, "operand"));
  XTUNE_RETURN_IF_ERROR(ExpectArray(inst, 1, "update"));
  const Shape& x = inst.operand(0)->shape();
  const Shape& u = inst.operand(1)->shape();
  XTUNE_RETURN_IF_ERROR(CheckScalarStarts(inst, 2, x.rank()));
  if (u.dtype() != x.dtype() || u.rank() != x.rank()) {
    return Invalid(absl::StrCat("dynamic-update-slice's update ",
                                u.ToString(false),
                                " must have the operand's element type and "
                                "rank (", x.ToString(false), ")"));
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (u.dim(d) > x.dim(d)) {
      return Invalid(absl::StrCat("dynamic-update-slice's update ",
                                  u.ToString(false), " is larger than the "
                                  "operand ", x.ToString(false),
                                  " in dimension ", d));
    }
  }
  return Shape(x.dtype(), x.dims());
}

absl::StatusOr<Shape> InferGather(const Instruction& inst) {
  if (inst.operand_count() != 2) {
    return Invalid(absl::StrCat("gather takes 2 operands, got ",
                                inst.operand_count()));
  }
  XTUNE_RETURN_IF_ERROR(ExpectArray(inst, 0, "operand"));
  const Shape& x = inst.operand(0)->shape();
  const Shape& idx = inst.operand(1)->shape();
  XTUNE_RETURN_IF_ERROR(ExpectIntegral(idx, "gather's start indices"));
  const GatherDimensions& g = inst.attrs().gather;
  const std::vector<int64_t>& sizes = inst.attrs().slice_sizes;
  XTUNE_ASSIGN_OR_RETURN(int64_t vector_length,
                         IndexVectorLength(idx, g.index_vector_dim));
  if (static_cast<int64_t>(g.start_index_map.size()) != vector_length) {
    return Invalid(absl::StrCat("start_index_map ", Dims(g.start_index_map),
                                " must have one entry per index-vector "
                                "component (", vector_length, ")"));
  }
  XTUNE_RETURN_IF_ERROR(
      CheckDims(g.start_index_map, x.rank(), "start_index_map"));
  XTUNE_RETURN_IF_ERROR(
      CheckDims(g.collapsed_slice_dims, x.rank(), "collapsed_slice_dims"));
  XTUNE_RETURN_IF_ERROR(CheckSorted(g.collapsed_slice_dims,
                                    "collapsed_slice_dims"));
  XTUNE_RETURN_IF_ERROR(CheckSorted(g.offset_dims, "offset_dims"));
  XTUNE_RETURN_IF_ERROR(CheckBatching(
      g.operand_batching_dims, g.start_indices_batching_dims, x, idx,
      g.index_vector_dim, "operand_batching_dims",
      "start_indices_batching_dims"));
  if (static_cast<int64_t>(sizes.size()) != x.rank()) {
    return Invalid(absl::StrCat("slice_sizes ", Dims(sizes),
                                " must have one size per operand dimension (",
                                x.rank(), ")"));
  }
  std::vector<int64_t> window;  // sizes of the offset dimensions, in order
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (sizes[d] < 0 || sizes[d] > x.dim(d)) {
      return Invalid(absl::StrCat("slice_sizes[", d, "] = ", sizes[d],
                                  " is outside [0, ", x.dim(d), "]"));
    }
    bool collapsed = Contains(g.collapsed_slice_dims, d);
    bool batching = Contains(g.operand_batching_dims, d);
    if (collapsed && batching) {
      return Invalid(absl::StrCat("operand dimension ", d,
                                  " is both collapsed and batching"));
    }
    if ((collapsed || batching) && sizes[d] > 1) {
      return Invalid(absl::StrCat("slice_sizes[", d, "] must be 0 or 1 for a ",
                                  collapsed ? "collapsed" : "batching",
                                  " dimension, got ", sizes[d]));
    }
    if (!collapsed && !batching) window.push_back(sizes[d]);
  }
  std::vector<int64_t> batch;  // indices dimensions but index_vector_dim
  for (int64_t t = 0; t < idx.rank(); ++t) {
    if (t != g.index_vector_dim) batch.push_back(idx.dim(t));
  }
  const int64_t out_rank = static_cast<int64_t>(window.size() + batch.size());
  if (g.offset_dims.size() != window.size()) {
    return Invalid(absl::StrCat("offset_dims ", Dims(g.offset_dims), " has ",
                                g.offset_dims.size(), " entries, but the "
                                "operand keeps ", window.size(),
                                " dimensions in each slice"));
  }
  XTUNE_RETURN_IF_ERROR(CheckDims(g.offset_dims, out_rank, "offset_dims"));
  std::vector<int64_t> out(out_rank);
  size_t w = 0, b = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    out[d] = Contains(g.offset_dims, d) ? window[w++] : batch[b++];
  }
  return Shape(x.dtype(), out);
}

absl::StatusOr<Shape> InferScatter(const Instruction& inst) {
  const int64_t count = inst.operand_count();
  if (count < 3 || count % 2 != 1) {
    return Invalid(absl::StrCat("scatter takes N operands, the indices and N "
                                "updates, got ", count, " operands"));
  }
  const int64_t n = count / 2;
  for (int64_t i = 0; i < count; ++i) {
    if (i != n) XTUNE_RETURN_IF_ERROR(ExpectArray(inst, i, "operands"));
  }
  const Shape& x = inst.operand(0)->shape();
  const Shape& idx = inst.operand(n)->shape();
  const Shape& u = inst.operand(n + 1)->shape();
  XTUNE_RETURN_IF_ERROR(ExpectIntegral(idx, "scatter's indices"));
  std::vector<DType> types;
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& xi = inst.operand(i)->shape();
    const Shape& ui = inst.operand(n + 1 + i)->shape();
    if (xi.dims() != x.dims() || ui.dims() != u.dims()) {
      return Invalid("scatter's operands must share their dimensions, and so "
                     "must its updates");
    }
    if (ui.dtype() != xi.dtype()) {
      return Invalid(absl::StrCat("scatter's update ", i, " is ",
                                  ui.ToString(false), " but its operand is ",
                                  xi.ToString(false)));
    }
    types.push_back(xi.dtype());
    results.push_back(Shape(xi.dtype(), xi.dims()));
  }
  std::vector<DType> params = types;
  params.insert(params.end(), types.begin(), types.end());
  XTUNE_RETURN_IF_ERROR(CheckScalarComputation(inst.called_computations()[0],
                                               params, types, "scatter"));
  const ScatterDimensions& s = inst.attrs().scatter;
  XTUNE_ASSIGN_OR_RETURN(int64_t vector_length,
                         IndexVectorLength(idx, s.index_vector_dim));
  if (static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()) !=
      vector_length) {
    return Invalid(absl::StrCat(
        "scatter_dims_to_operand_dims ", Dims(s.scatter_dims_to_operand_dims),
        " must have one entry per index-vector component (", vector_length,
        ")"));
  }
  XTUNE_RETURN_IF_ERROR(CheckDims(s.scatter_dims_to_operand_dims, x.rank(),
                                  "scatter_dims_to_operand_dims"));
  XTUNE_RETURN_IF_ERROR(
      CheckDims(s.inserted_window_dims, x.rank(), "inserted_window_dims"));
  XTUNE_RETURN_IF_ERROR(
      CheckSorted(s.inserted_window_dims, "inserted_window_dims"));
  XTUNE_RETURN_IF_ERROR(
      CheckSorted(s.update_window_dims, "update_window_dims"));
  XTUNE_RETURN_IF_ERROR(
      CheckDims(s.update_window_dims, u.rank(), "update_window_dims"));
  XTUNE_RETURN_IF_ERROR(CheckBatching(
      s.input_batching_dims, s.scatter_indices_batching_dims, x, idx,
      s.index_vector_dim, "input_batching_dims",
      "scatter_indices_batching_dims"));
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool inserted = Contains(s.inserted_window_dims, d);
    bool batching = Contains(s.input_batching_dims, d);
    if (inserted && batching) {
      return Invalid(absl::StrCat("operand dimension ", d,
                                  " is both inserted and batching"));
    }
    if (!inserted && !batching) window_operand_dims.push_back(d);
  }
  if (window_operand_dims.size() != s.update_window_dims.size()) {
    return Invalid(absl::StrCat(
        "update_window_dims ", Dims(s.update_window_dims), " has ",
        s.update_window_dims.size(), " entries, but the operand has ",
        window_operand_dims.size(),
        " dimensions that are neither inserted nor batching"));
  }
  for (size_t k = 0; k < window_operand_dims.size(); ++k) {
    int64_t wd = s.update_window_dims[k];
    if (u.dim(wd) > x.dim(window_operand_dims[k])) {
      return Invalid(absl::StrCat("update window dimension ", wd, " (size ",
                                  u.dim(wd), ") is larger than operand "
                                  "dimension ", window_operand_dims[k]));
    }
  }
  std::vector<int64_t> scatter_sizes;  // update dims not in the window
  for (int64_t d = 0; d < u.rank(); ++d) {
    if (!Contains(s.update_window_dims, d)) scatter_sizes.push_back(u.dim(d));
  }
  std::vector<int64_t> batch;
  for (int64_t t = 0; t < idx.rank(); ++t) {
    if (t != s.index_vector_dim) batch.push_back(idx.dim(t));
  }
  if (scatter_sizes != batch) {
    return Invalid(absl::StrCat("the updates' scatter dimensions ",
                                Dims(scatter_sizes),
                                " must match the indices' dimensions other "
                                "than index_vector_dim ", Dims(batch)));
  }
  if (n == 1) return results[0];
  return Shape::Tuple(std::move(results));
}

}  // namespace xtune
