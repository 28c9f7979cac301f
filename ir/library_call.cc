#include "ir/library_call.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "ir/conv_call.h"
#include "util/json.h"

namespace xtune {
namespace {

struct EpilogueName {
  GemmEpilogue epilogue;
  absl::string_view name;
};
constexpr EpilogueName kEpilogues[] = {
    {GemmEpilogue::kDefault, "DEFAULT"},
    {GemmEpilogue::kBias, "BIAS"},
    {GemmEpilogue::kRelu, "RELU"},
    {GemmEpilogue::kBiasRelu, "BIAS_RELU"},
    {GemmEpilogue::kGelu, "GELU"},
    {GemmEpilogue::kGeluAux, "GELU_AUX"},
    {GemmEpilogue::kBiasGelu, "BIAS_GELU"},
    {GemmEpilogue::kBiasGeluAux, "BIAS_GELU_AUX"},
};

// The verifier names the instruction; the message says what is wrong.
absl::Status Bad(const Instruction& /*inst*/, absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

absl::StatusOr<std::vector<int64_t>> IntList(const JsonValue* v,
                                             absl::string_view field) {
  std::vector<int64_t> out;
  if (v == nullptr) return out;  // proto JSON leaves empty lists out
  if (v->kind != JsonValue::Kind::kArray) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", field, "\" must be a list"));
  }
  for (const JsonValue& item : v->items) {
    int64_t x;
    if ((item.kind != JsonValue::Kind::kString &&
         item.kind != JsonValue::Kind::kNumber) ||
        !absl::SimpleAtoi(item.text, &x)) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", field, "\" must hold integers"));
    }
    out.push_back(x);
  }
  return out;
}

// The GemmBackendConfig object of a backend_config, bare or wrapped.
absl::StatusOr<JsonValue> GemmConfigJson(const Instruction& inst,
                                         JsonValue* whole) {
  absl::StatusOr<JsonValue> parsed = ParseBackendConfigJson(inst.attrs().backend_config);
  if (!parsed.ok()) {
    return Bad(inst, absl::StrCat("its backend_config is not JSON (",
                                  parsed.status().message(), ")"));
  }
  *whole = *parsed;
  if (const JsonValue* g = parsed->Find("gemm_backend_config")) return *g;
  if (parsed->Find("dot_dimension_numbers") != nullptr) return *parsed;
  return Bad(inst, "its backend_config holds no gemm_backend_config");
}

// The output dimensions of a dot with `d` on shapes `a` and `b`.
absl::StatusOr<std::vector<int64_t>> DotDims(const Shape& a, const Shape& b,
                                             const DotDimensions& d) {
  auto check = [](const std::vector<int64_t>& dims, int64_t rank) {
    for (int64_t x : dims) {
      if (x < 0 || x >= rank) return false;
    }
    std::vector<int64_t> s = dims;
    std::sort(s.begin(), s.end());
    return std::adjacent_find(s.begin(), s.end()) == s.end();
  };
  std::vector<int64_t> a_all = d.lhs_batch, b_all = d.rhs_batch;
  a_all.insert(a_all.end(), d.lhs_contracting.begin(), d.lhs_contracting.end());
  b_all.insert(b_all.end(), d.rhs_contracting.begin(), d.rhs_contracting.end());
  if (!check(a_all, a.rank()) || !check(b_all, b.rank()) ||
      d.lhs_batch.size() != d.rhs_batch.size() ||
      d.lhs_contracting.size() != d.rhs_contracting.size()) {
    return absl::InvalidArgumentError(
        "its dot_dimension_numbers do not fit its operands");
  }
  for (size_t k = 0; k < d.lhs_batch.size(); ++k) {
    if (a.dim(d.lhs_batch[k]) != b.dim(d.rhs_batch[k])) {
      return absl::InvalidArgumentError("its batch dimensions differ in size");
    }
  }
  for (size_t k = 0; k < d.lhs_contracting.size(); ++k) {
    if (a.dim(d.lhs_contracting[k]) != b.dim(d.rhs_contracting[k])) {
      return absl::InvalidArgumentError(
          "its contracting dimensions differ in size");
    }
  }
  std::vector<int64_t> dims;
  for (int64_t x : d.lhs_batch) dims.push_back(a.dim(x));
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (std::find(a_all.begin(), a_all.end(), i) == a_all.end()) {
      dims.push_back(a.dim(i));
    }
  }
  for (int64_t i = 0; i < b.rank(); ++i) {
    if (std::find(b_all.begin(), b_all.end(), i) == b_all.end()) {
      dims.push_back(b.dim(i));
    }
  }
  return dims;
}

// The operands of an FP8 gemm after A and B, as XLA writes them (its
// operand list changed across versions): [C when the third operand has D's
// dimensions], then the f32[] scales: (a, b), (a, b, d) or, as older XLA
// writes them, (a, b, c, d). `*next` ends after the last scale.
absl::Status ReadFp8Operands(const Instruction& inst, GemmCall* call, int64_t* next) {
  const int64_t n = inst.operand_count();
  auto is_scale = [&](int64_t k) {
    const Shape& s = inst.operand(k)->shape();
    return s.IsArray() && s.rank() == 0 && s.dtype() == DType::kF32;
  };
  if (*next < n && !is_scale(*next) && inst.operand(*next)->shape().IsArray() &&
      IsFloat(inst.operand(*next)->shape().dtype()) &&
      inst.operand(*next)->shape().dims() == call->result.dims()) {
    call->c_operand = (*next)++;
  }
  if (call->beta != 0 && call->c_operand < 0) {
    return Bad(inst, "beta != 0 needs a C operand of the result's shape");
  }
  int64_t scales = 0;
  while (*next + scales < n && is_scale(*next + scales)) ++scales;
  if (scales < 2 || scales > 4) {
    return Bad(inst, absl::StrCat("an FP8 gemm takes 2 to 4 f32[] scales after A, B",
                                  call->c_operand >= 0 ? " and C" : "", ", found ", scales));
  }
  call->a_scale_operand = *next;
  call->b_scale_operand = *next + 1;
  if (scales == 4) call->c_scale_operand = *next + 2;
  if (scales >= 3) call->d_scale_operand = *next + scales - 1;
  *next += scales;
  return absl::OkStatus();
}

}  // namespace

absl::string_view GemmEpilogueName(GemmEpilogue e) {
  for (const EpilogueName& n : kEpilogues) {
    if (n.epilogue == e) return n.name;
  }
  return "?";
}
bool EpilogueHasBias(GemmEpilogue e) {
  return e == GemmEpilogue::kBias || e == GemmEpilogue::kBiasRelu ||
         e == GemmEpilogue::kBiasGelu || e == GemmEpilogue::kBiasGeluAux;
}
bool EpilogueHasRelu(GemmEpilogue e) {
  return e == GemmEpilogue::kRelu || e == GemmEpilogue::kBiasRelu;
}
bool EpilogueHasGelu(GemmEpilogue e) {
  return e == GemmEpilogue::kGelu || e == GemmEpilogue::kGeluAux ||
         e == GemmEpilogue::kBiasGelu || e == GemmEpilogue::kBiasGeluAux;
}
bool EpilogueHasAux(GemmEpilogue e) {
  return e == GemmEpilogue::kGeluAux || e == GemmEpilogue::kBiasGeluAux;
}

std::optional<std::string> CustomCallTarget(const Instruction& inst) {
  if (inst.opcode() != Opcode::kCustomCall) return std::nullopt;
  for (const RawAttribute& a : inst.attrs().other) {
    if (a.name != "custom_call_target") continue;
    absl::string_view v = absl::StripAsciiWhitespace(a.value);
    absl::ConsumePrefix(&v, "\"");
    absl::ConsumeSuffix(&v, "\"");
    return std::string(v);
  }
  return std::nullopt;
}

bool IsLibraryCallTarget(absl::string_view target) {
  return target == kCublasGemmTarget || target == kCublasLtMatmulTarget ||
         target == kCublasLtMatmulF8Target;
}

bool IsAnnotationCustomCall(const Instruction& inst) {
  std::optional<std::string> target = CustomCallTarget(inst);
  if (!target.has_value() || inst.operand_count() != 1) return false;
  return *target == "Sharding" || *target == "SPMDFullToShardShape" ||
         *target == "SPMDShardToFullShape" || *target == "MoveToHost" ||
         *target == "MoveToDevice";
}

absl::StatusOr<GemmCall> ReadGemmCall(const Instruction& inst) {
  std::optional<std::string> target = CustomCallTarget(inst);
  if (!target.has_value()) return Bad(inst, "no custom_call_target");
  if (!IsLibraryCallTarget(*target)) {
    return absl::UnimplementedError(absl::StrCat(
        "the custom_call_target '", *target,
        "' is not one xtune runs (it runs ", kCublasGemmTarget, ", ",
        kCublasLtMatmulTarget, ", ", kCublasLtMatmulF8Target,
        " and the __cudnn$conv* convolutions)"));
  }
  GemmCall call;
  call.target = *target;
  JsonValue whole;
  absl::StatusOr<JsonValue> config = GemmConfigJson(inst, &whole);
  if (!config.ok()) return config.status();
  const JsonValue* dnums = config->Find("dot_dimension_numbers");
  if (dnums == nullptr) return Bad(inst, "its gemm config has no dot_dimension_numbers");
  absl::Status read = [&]() -> absl::Status {
    absl::StatusOr<std::vector<int64_t>> v;
    for (auto [field, out] :
         {std::pair{"lhs_batch_dimensions", &call.dot.lhs_batch},
          std::pair{"lhs_contracting_dimensions", &call.dot.lhs_contracting},
          std::pair{"rhs_batch_dimensions", &call.dot.rhs_batch},
          std::pair{"rhs_contracting_dimensions", &call.dot.rhs_contracting}}) {
      v = IntList(dnums->Find(field), field);
      if (!v.ok()) return v.status();
      *out = std::move(*v);
    }
    absl::StatusOr<double> x = JsonNumberField(*config, "alpha_real", 1);
    if (!x.ok()) return x.status();
    call.alpha = *x;
    x = JsonNumberField(*config, "beta", 0);
    if (!x.ok()) return x.status();
    call.beta = *x;
    x = JsonNumberField(*config, "alpha_imag", 0);
    if (!x.ok()) return x.status();
    if (*x != 0) {
      return absl::UnimplementedError("a complex alpha (alpha_imag != 0)");
    }
    if (const JsonValue* s = config->Find("selected_algorithm")) {
      int64_t algorithm;
      if (!absl::SimpleAtoi(s->text, &algorithm)) {
        return absl::InvalidArgumentError("\"selected_algorithm\" must be an integer");
      }
      call.selected_algorithm = algorithm;
    }
    return absl::OkStatus();
  }();
  if (!read.ok()) {
    if (read.code() == absl::StatusCode::kUnimplemented) {
      return absl::UnimplementedError(
          absl::StrCat("xtune does not run ", read.message()));
    }
    return Bad(inst, read.message());
  }
  if (const JsonValue* e = config->Find("epilogue")) {
    bool found = false;
    for (const EpilogueName& n : kEpilogues) {
      if (e->text == n.name) {
        call.epilogue = n.epilogue;
        found = true;
      }
    }
    if (!found) {
      return absl::UnimplementedError(absl::StrCat(
          "the epilogue '", e->text,
          "' is not one xtune runs (it runs DEFAULT, BIAS, RELU, "
          "BIAS_RELU, GELU, GELU_AUX, BIAS_GELU, BIAS_GELU_AUX)"));
    }
  }
  if (call.target == kCublasGemmTarget &&
      call.epilogue != GemmEpilogue::kDefault) {
    return Bad(inst, "__cublas$gemm takes no epilogue");
  }
  if (const JsonValue* p = config->Find("precision_config")) {
    if (const JsonValue* ops = p->Find("operand_precision");
        ops != nullptr && ops->kind == JsonValue::Kind::kArray &&
        !ops->items.empty()) {
      std::vector<std::string> levels;
      for (const JsonValue& level : ops->items) {
        levels.push_back(absl::AsciiStrToLower(level.text));
      }
      call.operand_precision = absl::StrCat("{", absl::StrJoin(levels, ","), "}");
    }
    if (const JsonValue* alg = p->Find("algorithm");
        alg != nullptr && alg->kind == JsonValue::Kind::kString &&
        !alg->text.empty() && alg->text != "ALG_UNSET") {
      absl::string_view name = alg->text;
      absl::ConsumePrefix(&name, "ALG_");
      call.algorithm = absl::AsciiStrToLower(name);
    }
  }

  const bool fp8 = call.target == kCublasLtMatmulF8Target;
  if (fp8 && EpilogueHasAux(call.epilogue)) {
    return Bad(inst, "an FP8 gemm takes no *_AUX epilogue");
  }
  if (const JsonValue* amax = config->Find("damax_output")) {
    call.amax = amax->kind == JsonValue::Kind::kBool && amax->text == "true";
  }
  if (call.amax && !fp8) return Bad(inst, "only an FP8 gemm returns amax");

  // Result: D, or (D, [aux], [amax f32[]], [s8 workspace]).
  const Shape& shape = inst.shape();
  if (shape.IsTuple()) {
    const std::vector<Shape>& elems = shape.tuple_shapes();
    const size_t with_aux = EpilogueHasAux(call.epilogue) ? 2 : 1;
    const size_t before_workspace = with_aux + (call.amax ? 1 : 0);
    if (elems.size() != before_workspace && elems.size() != before_workspace + 1) {
      return Bad(inst, absl::StrCat("its result must be (D", with_aux == 2 ? ", aux" : "",
                                    call.amax ? ", amax" : "", ", s8 workspace)"));
    }
    call.result = elems[0];
    if (with_aux == 2) call.aux_index = 1;
    if (call.amax) {
      call.amax_index = static_cast<int64_t>(with_aux);
      const Shape& a = elems[with_aux];
      if (!a.IsArray() || a.rank() != 0 || a.dtype() != DType::kF32) {
        return Bad(inst, "its amax output must be f32[]");
      }
    }
    if (elems.size() == before_workspace + 1) {
      const Shape& w = elems.back();
      if (!w.IsArray() || w.dtype() != DType::kS8 || w.rank() != 1) {
        return Bad(inst, "its last result must be the s8[n] workspace");
      }
      call.workspace_index = static_cast<int64_t>(before_workspace);
    }
  } else {
    if (EpilogueHasAux(call.epilogue) || call.amax) {
      return Bad(inst, "an *_AUX epilogue or amax returns a tuple (D, aux or amax, workspace)");
    }
    call.result = shape;
  }
  if (!call.result.IsArray() || !IsFloat(call.result.dtype()) ||
      (!fp8 && IsFp8(call.result.dtype()))) {
    return Bad(inst, fp8 ? "its result must be a floating-point array"
                         : "its result must be an f16, bf16, f32 or f64 array");
  }

  // Operands: A, B, [C], [scales], [bias].
  if (inst.operand_count() < 2) return Bad(inst, "it takes A and B");
  for (int64_t k = 0; k < 2; ++k) {
    const Shape& s = inst.operand(k)->shape();
    if (!s.IsArray() || !IsFloat(s.dtype()) || IsFp8(s.dtype()) != fp8) {
      return Bad(inst, fp8 ? "its A and B must be 8-bit float arrays"
                           : "its operands must be f16, bf16, f32 or f64 arrays");
    }
  }
  int64_t next = 2;
  if (fp8) {
    absl::Status s = ReadFp8Operands(inst, &call, &next);
    if (!s.ok()) return s;
  } else {
    const int64_t want = 2 + (call.beta != 0 ? 1 : 0) + (EpilogueHasBias(call.epilogue) ? 1 : 0);
    if (inst.operand_count() != want) {
      return Bad(inst, absl::StrCat("a ", GemmEpilogueName(call.epilogue), " gemm with beta ",
                                    call.beta, " takes ", want, " operands, not ",
                                    inst.operand_count()));
    }
    for (const Instruction* op : inst.operands()) {
      if (!op->shape().IsArray() || !IsFloat(op->shape().dtype())) {
        return Bad(inst, "its operands must be f16, bf16, f32 or f64 arrays");
      }
    }
    if (call.beta != 0) call.c_operand = next++;
  }
  if (EpilogueHasBias(call.epilogue)) call.bias_operand = next++;
  if (next != inst.operand_count()) {
    return Bad(inst, absl::StrCat("it takes ", next, " operands (A, B",
                                  call.c_operand >= 0 ? ", C" : "",
                                  fp8 ? ", scales" : "",
                                  call.bias_operand >= 0 ? ", bias" : "", "), not ",
                                  inst.operand_count()));
  }
  absl::StatusOr<std::vector<int64_t>> dims = DotDims(
      inst.operand(0)->shape(), inst.operand(1)->shape(), call.dot);
  if (!dims.ok()) return Bad(inst, dims.status().message());
  if (*dims != call.result.dims()) {
    return Bad(inst, absl::StrCat("its result ", call.result.ToString(false),
                                  " is not the shape of its dot"));
  }
  if (call.aux_index >= 0 &&
      shape.tuple_shapes()[call.aux_index].dims() != call.result.dims()) {
    return Bad(inst, "its aux output must have the result's dimensions");
  }
  if (call.c_operand >= 0 &&
      (inst.operand(call.c_operand)->shape().dims() != call.result.dims() ||
       (!fp8 && inst.operand(call.c_operand)->shape().dtype() != call.result.dtype()))) {
    return Bad(inst, "its C operand (beta != 0) must have the result's shape");
  }
  if (call.bias_operand >= 0) {
    const Shape& bias = inst.operand(call.bias_operand)->shape();
    if (call.result.rank() == 0 || bias.rank() != 1 ||
        bias.dim(0) != call.result.dims().back()) {
      return Bad(inst, absl::StrCat("its bias must be a vector of the result's "
                                    "last dimension, got ",
                                    bias.ToString(false)));
    }
    if (bias.dtype() == DType::kF64 && call.result.dtype() != DType::kF64) {
      return Bad(inst, "an f64 bias needs an f64 result");
    }
  }
  return call;
}

absl::StatusOr<std::string> LibraryCallKeyText(const Instruction& inst, bool sort_config) {
  JsonValue whole;
  std::optional<std::string> target = CustomCallTarget(inst);
  const bool conv = target.has_value() && IsConvCallTarget(*target);
  Shape shape = inst.shape();
  if (conv) {
    // The conv picker keys the call as the conv rewriter made it: before
    // it writes its algorithm into the config and sizes the scratch.
    if (!inst.attrs().backend_config.empty()) {
      absl::StatusOr<JsonValue> parsed = ParseBackendConfigJson(inst.attrs().backend_config);
      if (!parsed.ok()) return Bad(inst, "its backend_config is not JSON");
      whole = *parsed;
    }
    for (auto& [k, v] : whole.members) {
      if (k == "cudnn_conv_backend_config") v.Erase("algorithm");
    }
    if (shape.IsTuple() && shape.tuple_shapes().size() == 2) {
      shape = Shape::Tuple({shape.tuple_shapes()[0], Shape(DType::kU8, {0})});
    }
  } else {
    absl::StatusOr<JsonValue> gemm = GemmConfigJson(inst, &whole);
    if (!gemm.ok()) return gemm.status();
    // Leave out the picker's answer wherever the gemm config is.
    JsonValue* g = &whole;
    for (auto& [k, v] : whole.members) {
      if (k == "gemm_backend_config") g = &v;
    }
    g->Erase("selected_algorithm");
  }
  std::vector<std::string> operands;
  for (const Instruction* op : inst.operands()) {
    operands.push_back(op->shape().ToString());
  }
  std::string out = absl::StrCat(shape.ToString(), " custom-call(",
                                 absl::StrJoin(operands, ", "), ")");
  for (const RawAttribute& a : inst.attrs().other) {
    absl::StrAppend(&out, ", ", a.name, "=", a.value);
  }
  if (!conv || !inst.attrs().backend_config.empty()) {
    absl::StrAppend(&out, ", backend_config=", PrintJson(whole, sort_config));
  }
  return out;
}

std::string LibraryFusionBackendConfig(const LibraryFusion& call) {
  return absl::StrCat(R"({"fusion_backend_config":{"kind":"__library_call"},)",
                      R"("library_call":{"custom_call_target":)",
                      JsonQuote(call.target), R"(,"key":)", JsonQuote(call.key),
                      call.legacy_key.empty() ? ""
                                              : absl::StrCat(R"(,"legacy_key":)",
                                                             JsonQuote(call.legacy_key)),
                      "}}");
}

std::optional<LibraryFusion> LibraryFusionOf(const Instruction& fusion) {
  if (fusion.opcode() != Opcode::kFusion ||
      !absl::StrContains(fusion.attrs().backend_config, "\"library_call\"")) {
    return std::nullopt;
  }
  absl::StatusOr<JsonValue> config = ParseJson(fusion.attrs().backend_config);
  if (!config.ok()) return std::nullopt;
  const JsonValue* call = config->Find("library_call");
  if (call == nullptr) return std::nullopt;
  const JsonValue* target = call->Find("custom_call_target");
  const JsonValue* key = call->Find("key");
  if (target == nullptr || key == nullptr ||
      target->kind != JsonValue::Kind::kString ||
      key->kind != JsonValue::Kind::kString) {
    return std::nullopt;
  }
  LibraryFusion out{target->text, key->text, ""};
  if (const JsonValue* legacy = call->Find("legacy_key");
      legacy != nullptr && legacy->kind == JsonValue::Kind::kString) {
    out.legacy_key = legacy->text;
  }
  return out;
}

}  // namespace xtune
