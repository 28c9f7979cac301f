#include "fusion/library_call_expander.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fusion/hlo_builder.h"
#include "ir/library_call.h"

namespace xtune {
namespace {

// The gemm's computation: parameters like the call's operands, root D (or,
// with `aux`, the value before the activation in the aux output's type).
std::unique_ptr<Computation> GemmComputation(const Instruction& inst,
                                             const GemmCall& call,
                                             const std::string& name,
                                             bool aux) {
  auto c = std::make_unique<Computation>(name);
  std::vector<Instruction*> params;
  for (int64_t k = 0; k < inst.operand_count(); ++k) {
    auto p = std::make_unique<Instruction>(absl::StrCat("p", k),
                                           Opcode::kParameter,
                                           inst.operand(k)->shape());
    p->mutable_attrs()->parameter_number = k;
    p->set_location(inst.location());
    params.push_back(c->AddInstruction(std::move(p)));
  }
  c->set_parameters(params);
  HloBuilder b(c.get(), "t", inst.location());
  const std::vector<int64_t>& dims = call.result.dims();
  const Shape& out = aux ? inst.shape().tuple_shapes()[call.aux_index]
                         : call.result;
  const bool f64 = params[0]->shape().dtype() == DType::kF64 ||
                   params[1]->shape().dtype() == DType::kF64 ||
                   out.dtype() == DType::kF64;
  const DType acc = f64 ? DType::kF64 : DType::kF32;
  Instruction* v = b.Dot(params[0], params[1], call.dot, Shape(acc, dims));
  if (!call.operand_precision.empty()) {
    v->mutable_attrs()->other.push_back(
        {"operand_precision", call.operand_precision});
  }
  if (!call.algorithm.empty()) {
    v->mutable_attrs()->other.push_back({"algorithm", call.algorithm});
  }
  if (call.alpha != 1) v = b.Multiply(v, b.FloatConstant(acc, call.alpha));
  if (call.c_operand >= 0) {
    Instruction* cv = b.Convert(params[call.c_operand], acc);
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

}  // namespace

absl::StatusOr<Instruction*> ExpandLibraryCall(
    const Instruction& inst, const std::vector<Instruction*>& operands,
    const std::string& prefix, Computation* out, Module* module) {
  absl::StatusOr<GemmCall> call = ReadGemmCall(inst);
  if (!call.ok()) return call.status();
  absl::StatusOr<std::string> key = LibraryCallKeyText(inst);
  if (!key.ok()) return key.status();
  const std::string name = prefix + inst.name();
  Instruction* d = AddFusion(
      inst, operands,
      GemmComputation(inst, *call, UniqueName(*module, 
                                       absl::StrCat("library_gemm.", name)),
                      /*aux=*/false),
      name, LibraryFusionBackendConfig({call->target, *key}), out, module);
  if (!inst.shape().IsTuple()) return d;
  std::vector<Instruction*> elems = {d};
  if (call->aux_index >= 0) {
    elems.push_back(AddFusion(
        inst, operands,
        GemmComputation(inst, *call, UniqueName(*module, 
                                         absl::StrCat("library_gemm_aux.", name)),
                        /*aux=*/true),
        name + ".aux", R"({"fusion_backend_config":{"kind":"__triton_gemm"}})",
        out, module));
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
