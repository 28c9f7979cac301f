#include "eval/indexing.h"

#include "eval/elementwise.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

void CopyElement(Tensor& dst, int64_t k, const Tensor& src, int64_t j) {
  if (dst.is_float()) {
    dst.f[k] = src.f[j];
  } else {
    dst.i[k] = src.i[j];
  }
}

// Advances a row-major multi-index; false after the last one.
bool Next(std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

int64_t Linear(const std::vector<int64_t>& index,
               const std::vector<int64_t>& strides) {
  int64_t k = 0;
  for (size_t d = 0; d < index.size(); ++d) k += index[d] * strides[d];
  return k;
}

// The clamped start of each dimension.
std::vector<int64_t> ClampedStarts(const Shape& x,
                                   const std::vector<const Tensor*>& starts,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d) {
    s[d] = ClampSliceStart(starts[d]->i[0], x.dim(d), sizes[d]);
  }
  return s;
}

// Reads the start-index vector for an output / update `index`: component c
// (or the batching coordinate) of each operand dimension.
class StartReader {
 public:
  StartReader(const IndexingPlan& plan, const Tensor& indices)
      : plan_(plan),
        indices_(indices),
        strides_(RowMajorStrides(indices.shape.dims())) {}

  // start[d] for every operand dimension (before any clamp).
  void Read(const std::vector<int64_t>& index, std::vector<int64_t>* start) {
    IndicesPosition(plan_, index, &position_);
    const int64_t base = Linear(position_, strides_);
    const int64_t ivd = plan_.index_vector_dim;
    const int64_t component_stride =
        ivd < static_cast<int64_t>(strides_.size()) ? strides_[ivd] : 0;
    start->assign(plan_.operand.size(), 0);
    for (size_t d = 0; d < plan_.operand.size(); ++d) {
      const OperandDimSource& s = plan_.operand[d];
      if (s.start_component >= 0) {
        (*start)[d] = indices_.i[base + s.start_component * component_stride];
      } else if (s.batch_indices_dim >= 0) {
        (*start)[d] = position_[s.batch_indices_dim];
      }
    }
  }

 private:
  const IndexingPlan& plan_;
  const Tensor& indices_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> position_;
};

}  // namespace

Tensor EvalDynamicSlice(const Tensor& x,
                        const std::vector<const Tensor*>& starts,
                        const Shape& out) {
  Tensor r(Shape(x.shape.dtype(), out.dims()));
  if (r.size() == 0) return r;
  std::vector<int64_t> s = ClampedStarts(x.shape, starts, out.dims());
  std::vector<int64_t> xs = RowMajorStrides(x.shape.dims());
  std::vector<int64_t> idx(out.rank(), 0);
  int64_t k = 0;
  do {
    int64_t j = 0;
    for (int64_t d = 0; d < out.rank(); ++d) j += (s[d] + idx[d]) * xs[d];
    CopyElement(r, k++, x, j);
  } while (Next(idx, out.dims()));
  return r;
}

Tensor EvalDynamicUpdateSlice(const Tensor& x, const Tensor& update,
                              const std::vector<const Tensor*>& starts) {
  Tensor r = x;
  if (update.size() == 0) return r;
  std::vector<int64_t> s =
      ClampedStarts(x.shape, starts, update.shape.dims());
  std::vector<int64_t> xs = RowMajorStrides(x.shape.dims());
  std::vector<int64_t> idx(update.shape.rank(), 0);
  int64_t k = 0;
  do {
    int64_t j = 0;
    for (int64_t d = 0; d < update.shape.rank(); ++d) {
      j += (s[d] + idx[d]) * xs[d];
    }
    CopyElement(r, j, update, k++);
  } while (Next(idx, update.shape.dims()));
  return r;
}

Tensor EvalGather(const Tensor& x, const Tensor& indices,
                  const IndexingPlan& plan, const Shape& out) {
  Tensor r(Shape(x.shape.dtype(), out.dims()));
  if (r.size() == 0) return r;
  std::vector<int64_t> xs = RowMajorStrides(x.shape.dims());
  StartReader reader(plan, indices);
  std::vector<int64_t> idx(out.rank(), 0), start;
  int64_t k = 0;
  do {
    reader.Read(idx, &start);
    int64_t j = 0;
    for (size_t d = 0; d < plan.operand.size(); ++d) {
      const OperandDimSource& s = plan.operand[d];
      int64_t pos = s.batch_indices_dim >= 0
                        ? start[d]
                        : ClampSliceStart(start[d], x.shape.dim(d), s.size);
      if (s.window_dim >= 0) pos += idx[s.window_dim];
      j += pos * xs[d];
    }
    CopyElement(r, k++, x, j);
  } while (Next(idx, out.dims()));
  return r;
}

absl::StatusOr<Tensor> EvalScatter(const std::vector<const Tensor*>& operands,
                                   const Tensor& indices,
                                   const std::vector<const Tensor*>& updates,
                                   const IndexingPlan& plan,
                                   const Computation& to_apply,
                                   const Shape& out,
                                   const ComputationRunner& run) {
  const size_t n = operands.size();
  std::vector<Tensor> results;
  for (const Tensor* x : operands) results.push_back(*x);
  const Shape& x_shape = operands[0]->shape;
  const std::vector<int64_t>& u_dims = updates[0]->shape.dims();
  const bool empty = updates[0]->size() == 0;
  std::vector<int64_t> xs = RowMajorStrides(x_shape.dims());
  // Fast paths: one operand with a to_apply that is one binary op of its
  // parameters, or that returns the update (assignment).
  std::optional<std::pair<Opcode, bool>> simple =
      n == 1 ? SimpleBinary(to_apply) : std::nullopt;
  const bool assign = n == 1 && to_apply.root() == to_apply.parameter(1);
  StartReader reader(plan, indices);
  std::vector<int64_t> idx(u_dims.size(), 0), start;
  std::vector<Tensor> args(2 * n);
  std::vector<const Tensor*> arg_ptrs(2 * n);
  int64_t k = 0;
  if (!empty) do {
    reader.Read(idx, &start);
    int64_t j = 0;
    bool in_bounds = true;
    for (size_t d = 0; d < plan.operand.size(); ++d) {
      const OperandDimSource& s = plan.operand[d];
      if (!ScatterWindowFits(start[d], x_shape.dim(d), s.size)) {
        in_bounds = false;
        break;
      }
      int64_t pos = start[d];
      if (s.window_dim >= 0) pos += idx[s.window_dim];
      j += pos * xs[d];
    }
    if (in_bounds) {
      if (assign) {
        CopyElement(results[0], j, *updates[0], k);
      } else if (simple.has_value()) {
        auto [op, swapped] = *simple;
        Tensor& acc = results[0];
        DType t = acc.shape.dtype();
        if (acc.is_float()) {
          double a = acc.f[j], b = updates[0]->f[k];
          acc.f[j] = swapped ? BinaryFloat(op, b, a, t) : BinaryFloat(op, a, b, t);
        } else {
          int64_t a = acc.i[j], b = updates[0]->i[k];
          acc.i[j] = swapped ? BinaryInt(op, b, a, t) : BinaryInt(op, a, b, t);
        }
      } else {
        for (size_t v = 0; v < n; ++v) {
          args[v] = ScalarOf(results[v], j);
          args[n + v] = ScalarOf(*updates[v], k);
        }
        for (size_t a = 0; a < args.size(); ++a) arg_ptrs[a] = &args[a];
        XTUNE_ASSIGN_OR_RETURN(Tensor combined, run(to_apply, arg_ptrs));
        if (n == 1) {
          Store(results[0], j, combined);
        } else {
          for (size_t v = 0; v < n; ++v) Store(results[v], j, combined.tuple[v]);
        }
      }
    }
    ++k;
  } while (Next(idx, u_dims));
  if (n == 1) return std::move(results[0]);
  Tensor tuple;
  tuple.shape = out;
  tuple.tuple = std::move(results);
  return tuple;
}

}  // namespace xtune
