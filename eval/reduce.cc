#include "eval/reduce.h"

#include <algorithm>
#include <optional>

#include "eval/elementwise.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

}  // namespace

std::optional<std::pair<Opcode, bool>> SimpleBinary(const Computation& c) {
  if (c.parameter_count() != 2) return std::nullopt;
  const Instruction* root = c.root();
  if (!IsBinaryElementwise(root->opcode()) || root->operand_count() != 2) {
    return std::nullopt;
  }
  const Instruction* p0 = c.parameter(0);
  const Instruction* p1 = c.parameter(1);
  DType t = root->shape().dtype();
  if (p0->shape().dtype() != t || p1->shape().dtype() != t) return std::nullopt;
  if (root->operand(0) == p0 && root->operand(1) == p1) {
    return std::make_pair(root->opcode(), false);
  }
  if (root->operand(0) == p1 && root->operand(1) == p0) {
    return std::make_pair(root->opcode(), true);
  }
  return std::nullopt;
}

namespace {

// For each input linear index, the output linear index it reduces into.
std::vector<int64_t> OutputIndexOfInput(const Shape& in,
                                        const std::vector<int64_t>& reduced) {
  std::vector<int64_t> out_dims;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      kept.push_back(d);
      out_dims.push_back(in.dim(d));
    }
  }
  std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  // stride of each input dimension in the output (0 for reduced ones)
  std::vector<int64_t> stride(in.rank(), 0);
  for (size_t i = 0; i < kept.size(); ++i) stride[kept[i]] = out_strides[i];
  int64_t n = in.ElementCount();
  std::vector<int64_t> map(n);
  std::vector<int64_t> idx(in.rank(), 0);
  int64_t o = 0;
  for (int64_t k = 0; k < n; ++k) {
    map[k] = o;
    for (int64_t d = in.rank() - 1; d >= 0; --d) {
      o += stride[d];
      if (++idx[d] < in.dim(d)) break;
      o -= stride[d] * idx[d];
      idx[d] = 0;
    }
  }
  return map;
}

}  // namespace

Tensor ScalarOf(const Tensor& t, int64_t k) {
  Tensor s(Shape(t.shape.dtype(), {}));
  if (t.is_float()) {
    s.f[0] = t.f[k];
  } else {
    s.i[0] = t.i[k];
  }
  return s;
}

void Store(Tensor& dst, int64_t k, const Tensor& scalar) {
  if (dst.is_float()) {
    dst.f[k] = scalar.f[0];
  } else {
    dst.i[k] = scalar.i[0];
  }
}

absl::StatusOr<Tensor> EvalReduce(const std::vector<const Tensor*>& inputs,
                                  const std::vector<const Tensor*>& inits,
                                  const std::vector<int64_t>& dimensions,
                                  const Computation& to_apply,
                                  const Shape& out,
                                  const ComputationRunner& run) {
  size_t n_inputs = inputs.size();
  std::vector<int64_t> map = OutputIndexOfInput(inputs[0]->shape, dimensions);
  std::vector<Tensor> accs;
  for (size_t v = 0; v < n_inputs; ++v) {
    const Shape& s = out.IsTuple() ? out.tuple_shapes()[v] : out;
    Tensor acc(Shape(s.dtype(), s.dims()));
    for (int64_t k = 0; k < acc.size(); ++k) Store(acc, k, *inits[v]);
    accs.push_back(std::move(acc));
  }
  int64_t n = inputs[0]->size();
  std::optional<std::pair<Opcode, bool>> simple =
      n_inputs == 1 ? SimpleBinary(to_apply) : std::nullopt;
  if (simple.has_value() &&
      inputs[0]->shape.dtype() == accs[0].shape.dtype()) {
    auto [op, swapped] = *simple;
    Tensor& acc = accs[0];
    const Tensor& x = *inputs[0];
    DType t = acc.shape.dtype();
    if (acc.is_float()) {
      for (int64_t k = 0; k < n; ++k) {
        double& a = acc.f[map[k]];
        a = swapped ? BinaryFloat(op, x.f[k], a, t) : BinaryFloat(op, a, x.f[k], t);
      }
    } else {
      for (int64_t k = 0; k < n; ++k) {
        int64_t& a = acc.i[map[k]];
        a = swapped ? BinaryInt(op, x.i[k], a, t) : BinaryInt(op, a, x.i[k], t);
      }
    }
    return std::move(accs[0]);
  }
  // General case: call to_apply(acc..., x...) per element.
  std::vector<Tensor> args(2 * n_inputs);
  std::vector<const Tensor*> arg_ptrs(2 * n_inputs);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = map[k];
    for (size_t v = 0; v < n_inputs; ++v) {
      args[v] = ScalarOf(accs[v], o);
      args[n_inputs + v] = ScalarOf(*inputs[v], k);
    }
    for (size_t a = 0; a < args.size(); ++a) arg_ptrs[a] = &args[a];
    XTUNE_ASSIGN_OR_RETURN(Tensor result, run(to_apply, arg_ptrs));
    if (n_inputs == 1) {
      Store(accs[0], o, result);
    } else {
      for (size_t v = 0; v < n_inputs; ++v) Store(accs[v], o, result.tuple[v]);
    }
  }
  if (n_inputs == 1) return std::move(accs[0]);
  Tensor tuple;
  tuple.shape = out;
  tuple.tuple = std::move(accs);
  return tuple;
}

}  // namespace xtune
