// Elemental code for the windowed operations (scalar mode only): each
// output element loops over its window, as the evaluator defines them
// (eval/window.h) — a direct convolution, a pooling reduction, and
// select-and-scatter in gather form (an operand element sums the source
// values of the windows that select it, so no two threads write one
// element). The fusion's loop kernel (CPU and CUDA) runs them, tuned like
// any loop fusion.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/elemental.h"
#include "ir/window.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

// Opens a loop over window dimension `w` at output position `o`; returns
// the variables of the input index it reads and of the window position (the
// loop `continue`s past padding and base-dilation holes).
std::pair<std::string, std::string> OpenWindowLoop(const WindowDimension& w,
                                                   const std::string& o, int64_t input,
                                                   CodeBuffer* out) {
  const std::string k = out->Fresh("w");
  out->Open(absl::StrCat("for (int64_t ", k, " = 0; ", k, " < ", w.size, "; ++", k, ")"));
  const std::string p = out->Fresh("p");
  out->Linef("const int64_t ", p, " = (", o, ") * ", w.stride, " + ", k, " * ",
             w.window_dilation, " - ", w.pad_low, ";");
  std::string skip = absl::StrCat(p, " < 0 || ", p, " >= ", (input - 1) * w.base_dilation + 1);
  if (w.base_dilation != 1) absl::StrAppend(&skip, " || ", p, " % ", w.base_dilation, " != 0");
  out->Linef("if (", skip, ") continue;");
  const std::string i = out->Fresh("i");
  out->Linef("const int64_t ", i, " = ", p, w.base_dilation == 1 ? "" : absl::StrCat(" / ", w.base_dilation), ";");
  return {i, k};
}

}  // namespace

absl::StatusOr<std::string> ElementalEmitter::EmitConvolution(
    const Instruction* inst, const std::vector<IndexExpr>& index, CodeBuffer* out) {
  if (width_ > 1) return absl::UnimplementedError("convolution in vector mode");
  const InstructionAttrs& a = inst->attrs();
  const ConvDimensions& d = a.conv;
  const Shape& lhs = inst->operand(0)->shape();
  const Shape& rhs = inst->operand(1)->shape();
  const DType t = inst->shape().dtype();
  const bool wide = t == DType::kF64 || lhs.dtype() == DType::kF64 || rhs.dtype() == DType::kF64;
  const std::string acc_type = IsFloat(t) ? (wide ? "double" : "float") : "uint64_t";
  const std::string acc = out->Fresh("conv");
  out->Linef(acc_type, " ", acc, " = 0;");
  const int64_t out_features = inst->shape().dim(d.output_feature);
  const int64_t in_per_group = rhs.dim(d.kernel_input_feature);
  const std::string o = index[d.output_feature].base;
  std::vector<IndexExpr> li(lhs.rank()), ri(rhs.rank());
  li[d.input_batch] = {absl::StrCat("(", index[d.output_batch].base, " + ((", o, ") / ",
                                    out_features / a.batch_group_count, ") * ",
                                    lhs.dim(d.input_batch) / a.batch_group_count, ")"),
                       0};
  ri[d.kernel_output_feature] = {o, 0};
  for (size_t s = 0; s < d.input_spatial.size(); ++s) {
    const WindowDimension& w = a.window[s];
    auto [i, k] = OpenWindowLoop(w, index[d.output_spatial[s]].base,
                                 lhs.dim(d.input_spatial[s]), out);
    li[d.input_spatial[s]] = {i, 0};
    ri[d.kernel_spatial[s]] = {w.reversal ? absl::StrCat("(", w.size - 1, " - ", k, ")") : k, 0};
  }
  const std::string c = out->Fresh("c");
  out->Open(absl::StrCat("for (int64_t ", c, " = 0; ", c, " < ", in_per_group, "; ++", c, ")"));
  li[d.input_feature] = {absl::StrCat("((", o, ") / ", out_features / a.feature_group_count,
                                      ") * ", in_per_group, " + ", c),
                         0};
  ri[d.kernel_input_feature] = {c, 0};
  // Operands in their own type, as every convolution kernel reads them.
  XTUNE_ASSIGN_OR_RETURN(std::string x, Emit(inst->operand(0), li, out));
  XTUNE_ASSIGN_OR_RETURN(std::string y, Emit(inst->operand(1), ri, out));
  if (IsFloat(lhs.dtype()) && lhs.dtype() != DType::kF32 && lhs.dtype() != DType::kF64) {
    x = RoundTo(absl::StrCat("(float)", x), lhs.dtype());
  }
  if (IsFloat(rhs.dtype()) && rhs.dtype() != DType::kF32 && rhs.dtype() != DType::kF64) {
    y = RoundTo(absl::StrCat("(float)", y), rhs.dtype());
  }
  out->Linef(acc, " += (", acc_type, ")(", x, ") * (", acc_type, ")(", y, ");");
  out->Close();
  for (size_t s = 0; s < d.input_spatial.size(); ++s) out->Close();
  const std::string v = out->Fresh();
  if (acc_type == "uint64_t") {
    out->Linef("const auto ", v, " = ", WrapInteger(absl::StrCat("(int64_t)", acc), t), ";");
  } else if (t == DType::kF32 || t == DType::kF64) {
    out->Linef("const auto ", v, " = (", ScalarType(t), ")", acc, ";");
  } else {
    out->Linef("const auto ", v, " = ", RoundTo(absl::StrCat("(float)", acc), t), ";");
  }
  return v;
}

absl::StatusOr<std::string> ElementalEmitter::EmitReduceWindow(
    const Instruction* inst, int64_t output, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  if (width_ > 1) return absl::UnimplementedError("reduce-window in vector mode");
  const int64_t n = inst->operand_count() / 2;
  const Computation& to_apply = *inst->called_computations()[0];
  if (n > 1 && to_apply.root()->opcode() != Opcode::kTuple) {
    return absl::UnimplementedError(absl::StrCat(
        "variadic reduce-window '", inst->name(), "' whose to_apply does not end in a tuple"));
  }
  XTUNE_ASSIGN_OR_RETURN(std::vector<std::string> accs, EmitAccumulators(inst, out));
  const Shape& in = inst->operand(0)->shape();
  std::vector<IndexExpr> in_index;
  for (int64_t s = 0; s < in.rank(); ++s) {
    in_index.push_back(
        {OpenWindowLoop(inst->attrs().window[s], index[s].base, in.dim(s), out).first, 0});
  }
  XTUNE_RETURN_IF_ERROR(EmitAccumulate(inst, accs, in_index, out));
  for (int64_t s = 0; s < in.rank(); ++s) out->Close();
  return accs[output];
}

absl::StatusOr<std::string> ElementalEmitter::EmitSelectAndScatter(
    const Instruction* inst, const std::vector<IndexExpr>& index, CodeBuffer* out) {
  if (width_ > 1) return absl::UnimplementedError("select-and-scatter in vector mode");
  const std::vector<WindowDimension>& window = inst->attrs().window;
  const Instruction* operand = inst->operand(0);
  const Shape& in = operand->shape();
  const Shape& src = inst->operand(1)->shape();
  const Computation& select = *inst->called_computations()[0];
  const Computation& scatter = *inst->called_computations()[1];
  const std::string type = ScalarType(in.dtype());
  XTUNE_ASSIGN_OR_RETURN(std::string init, Emit(inst->operand(2), {}, out));
  const std::string acc = out->Fresh("acc");
  out->Linef(type, " ", acc, " = ", init, ";");
  // Every window holding this element: source position o for offset w.
  std::vector<IndexExpr> o_index;
  for (int64_t s = 0; s < in.rank(); ++s) {
    const WindowDimension& w = window[s];
    const std::string k = out->Fresh("w"), q = out->Fresh("q"), o = out->Fresh("o");
    out->Open(absl::StrCat("for (int64_t ", k, " = 0; ", k, " < ", w.size, "; ++", k, ")"));
    out->Linef("const int64_t ", q, " = (", index[s].base, ") * ", w.base_dilation, " + ",
               w.pad_low, " - ", k, " * ", w.window_dilation, ";");
    out->Linef("if (", q, " < 0 || ", q, " % ", w.stride, " != 0 || ", q, " / ", w.stride,
               " >= ", src.dim(s), ") continue;");
    out->Linef("const int64_t ", o, " = ", q, " / ", w.stride, ";");
    o_index.push_back({o, 0});
  }
  // That window's selected element: the first, replaced by each later
  // candidate `select` does not prefer the current one to.
  const std::string have = out->Fresh("have"), cur = out->Fresh("cur");
  std::vector<std::string> chosen;
  out->Linef("bool ", have, " = false;");
  out->Linef(type, " ", cur, " = 0;");
  for (int64_t s = 0; s < in.rank(); ++s) {
    chosen.push_back(out->Fresh("sel"));
    out->Linef("int64_t ", chosen.back(), " = -1;");
  }
  std::vector<IndexExpr> cand_index;
  for (int64_t s = 0; s < in.rank(); ++s) {
    cand_index.push_back({OpenWindowLoop(window[s], o_index[s].base, in.dim(s), out).first, 0});
  }
  XTUNE_ASSIGN_OR_RETURN(std::string cand, Emit(operand, cand_index, out));
  Bind(select.parameter(0), cur);
  Bind(select.parameter(1), cand);
  absl::StatusOr<std::string> keep = Emit(select.root(), {}, out);
  bound_.erase(select.parameter(0));
  bound_.erase(select.parameter(1));
  XTUNE_RETURN_IF_ERROR(keep.status());
  out->Open(absl::StrCat("if (!", have, " || !(", *keep, "))"));
  out->Linef(have, " = true;");
  out->Linef(cur, " = ", cand, ";");
  for (int64_t s = 0; s < in.rank(); ++s) out->Linef(chosen[s], " = ", cand_index[s].base, ";");
  out->Close();
  for (int64_t s = 0; s < in.rank(); ++s) out->Close();
  std::vector<std::string> same;
  for (int64_t s = 0; s < in.rank(); ++s) {
    same.push_back(absl::StrCat(chosen[s], " == (", index[s].base, ")"));
  }
  out->Open(absl::StrCat("if (", have, same.empty() ? "" : " && ", absl::StrJoin(same, " && "),
                         ")"));
  XTUNE_ASSIGN_OR_RETURN(std::string value, Emit(inst->operand(1), o_index, out));
  XTUNE_ASSIGN_OR_RETURN(std::string combined, EmitCombine(scatter, acc, value, out));
  out->Linef(acc, " = ", combined, ";");
  out->Close();
  for (int64_t s = 0; s < in.rank(); ++s) out->Close();
  return acc;
}

}  // namespace xtune::cpu
