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

// A number field (proto JSON writes doubles as numbers, int64s as strings);
// `fallback` when absent.
absl::StatusOr<double> Number(const JsonValue& config, absl::string_view field,
                              double fallback) {
  const JsonValue* v = config.Find(field);
  if (v == nullptr) return fallback;
  double x;
  if ((v->kind != JsonValue::Kind::kNumber &&
       v->kind != JsonValue::Kind::kString) ||
      !absl::SimpleAtod(v->text, &x)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", field, "\" must be a number"));
  }
  return x;
}

// The GemmBackendConfig object of a backend_config, bare or wrapped.
absl::StatusOr<JsonValue> GemmConfigJson(const Instruction& inst,
                                         JsonValue* whole) {
  absl::StatusOr<JsonValue> parsed = ParseJson(inst.attrs().backend_config);
  // XLA also writes the config as a string holding the JSON
  // (backend_config="{ \"gemm_backend_config\": ...}").
  if (parsed.ok() && parsed->kind == JsonValue::Kind::kString) {
    parsed = ParseJson(parsed->text);
  }
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
  return target == kCublasGemmTarget || target == kCublasLtMatmulTarget;
}

absl::StatusOr<GemmCall> ReadGemmCall(const Instruction& inst) {
  std::optional<std::string> target = CustomCallTarget(inst);
  if (!target.has_value()) return Bad(inst, "no custom_call_target");
  if (!IsLibraryCallTarget(*target)) {
    return absl::UnimplementedError(absl::StrCat(
        "the custom_call_target '", *target,
        "' is not one xtune runs (it runs ", kCublasGemmTarget, " and ",
        kCublasLtMatmulTarget, ")"));
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
    absl::StatusOr<double> x = Number(*config, "alpha_real", 1);
    if (!x.ok()) return x.status();
    call.alpha = *x;
    x = Number(*config, "beta", 0);
    if (!x.ok()) return x.status();
    call.beta = *x;
    x = Number(*config, "alpha_imag", 0);
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

  // Operands: A, B, [C when beta != 0], [bias].
  const int64_t want = 2 + (call.beta != 0 ? 1 : 0) +
                       (EpilogueHasBias(call.epilogue) ? 1 : 0);
  if (inst.operand_count() != want) {
    return Bad(inst, absl::StrCat("a ", GemmEpilogueName(call.epilogue),
                                  " gemm with beta ", call.beta, " takes ",
                                  want, " operands, not ",
                                  inst.operand_count()));
  }
  for (const Instruction* op : inst.operands()) {
    if (!op->shape().IsArray() || !IsFloat(op->shape().dtype())) {
      return Bad(inst, "its operands must be f16, bf16, f32 or f64 arrays");
    }
  }
  int64_t next = 2;
  if (call.beta != 0) call.c_operand = next++;
  if (EpilogueHasBias(call.epilogue)) call.bias_operand = next++;

  // Result: D, or (D, [aux], [s8 workspace]).
  const Shape& shape = inst.shape();
  if (shape.IsTuple()) {
    const std::vector<Shape>& elems = shape.tuple_shapes();
    const size_t with_aux = EpilogueHasAux(call.epilogue) ? 2 : 1;
    if (elems.size() != with_aux && elems.size() != with_aux + 1) {
      return Bad(inst, absl::StrCat("its result must be (D",
                                    with_aux == 2 ? ", aux" : "",
                                    ", s8 workspace)"));
    }
    call.result = elems[0];
    if (with_aux == 2) call.aux_index = 1;
    if (elems.size() == with_aux + 1) {
      const Shape& w = elems.back();
      if (!w.IsArray() || w.dtype() != DType::kS8 || w.rank() != 1) {
        return Bad(inst, "its last result must be the s8[n] workspace");
      }
      call.workspace_index = static_cast<int64_t>(with_aux);
    }
  } else {
    if (EpilogueHasAux(call.epilogue)) {
      return Bad(inst, "an *_AUX epilogue returns a tuple (D, aux, workspace)");
    }
    call.result = shape;
  }
  if (!call.result.IsArray() || !IsFloat(call.result.dtype())) {
    return Bad(inst, "its result must be an f16, bf16, f32 or f64 array");
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
       inst.operand(call.c_operand)->shape().dtype() != call.result.dtype())) {
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

absl::StatusOr<std::string> LibraryCallKeyText(const Instruction& inst) {
  JsonValue whole;
  absl::StatusOr<JsonValue> gemm = GemmConfigJson(inst, &whole);
  if (!gemm.ok()) return gemm.status();
  // Leave out the picker's answer wherever the gemm config is.
  if (JsonValue* g = [&]() -> JsonValue* {
        for (auto& [k, v] : whole.members) {
          if (k == "gemm_backend_config") return &v;
        }
        return &whole;
      }()) {
    g->Erase("selected_algorithm");
  }
  std::vector<std::string> operands;
  for (const Instruction* op : inst.operands()) {
    operands.push_back(op->shape().ToString());
  }
  std::string out = absl::StrCat(inst.shape().ToString(), " custom-call(",
                                 absl::StrJoin(operands, ", "), ")");
  for (const RawAttribute& a : inst.attrs().other) {
    absl::StrAppend(&out, ", ", a.name, "=", a.value);
  }
  absl::StrAppend(&out, ", backend_config=", PrintJson(whole, /*sort_keys=*/true));
  return out;
}

std::string LibraryFusionBackendConfig(const LibraryFusion& call) {
  return absl::StrCat(R"({"fusion_backend_config":{"kind":"__library_call"},)",
                      R"("library_call":{"custom_call_target":)",
                      JsonQuote(call.target), R"(,"key":)", JsonQuote(call.key),
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
  return LibraryFusion{target->text, key->text};
}

}  // namespace xtune
