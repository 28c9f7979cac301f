#include "fusion/library_call_expander.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fusion/hlo_builder.h"
#include "ir/conv_call.h"
#include "ir/library_call.h"
#include "util/float_formats.h"

namespace xtune {
namespace {

// What a gemm computation returns.
enum class GemmPart {
  kD,       // D
  kAux,     // the value before the activation, in the aux output's type
  kUnscaled,  // FP8: f32 v before d_scale (its amax is the call's amax)
};

// Parameters like `inst`'s operands, in order.
std::vector<Instruction*> AddParameters(const Instruction& inst, Computation* c) {
  std::vector<Instruction*> params;
  for (int64_t k = 0; k < inst.operand_count(); ++k) {
    auto p = std::make_unique<Instruction>(absl::StrCat("p", k), Opcode::kParameter,
                                           inst.operand(k)->shape());
    p->mutable_attrs()->parameter_number = k;
    p->set_location(inst.location());
    params.push_back(c->AddInstruction(std::move(p)));
  }
  c->set_parameters(params);
  return params;
}

// The gemm's computation: parameters like the call's operands, root `part`.
std::unique_ptr<Computation> GemmComputation(const Instruction& inst,
                                             const GemmCall& call,
                                             const std::string& name,
                                             GemmPart part) {
  const bool aux = part == GemmPart::kAux;
  auto c = std::make_unique<Computation>(name);
  std::vector<Instruction*> params = AddParameters(inst, c.get());
  HloBuilder b(c.get(), "t", inst.location());
  const std::vector<int64_t>& dims = call.result.dims();
  const Shape out = aux                          ? inst.shape().tuple_shapes()[call.aux_index]
                    : part == GemmPart::kUnscaled ? Shape(DType::kF32, dims)
                                                  : call.result;
  const bool f64 = params[0]->shape().dtype() == DType::kF64 ||
                   params[1]->shape().dtype() == DType::kF64 ||
                   out.dtype() == DType::kF64;
  const DType acc = f64 ? DType::kF64 : DType::kF32;
  // FP8 operands widen to bf16 (exactly: every 8-bit float is a bf16) in
  // the gemm's loaders.
  auto operand = [&](int k) {
    Instruction* p = params[k];
    return IsFp8(p->shape().dtype()) ? b.Convert(p, DType::kBF16) : p;
  };
  Instruction* v = b.Dot(operand(0), operand(1), call.dot, Shape(acc, dims));
  if (!call.operand_precision.empty()) {
    v->mutable_attrs()->other.push_back(
        {"operand_precision", call.operand_precision});
  }
  if (!call.algorithm.empty()) {
    v->mutable_attrs()->other.push_back({"algorithm", call.algorithm});
  }
  // An f32[] scale, broadcast over the result.
  auto scale = [&](int64_t k) { return b.Broadcast(params[k], dims, {}); };
  if (call.alpha != 1) v = b.Multiply(v, b.FloatConstant(acc, call.alpha));
  if (call.a_scale_operand >= 0) v = b.Multiply(v, scale(call.a_scale_operand));
  if (call.b_scale_operand >= 0) v = b.Multiply(v, scale(call.b_scale_operand));
  if (call.c_operand >= 0) {
    Instruction* cv = b.Convert(params[call.c_operand], acc);
    if (call.c_scale_operand >= 0) cv = b.Multiply(cv, scale(call.c_scale_operand));
    if (call.beta != 1) cv = b.Multiply(cv, b.FloatConstant(acc, call.beta));
    v = b.Add(v, cv);
  }
  if (call.bias_operand >= 0) {
    Instruction* bias = b.Convert(params[call.bias_operand], acc);
    v = b.Add(v, b.Broadcast(bias, dims, {static_cast<int64_t>(dims.size()) - 1}));
  }
  if (!aux && EpilogueHasRelu(call.epilogue)) {
    v = b.Binary(Opcode::kMaximum, v, b.FloatConstant(acc, 0));
  }
  if (!aux && EpilogueHasGelu(call.epilogue)) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Instruction* cube = b.Multiply(b.Multiply(v, v), v);
    Instruction* inner =
        b.Add(v, b.Multiply(cube, b.FloatConstant(acc, kGeluCubic)));
    Instruction* t = b.Unary(
        Opcode::kTanh,
        b.Multiply(inner, b.FloatConstant(acc, kGeluSqrt2OverPi)));
    Instruction* half = b.Multiply(v, b.FloatConstant(acc, 0.5));
    v = b.Multiply(half, b.Add(t, b.FloatConstant(acc, 1)));
  }
  if (part == GemmPart::kD && call.d_scale_operand >= 0) {
    v = b.Multiply(v, scale(call.d_scale_operand));
  }
  if (part == GemmPart::kD && IsFp8(out.dtype())) {
    // cuBLASLt saturates an 8-bit output (NaN stays NaN: max and min
    // propagate it).
    const double m = Fp8Max(*Fp8FormatOf(out.dtype()));
    v = b.Binary(Opcode::kMinimum, b.Binary(Opcode::kMaximum, v, b.FloatConstant(acc, -m)),
                 b.FloatConstant(acc, m));
  }
  v = b.Convert(v, out.dtype());
  *v->mutable_shape() = out;  // D's layout
  c->set_root(v);
  return c;
}

std::string UniqueName(const Module& module, std::string name) {
  while (module.FindComputation(name) != nullptr) name += "_";
  return name;
}

Instruction* AddFusion(const Instruction& inst,
                       const std::vector<Instruction*>& operands,
                       std::unique_ptr<Computation> fused, std::string name,
                       const std::string& backend_config, Computation* out,
                       Module* module) {
  while (out->FindInstruction(name) != nullptr) name += "_";
  Computation* body = module->AddComputation(std::move(fused));
  auto fusion = std::make_unique<Instruction>(name, Opcode::kFusion,
                                              body->root()->shape());
  fusion->set_location(inst.location());
  fusion->mutable_attrs()->fusion_kind = "kCustom";
  fusion->mutable_attrs()->backend_config = backend_config;
  for (Instruction* op : operands) fusion->AppendOperand(op);
  fusion->AppendCalledComputation(body);
  return out->AddInstruction(std::move(fusion));
}

// max |v| over every element of f32 `v` (0 for none; NaN when one is NaN).
Instruction* MaxAbs(Instruction* v, const std::string& prefix, const Instruction& inst,
                    Computation* out, Module* module) {
  auto reducer = std::make_unique<Computation>(UniqueName(*module, prefix + "max"));
  std::vector<Instruction*> params;
  for (int k = 0; k < 2; ++k) {
    auto p = std::make_unique<Instruction>(absl::StrCat("x", k), Opcode::kParameter,
                                           Shape(DType::kF32, {}));
    p->mutable_attrs()->parameter_number = k;
    params.push_back(reducer->AddInstruction(std::move(p)));
  }
  reducer->set_parameters(params);
  HloBuilder r(reducer.get(), "m", inst.location());
  reducer->set_root(r.Binary(Opcode::kMaximum, params[0], params[1]));
  Computation* max = module->AddComputation(std::move(reducer));
  HloBuilder b(out, prefix, inst.location());
  Instruction* abs = b.Unary(Opcode::kAbs, v);
  std::vector<int64_t> all(v->shape().rank());
  for (int64_t d = 0; d < v->shape().rank(); ++d) all[d] = d;
  return b.Reduce(abs, b.FloatConstant(DType::kF32, 0), all, max);
}

}  // namespace

// The call's convolution and epilogue as one library fusion (kept whole and
// keyed as XLA's conv picker keys the call), zeros for its scratch.
absl::StatusOr<Instruction*> ExpandConvCall(const Instruction& inst,
                                            const std::vector<Instruction*>& operands,
                                            const std::string& prefix, Computation* out,
                                            Module* module) {
  absl::StatusOr<ConvCall> call = ReadConvCall(inst);
  if (!call.ok()) return call.status();
  absl::StatusOr<ConvAsConvolution> c =
      AsConvolution(*call, operands[0]->shape(), operands[1]->shape());
  if (!c.ok()) return c.status();
  absl::StatusOr<std::string> key = LibraryCallKeyText(inst);
  if (!key.ok()) return key.status();
  absl::StatusOr<std::string> legacy = LibraryCallKeyText(inst, /*sort_config=*/false);
  if (!legacy.ok()) return legacy.status();
  const std::string name = prefix + inst.name();
  auto body = std::make_unique<Computation>(
      UniqueName(*module, absl::StrCat("library_conv.", name)));
  std::vector<Instruction*> params = AddParameters(inst, body.get());
  HloBuilder b(body.get(), "t", inst.location());
  Instruction* lhs = params[c->lhs];
  Instruction* rhs = params[c->rhs];
  if (c->regroup) {
    rhs = b.Reshape(b.Transpose(b.Reshape(b.Transpose(rhs, c->perm), c->split), c->perm2),
                    c->kernel_dims);
  }
  const std::vector<int64_t>& dims = call->result.dims();
  const DType acc = call->result.dtype() == DType::kF64 ? DType::kF64 : DType::kF32;
  InstructionAttrs attrs;
  attrs.window = c->window;
  attrs.conv = c->dims;
  attrs.feature_group_count = c->feature_group_count;
  attrs.batch_group_count = c->batch_group_count;
  Instruction* v = b.Convolution(lhs, rhs, attrs, Shape(acc, dims));
  if (call->conv_result_scale != 1) {
    v = b.Multiply(v, b.FloatConstant(acc, call->conv_result_scale));
  }
  if (call->side_input_operand >= 0 && call->side_input_scale != 0) {
    Instruction* s = b.Convert(params[call->side_input_operand], acc);
    if (call->side_input_scale != 1) s = b.Multiply(s, b.FloatConstant(acc, call->side_input_scale));
    v = b.Add(v, s);
  }
  if (call->bias_operand >= 0) {
    Instruction* bias = b.Convert(params[call->bias_operand], acc);
    v = b.Add(v, b.Broadcast(bias, dims, {call->dims.output_feature}));
  }
  Instruction* zero = b.FloatConstant(acc, 0);
  switch (call->activation) {
    case ConvActivation::kNone: break;
    case ConvActivation::kRelu: v = b.Binary(Opcode::kMaximum, v, zero); break;
    case ConvActivation::kRelu6:
      v = b.Binary(Opcode::kMinimum, b.Binary(Opcode::kMaximum, v, zero), b.FloatConstant(acc, 6));
      break;
    case ConvActivation::kElu:
      v = b.Select(b.Compare(v, zero, ComparisonDirection::kGt), v, b.Unary(Opcode::kExpm1, v));
      break;
    case ConvActivation::kLeakyRelu:
      v = b.Select(b.Compare(v, zero, ComparisonDirection::kGt), v,
                   b.Multiply(v, b.FloatConstant(acc, call->leakyrelu_alpha)));
      break;
    case ConvActivation::kTanh: v = b.Unary(Opcode::kTanh, v); break;
    case ConvActivation::kSigmoid: v = b.Unary(Opcode::kLogistic, v); break;
  }
  v = b.Convert(v, call->result.dtype());
  *v->mutable_shape() = call->result;
  body->set_root(v);
  std::vector<Instruction*> elems = {AddFusion(inst, operands, std::move(body), name,
                                               LibraryFusionBackendConfig(
                                                   {call->target, *key,
                                                    *legacy == *key ? "" : *legacy}),
                                               out, module)};
  HloBuilder rest(out, name + ".", inst.location());
  for (size_t k = 1; k < inst.shape().tuple_shapes().size(); ++k) {
    const Shape& w = inst.shape().tuple_shapes()[k];
    elems.push_back(rest.Splat(rest.Constant(w.dtype(), 0), w.dims()));
  }
  return rest.Tuple(elems);
}

absl::StatusOr<Instruction*> ExpandLibraryCall(
    const Instruction& inst, const std::vector<Instruction*>& operands,
    const std::string& prefix, Computation* out, Module* module) {
  std::optional<std::string> target = CustomCallTarget(inst);
  if (target.has_value() && IsConvCallTarget(*target)) {
    return ExpandConvCall(inst, operands, prefix, out, module);
  }
  absl::StatusOr<GemmCall> call = ReadGemmCall(inst);
  if (!call.ok()) return call.status();
  absl::StatusOr<std::string> key = LibraryCallKeyText(inst);
  if (!key.ok()) return key.status();
  const std::string name = prefix + inst.name();
  Instruction* d = AddFusion(
      inst, operands,
      GemmComputation(inst, *call, UniqueName(*module, 
                                       absl::StrCat("library_gemm.", name)),
                      GemmPart::kD),
      name, LibraryFusionBackendConfig({call->target, *key, ""}), out, module);
  if (!inst.shape().IsTuple()) return d;
  std::vector<Instruction*> elems = {d};
  if (call->aux_index >= 0) {
    elems.push_back(AddFusion(
        inst, operands,
        GemmComputation(inst, *call, UniqueName(*module, 
                                         absl::StrCat("library_gemm_aux.", name)),
                        GemmPart::kAux),
        name + ".aux", R"({"fusion_backend_config":{"kind":"__triton_gemm"}})",
        out, module));
  }
  if (call->amax_index >= 0) {
    // amax = max |v| of the unscaled result: a second gemm, then a reduce.
    Instruction* v = AddFusion(
        inst, operands,
        GemmComputation(inst, *call, UniqueName(*module, absl::StrCat("library_gemm_amax.", name)),
                        GemmPart::kUnscaled),
        name + ".unscaled", R"({"fusion_backend_config":{"kind":"__triton_gemm"}})", out, module);
    elems.push_back(MaxAbs(v, name + ".amax.", inst, out, module));
  }
  if (call->workspace_index >= 0) {
    HloBuilder b(out, name + ".workspace.", inst.location());
    const Shape& w = inst.shape().tuple_shapes()[call->workspace_index];
    elems.push_back(b.Splat(b.Constant(DType::kS8, 0), w.dims()));
  }
  HloBuilder b(out, name + ".results.", inst.location());
  return b.Tuple(elems);
}

}  // namespace xtune
