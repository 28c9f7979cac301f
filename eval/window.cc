#include "eval/window.h"

#include <optional>

#include <algorithm>
#include <cmath>

#include "eval/elementwise.h"
#include "eval/shape_ops.h"
#include "ir/conv_call.h"
#include "ir/window.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

// Row-major multi-index iteration: advances `idx` within `dims`; false
// after the last.
bool Next(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

template <typename T>
Tensor ConvolutionIn(const Tensor& lhs, const Tensor& rhs, const InstructionAttrs& a,
                     const Shape& out) {
  const ConvDimensions& d = a.conv;
  const Shape& ls = lhs.shape;
  const Shape& rs = rhs.shape;
  const std::vector<int64_t> lstride = RowMajorStrides(ls.dims());
  const std::vector<int64_t> rstride = RowMajorStrides(rs.dims());
  const size_t spatial = d.input_spatial.size();
  const int64_t in_per_group = rs.dim(d.kernel_input_feature);
  const int64_t out_features = out.dim(d.output_feature);
  const int64_t out_per_fgroup = out_features / a.feature_group_count;
  const int64_t out_per_bgroup = out_features / a.batch_group_count;
  const int64_t batch_per_group = ls.dim(d.input_batch) / a.batch_group_count;
  std::vector<int64_t> window_dims;
  for (const WindowDimension& w : a.window) window_dims.push_back(w.size);
  auto value = [](const Tensor& t, int64_t k) {
    return t.is_float() ? static_cast<T>(t.f[k]) : static_cast<T>(t.i[k]);
  };
  Tensor result(out);
  std::vector<int64_t> oi(out.rank(), 0);
  const int64_t n = out.ElementCount();
  for (int64_t k = 0; k < n; ++k, Next(oi, out.dims())) {
    const int64_t o = oi[d.output_feature];
    const int64_t fgroup = o / out_per_fgroup;
    const int64_t batch = oi[d.output_batch] + (o / out_per_bgroup) * batch_per_group;
    T acc = T(0);
    std::vector<int64_t> wi(spatial, 0);
    do {
      int64_t lbase = batch * lstride[d.input_batch];
      int64_t rbase = o * rstride[d.kernel_output_feature];
      bool inside = true;
      for (size_t s = 0; s < spatial && inside; ++s) {
        const WindowDimension& w = a.window[s];
        const int64_t i = WindowInputIndex(oi[d.output_spatial[s]], wi[s],
                                           ls.dim(d.input_spatial[s]), w);
        inside = i >= 0;
        lbase += i * lstride[d.input_spatial[s]];
        rbase += (w.reversal ? w.size - 1 - wi[s] : wi[s]) * rstride[d.kernel_spatial[s]];
      }
      if (!inside) continue;
      for (int64_t c = 0; c < in_per_group; ++c) {
        const int64_t lf = fgroup * in_per_group + c;
        acc += value(lhs, lbase + lf * lstride[d.input_feature]) *
               value(rhs, rbase + c * rstride[d.kernel_input_feature]);
      }
    } while (spatial > 0 && Next(wi, window_dims));
    if (result.is_float()) {
      result.f[k] = RoundToType(static_cast<double>(acc), out.dtype());
    } else {
      result.i[k] = WrapToType(static_cast<int64_t>(acc), out.dtype());
    }
  }
  return result;
}

// The input positions of output position `oi`'s window, row-major over the
// window; -1 for padding or a base-dilation hole.
void WindowPositions(const std::vector<int64_t>& oi, const Shape& in,
                     const std::vector<WindowDimension>& window,
                     const std::vector<int64_t>& in_stride, std::vector<int64_t>* out) {
  out->clear();
  std::vector<int64_t> window_dims;
  for (const WindowDimension& w : window) window_dims.push_back(w.size);
  std::vector<int64_t> wi(window.size(), 0);
  do {
    int64_t at = 0;
    for (size_t s = 0; s < window.size() && at >= 0; ++s) {
      const int64_t i = WindowInputIndex(oi[s], wi[s], in.dim(s), window[s]);
      at = i < 0 ? -1 : at + i * in_stride[s];
    }
    out->push_back(at);
  } while (!window.empty() && Next(wi, window_dims));
}

}  // namespace

Tensor EvalConvolution(const Tensor& lhs, const Tensor& rhs, const InstructionAttrs& attrs,
                       const Shape& out) {
  const DType l = lhs.shape.dtype(), r = rhs.shape.dtype(), o = out.dtype();
  if (!IsFloat(o)) return ConvolutionIn<int64_t>(lhs, rhs, attrs, out);
  if (l == DType::kF64 || r == DType::kF64 || o == DType::kF64) {
    return ConvolutionIn<double>(lhs, rhs, attrs, out);
  }
  return ConvolutionIn<float>(lhs, rhs, attrs, out);
}

absl::StatusOr<Tensor> EvalConvCall(const Instruction& inst,
                                    const std::vector<const Tensor*>& ops, const Shape& out) {
  XTUNE_ASSIGN_OR_RETURN(ConvCall call, ReadConvCall(inst));
  std::vector<Tensor> x;
  for (size_t k = 0; k < ops.size(); ++k) {
    const Shape& declared = inst.operand(static_cast<int64_t>(k))->shape();
    x.push_back(*ops[k]);
    if (x.back().is_float()) {
      for (double& v : x.back().f) v = RoundToType(v, declared.dtype());
    }
    x.back().shape = declared;
  }
  XTUNE_ASSIGN_OR_RETURN(ConvAsConvolution c, AsConvolution(call, x[0].shape, x[1].shape));
  Tensor rhs = x[c.rhs];
  if (c.regroup) {
    const DType t = rhs.shape.dtype();
    std::vector<int64_t> permuted;
    for (int64_t p : c.perm) permuted.push_back(rhs.shape.dim(p));
    rhs = EvalReshape(EvalTranspose(rhs, Shape(t, permuted), c.perm), Shape(t, c.split));
    permuted.clear();
    for (int64_t p : c.perm2) permuted.push_back(c.split[p]);
    rhs = EvalReshape(EvalTranspose(rhs, Shape(t, permuted), c.perm2), Shape(t, c.kernel_dims));
  }
  InstructionAttrs a;
  a.window = c.window;
  a.conv = c.dims;
  a.feature_group_count = c.feature_group_count;
  a.batch_group_count = c.batch_group_count;
  const DType acc = call.result.dtype() == DType::kF64 ? DType::kF64 : DType::kF32;
  Tensor v = EvalConvolution(x[c.lhs], rhs, a, Shape(acc, call.result.dims()));
  // The epilogue in the accumulation type, each step rounded to it (as the
  // flatten pass's expansion computes it).
  auto r = [acc](double y) { return RoundToType(y, acc); };
  const std::vector<int64_t> strides = RowMajorStrides(call.result.dims());
  const int64_t fdim = call.dims.output_feature;
  const int64_t features = call.result.dim(fdim);
  Tensor result(Shape(call.result.dtype(), call.result.dims()));
  for (int64_t k = 0; k < v.size(); ++k) {
    double y = v.f[k];
    if (call.conv_result_scale != 1) y = r(y * r(call.conv_result_scale));
    if (call.side_input_operand >= 0 && call.side_input_scale != 0) {
      double s = r(x[call.side_input_operand].f[k]);
      if (call.side_input_scale != 1) s = r(s * r(call.side_input_scale));
      y = r(y + s);
    }
    if (call.bias_operand >= 0) {
      y = r(y + r(x[call.bias_operand].f[(k / strides[fdim]) % features]));
    }
    switch (call.activation) {
      case ConvActivation::kNone: break;
      case ConvActivation::kRelu: y = y > 0 || std::isnan(y) ? y : 0; break;
      case ConvActivation::kRelu6: y = std::isnan(y) ? y : std::min(std::max(y, 0.0), 6.0); break;
      case ConvActivation::kElu: y = y > 0 ? y : r(std::expm1(y)); break;
      case ConvActivation::kLeakyRelu: y = y > 0 ? y : r(y * r(call.leakyrelu_alpha)); break;
      case ConvActivation::kTanh: y = r(std::tanh(y)); break;
      case ConvActivation::kSigmoid: y = r(1 / (1 + std::exp(-y))); break;
    }
    result.f[k] = RoundToType(y, call.result.dtype());
  }
  if (!out.IsTuple()) return result;
  Tensor tuple;
  tuple.shape = out;
  tuple.tuple.push_back(std::move(result));
  for (size_t k = 1; k < out.tuple_shapes().size(); ++k) {
    tuple.tuple.emplace_back(out.tuple_shapes()[k]);
  }
  return tuple;
}

absl::StatusOr<Tensor> EvalReduceWindow(const std::vector<const Tensor*>& inputs,
                                        const std::vector<const Tensor*>& inits,
                                        const std::vector<WindowDimension>& window,
                                        const Computation& to_apply, const Shape& out,
                                        const ComputationRunner& run) {
  const size_t n_inputs = inputs.size();
  const Shape& in = inputs[0]->shape;
  const std::vector<int64_t> in_stride = RowMajorStrides(in.dims());
  std::vector<Tensor> accs;
  for (size_t v = 0; v < n_inputs; ++v) {
    const Shape& s = out.IsTuple() ? out.tuple_shapes()[v] : out;
    accs.emplace_back(Shape(s.dtype(), s.dims()));
  }
  const Shape& first = accs[0].shape;
  std::optional<std::pair<Opcode, bool>> simple =
      n_inputs == 1 && inputs[0]->shape.dtype() == first.dtype() ? SimpleBinary(to_apply)
                                                                  : std::nullopt;
  std::vector<int64_t> oi(first.rank(), 0), at;
  std::vector<Tensor> args(2 * n_inputs);
  std::vector<const Tensor*> arg_ptrs(2 * n_inputs);
  const int64_t n = first.ElementCount();
  for (int64_t k = 0; k < n; ++k, Next(oi, first.dims())) {
    for (size_t v = 0; v < n_inputs; ++v) Store(accs[v], k, *inits[v]);
    WindowPositions(oi, in, window, in_stride, &at);
    for (int64_t p : at) {
      if (p < 0) continue;
      if (simple.has_value()) {
        auto [op, swapped] = *simple;
        const Tensor& x = *inputs[0];
        const DType t = first.dtype();
        if (x.is_float()) {
          double& a = accs[0].f[k];
          a = swapped ? BinaryFloat(op, x.f[p], a, t) : BinaryFloat(op, a, x.f[p], t);
        } else {
          int64_t& a = accs[0].i[k];
          a = swapped ? BinaryInt(op, x.i[p], a, t) : BinaryInt(op, a, x.i[p], t);
        }
        continue;
      }
      for (size_t v = 0; v < n_inputs; ++v) {
        args[v] = ScalarOf(accs[v], k);
        args[n_inputs + v] = ScalarOf(*inputs[v], p);
      }
      for (size_t i = 0; i < args.size(); ++i) arg_ptrs[i] = &args[i];
      XTUNE_ASSIGN_OR_RETURN(Tensor r, run(to_apply, arg_ptrs));
      for (size_t v = 0; v < n_inputs; ++v) {
        Store(accs[v], k, n_inputs == 1 ? r : r.tuple[v]);
      }
    }
  }
  if (n_inputs == 1) return std::move(accs[0]);
  Tensor tuple;
  tuple.shape = out;
  tuple.tuple = std::move(accs);
  return tuple;
}

absl::StatusOr<Tensor> EvalSelectAndScatter(const Tensor& operand, const Tensor& source,
                                            const Tensor& init,
                                            const std::vector<WindowDimension>& window,
                                            const Computation& select,
                                            const Computation& scatter,
                                            const ComputationRunner& run) {
  const Shape& in = operand.shape;
  const std::vector<int64_t> in_stride = RowMajorStrides(in.dims());
  Tensor result(Shape(source.shape.dtype(), in.dims()));
  for (int64_t k = 0; k < result.size(); ++k) Store(result, k, init);
  std::vector<int64_t> si(source.shape.rank(), 0), at;
  const int64_t n = source.size();
  for (int64_t k = 0; k < n; ++k, Next(si, source.shape.dims())) {
    WindowPositions(si, in, window, in_stride, &at);
    int64_t chosen = -1;
    for (int64_t p : at) {
      if (p < 0) continue;
      if (chosen < 0) {
        chosen = p;
        continue;
      }
      Tensor current = ScalarOf(operand, chosen), candidate = ScalarOf(operand, p);
      XTUNE_ASSIGN_OR_RETURN(Tensor keep, run(select, {&current, &candidate}));
      if (keep.i[0] == 0) chosen = p;
    }
    if (chosen < 0) continue;
    Tensor acc = ScalarOf(result, chosen), value = ScalarOf(source, k);
    XTUNE_ASSIGN_OR_RETURN(Tensor r, run(scatter, {&acc, &value}));
    Store(result, chosen, r);
  }
  return result;
}

}  // namespace xtune
