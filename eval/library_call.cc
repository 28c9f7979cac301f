#include "eval/library_call.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "eval/dot.h"
#include "eval/window.h"
#include "ir/conv_call.h"
#include "ir/dot_precision.h"
#include "ir/library_call.h"
#include "util/float_formats.h"

namespace xtune {

absl::StatusOr<Tensor> EvalLibraryCall(const Instruction& inst,
                                       const std::vector<const Tensor*>& ops,
                                       const Shape& out, bool tf32) {
  std::optional<std::string> target = CustomCallTarget(inst);
  if (target.has_value() && IsConvCallTarget(*target)) return EvalConvCall(inst, ops, out);
  absl::StatusOr<GemmCall> call = ReadGemmCall(inst);
  if (!call.ok()) return call.status();
  const Tensor& a = *ops[0];
  const Tensor& b = *ops[1];
  const bool f64 = a.shape.dtype() == DType::kF64 ||
                   b.shape.dtype() == DType::kF64 ||
                   call->result.dtype() == DType::kF64;
  const Shape acc_shape(f64 ? DType::kF64 : DType::kF32, call->result.dims());
  const bool use_tf32 = tf32 && LibraryCallAllowsTf32(inst);
  Tensor acc = use_tf32 ? EvalDot(Tf32(a), Tf32(b), call->dot, acc_shape)
                        : EvalDot(a, b, call->dot, acc_shape);
  const Shape& d_shape = out.IsTuple() ? out.tuple_shapes()[0] : out;
  Tensor d(d_shape);
  Tensor aux;
  if (call->aux_index >= 0) aux = Tensor(out.tuple_shapes()[call->aux_index]);
  const int64_t n = call->result.rank() == 0 ? 1 : call->result.dims().back();
  // cuBLASLt's epilogue runs in its compute type: every step rounds to it
  // (the fused expansion's f32 ops round alike).
  const DType acc_type = acc_shape.dtype();
  auto r = [acc_type](double x) { return RoundToType(x, acc_type); };
  const double alpha = r(call->alpha), beta = r(call->beta);
  const double c1 = r(kGeluSqrt2OverPi), c2 = r(kGeluCubic);
  auto scale = [&](int64_t operand) {
    return operand >= 0 ? std::optional<double>(ops[operand]->GetDouble(0)) : std::nullopt;
  };
  const std::optional<double> a_scale = scale(call->a_scale_operand),
                              b_scale = scale(call->b_scale_operand),
                              c_scale = scale(call->c_scale_operand),
                              d_scale = scale(call->d_scale_operand);
  const bool fp8_out = IsFp8(d_shape.dtype());
  const double fp8_max = fp8_out ? Fp8Max(*Fp8FormatOf(d_shape.dtype())) : 0;
  double amax = 0;
  for (int64_t k = 0; k < acc.size(); ++k) {
    double v = acc.f[k];
    if (call->alpha != 1) v = r(alpha * v);
    if (a_scale.has_value()) v = r(v * *a_scale);
    if (b_scale.has_value()) v = r(v * *b_scale);
    if (call->c_operand >= 0) {
      double c = ops[call->c_operand]->GetDouble(k);
      if (c_scale.has_value()) c = r(c * *c_scale);
      if (call->beta != 1) c = r(beta * c);
      v = r(v + c);
    }
    if (call->bias_operand >= 0) {
      v = r(v + ops[call->bias_operand]->GetDouble(k % n));
    }
    if (call->aux_index >= 0) aux.f[k] = RoundToType(v, aux.shape.dtype());
    if (EpilogueHasRelu(call->epilogue)) v = std::max(v, 0.0);
    if (EpilogueHasGelu(call->epilogue)) {
      // Gelu(v) = 0.5 v (1 + tanh(c1 (v + c2 v^3))), step by step.
      double inner = r(v + r(r(r(v * v) * v) * c2));
      // tanh in the compute type, as the evaluator's elementwise tanh.
      const double z = r(inner * c1);
      const double th = acc_type == DType::kF64
                            ? std::tanh(z)
                            : std::tanh(static_cast<float>(z));
      v = r(r(v * 0.5) * r(th + 1));
    }
    // amax as a max-reduce: NaN wins.
    if (std::isnan(v) || std::isnan(amax)) {
      amax = std::numeric_limits<double>::quiet_NaN();
    } else {
      amax = std::max(amax, std::abs(v));
    }
    if (d_scale.has_value()) v = r(v * *d_scale);
    if (fp8_out && !std::isnan(v)) v = std::clamp(v, -fp8_max, fp8_max);
    d.f[k] = RoundToType(v, d_shape.dtype());
  }
  if (!out.IsTuple()) return d;
  Tensor t;
  t.shape = out;
  t.tuple.push_back(std::move(d));
  if (call->aux_index >= 0) t.tuple.push_back(std::move(aux));
  if (call->amax_index >= 0) {
    Tensor a(out.tuple_shapes()[call->amax_index]);
    a.f[0] = amax;
    t.tuple.push_back(std::move(a));
  }
  if (call->workspace_index >= 0) {
    t.tuple.push_back(Tensor(out.tuple_shapes()[call->workspace_index]));
  }
  return t;
}

}  // namespace xtune
