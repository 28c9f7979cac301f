// The per-opcode expressions of ElementalEmitter: elementwise ops and
// reductions (see elemental.h).
#include <algorithm>
#include <optional>

#include "codegen/cpu/elemental.h"
#include "codegen/kernel_text.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

bool IsF32Family(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 || IsFp8(t);
}

int64_t MinOf(DType t) {
  switch (t) {
    case DType::kS8: return INT8_MIN;
    case DType::kS16: return INT16_MIN;
    case DType::kS32: return INT32_MIN;
    case DType::kS64: return INT64_MIN;
    default: return 0;
  }
}

int64_t MaxOf(DType t) {
  switch (t) {
    case DType::kS8: return INT8_MAX;
    case DType::kS32: return INT32_MAX;
    case DType::kS64: return INT64_MAX;
    case DType::kU8: return UINT8_MAX;
    case DType::kS16: return INT16_MAX;
    case DType::kU16: return UINT16_MAX;
    case DType::kU32: return UINT32_MAX;
    case DType::kPred: return 1;
    default: return 0;
  }
}

// libm name of a float function for f32 ("expf") or f64 ("exp").
std::string Libm(const char* base, DType t) {
  return t == DType::kF64 ? std::string(base) : absl::StrCat(base, "f");
}

const char* CompareOp(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq: return "==";
    case ComparisonDirection::kNe: return "!=";
    case ComparisonDirection::kGe: return ">=";
    case ComparisonDirection::kGt: return ">";
    case ComparisonDirection::kLe: return "<=";
    case ComparisonDirection::kLt: return "<";
  }
  return "==";
}

// The u64 operations whose int64_t expression would be wrong for values
// past INT64_MAX (u64 values are carried as int64_t bit patterns): those
// that order, divide or shift right. nullopt for the others.
std::optional<std::string> U64Expression(Opcode op, const std::string& a,
                                         const std::string& b) {
  std::string ua = absl::StrCat("(uint64_t)", a);
  std::string ub = absl::StrCat("(uint64_t)", b);
  switch (op) {
    case Opcode::kDivide: return absl::StrCat("xt_u64_div(", a, ", ", b, ")");
    case Opcode::kRemainder:
      return absl::StrCat("xt_u64_rem(", a, ", ", b, ")");
    case Opcode::kPower: return absl::StrCat("xt_u64_pow(", a, ", ", b, ")");
    case Opcode::kMaximum:
      return absl::StrCat("(", ua, " > ", ub, " ? ", a, " : ", b, ")");
    case Opcode::kMinimum:
      return absl::StrCat("(", ua, " < ", ub, " ? ", a, " : ", b, ")");
    case Opcode::kShiftRightArithmetic:  // no sign bit: as logical
      return absl::StrCat("(", ub, " >= 64 ? 0 : (int64_t)(", ua, " >> ", b,
                          "))");
    case Opcode::kAbs: return a;
    case Opcode::kSign: return absl::StrCat("(int64_t)(", a, " != 0)");
    default: return std::nullopt;
  }
}

}  // namespace

absl::StatusOr<std::string> ElementalEmitter::EmitElementwise(
    const Instruction* inst, const std::vector<std::string>& ops,
    CodeBuffer* out) {
  Opcode op = inst->opcode();
  DType t = inst->shape().dtype();
  DType in = inst->operand(0)->shape().dtype();
  bool vec = width_ > 1;
  std::string a = ops.empty() ? "" : ops[0];
  std::string b = ops.size() > 1 ? ops[1] : "";
  std::string e;
  // A lane-by-lane call of a scalar libm function, for vector mode.
  auto lanewise = [&](const std::string& fn, int arity) {
    std::string v = out->Fresh();
    out->Linef("xt_vf ", v, ";");
    out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ", fn, "(", a,
               "[l]", arity == 2 ? absl::StrCat(", ", b, "[l]") : "", ");");
    return v;
  };
  if (op == Opcode::kReducePrecision && IsFp8(t)) {
    return absl::UnimplementedError("reduce-precision of an 8-bit float");
  }
  if (op == Opcode::kReducePrecision) {
    // A rounding point: f16/bf16 values are rounded to their type and
    // reduced on their own format, as the evaluator does.
    const char* fn = t == DType::kF16    ? "xt_rp_h"
                     : t == DType::kBF16 ? "xt_rp_bf"
                     : t == DType::kF64  ? "xt_rp_f64"
                                         : "xt_rp_f32";
    std::string bits = absl::StrCat(inst->attrs().exponent_bits, ", ",
                                    inst->attrs().mantissa_bits);
    std::string v = out->Fresh();
    if (!vec) {
      out->Linef("const auto ", v, " = ", fn, "(", a, ", ", bits, ");");
      return v;
    }
    out->Linef("xt_vf ", v, ";");
    out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ", fn, "(", a,
               "[l], ", bits, ");");
    return v;
  }
  if (op == Opcode::kConvert) {
    if (in == t) {
      e = a;
    } else if (IsFloat(t) && IsFloat(in)) {
      if (vec) {
        if (t == DType::kF16) return lanewise("xt_round_h", 1);
        if (t == DType::kBF16) return lanewise("xt_round_bf", 1);
        if (IsFp8(t)) {
          std::string v = out->Fresh();
          out->Linef("xt_vf ", v, ";");
          out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ",
                     RoundTo(absl::StrCat(a, "[l]"), t), ";");
          return v;
        }
        e = a;  // f16/bf16/f8 -> f32: already exact in float
      } else if (t == DType::kF64) {
        e = absl::StrCat("(double)(", a, ")");
      } else {
        e = RoundTo(absl::StrCat("(float)(", a, ")"), t);
      }
    } else if (in == DType::kPred && IsFloat(t)) {
      e = vec ? absl::StrCat("xt_sel(", a, ", xt_vsplat(1.0f), xt_vsplat(0.0f))")
              : absl::StrCat("(", a, " ? (", ScalarType(t), ")1 : (",
                             ScalarType(t), ")0)");
    } else if (IsFloat(in) && t == DType::kPred) {
      e = vec ? absl::StrCat("(", a, " != 0.0f)") : absl::StrCat("(", a, " != 0)");
    } else if (vec) {
      return absl::UnimplementedError("integer convert in vector mode");
    } else if (IsFloat(in) && t == DType::kU64) {
      e = absl::StrCat("xt_f2u64((double)(", a, "))");
    } else if (IsFloat(in)) {
      e = absl::StrCat("xt_f2i((double)(", a, "), ", IntegerLiteral(MinOf(t)), ", ",
                       IntegerLiteral(MaxOf(t)), ")");
    } else if (IsFloat(t)) {
      // u64 values are bit patterns: convert them as unsigned.
      std::string f = absl::StrCat("(", ScalarType(t), ")(",
                                   in == DType::kU64 ? "(uint64_t)" : "", a,
                                   ")");
      e = RoundTo(f, t);
    } else {
      e = WrapInteger(a, t);
    }
  } else if (op == Opcode::kBitcastConvert) {
    if (vec) return absl::UnimplementedError("bitcast-convert of this kind");
    return EmitBitsAs(a, in, t, out);
  } else if (op == Opcode::kCompare) {
    const char* cmp = CompareOp(inst->attrs().direction);
    if (inst->attrs().comparison_type == "TOTALORDER" && IsFloat(in)) {
      e = absl::StrCat("(xt_total_key(", a, ") ", cmp, " xt_total_key(", b, "))");
    } else if (in == DType::kU64) {
      e = absl::StrCat("((uint64_t)", a, " ", cmp, " (uint64_t)", b, ")");
    } else {
      e = absl::StrCat("(", a, " ", cmp, " ", b, ")");
    }
  } else if (op == Opcode::kSelect) {
    e = vec ? absl::StrCat("xt_sel(", a, ", ", b, ", ", ops[2], ")")
            : absl::StrCat("(", a, " ? ", b, " : ", ops[2], ")");
  } else if (op == Opcode::kClamp) {
    // clamp(lo, x, hi)
    if (IsFloat(t)) {
      e = absl::StrCat("xt_min(xt_max(", b, ", ", a, "), ", ops[2], ")");
    } else if (t == DType::kU64) {
      e = absl::StrCat("xt_u64_clamp(", a, ", ", b, ", ", ops[2], ")");
    } else {
      e = absl::StrCat("(", b, " < ", a, " ? ", a, " : (", b, " > ", ops[2],
                       " ? ", ops[2], " : ", b, "))");
    }
  } else if (t == DType::kPred || (op == Opcode::kNot && in == DType::kPred)) {
    switch (op) {
      case Opcode::kAnd:
      case Opcode::kMinimum: e = absl::StrCat("(", a, " & ", b, ")"); break;
      case Opcode::kOr:
      case Opcode::kMaximum: e = absl::StrCat("(", a, " | ", b, ")"); break;
      case Opcode::kXor: e = absl::StrCat("(", a, " ^ ", b, ")"); break;
      case Opcode::kNot: e = vec ? absl::StrCat("(~", a, ")") : absl::StrCat("(!", a, ")"); break;
      case Opcode::kIsFinite:
        e = vec ? absl::StrCat("((", a, " == ", a, ") & (xt_abs(", a,
                               ") != __builtin_inff()))")
                : absl::StrCat("(bool)isfinite(", a, ")");
        break;
      default:
        return absl::UnimplementedError(absl::StrCat(
            OpcodeName(op), " producing pred"));
    }
  } else if (IsFloat(t)) {
    bool f32 = IsF32Family(t);
    std::string one = f32 ? "1.0f" : "1.0";
    auto math = [&](const char* vec_fn, const char* libm) {
      return vec ? absl::StrCat(vec_fn, "(", a, ")")
                 : absl::StrCat(Libm(libm, t), "(", a, ")");
    };
    switch (op) {
      case Opcode::kAdd: e = absl::StrCat("(", a, " + ", b, ")"); break;
      case Opcode::kSubtract: e = absl::StrCat("(", a, " - ", b, ")"); break;
      case Opcode::kMultiply: e = absl::StrCat("(", a, " * ", b, ")"); break;
      case Opcode::kDivide: {
        // Dividing by a value bound for the whole loop (a per-row sum):
        // multiply by its reciprocal, which the compiler hoists (at most
        // one ulp from the quotient).
        bool invariant = false;
        for (const auto& [inst_bound, var] : bound_) invariant |= var == b;
        e = invariant && f32 ? absl::StrCat("(", a, " * (1.0f / ", b, "))")
                             : absl::StrCat("(", a, " / ", b, ")");
        break;
      }
      case Opcode::kMaximum: e = absl::StrCat("xt_max(", a, ", ", b, ")"); break;
      case Opcode::kMinimum: e = absl::StrCat("xt_min(", a, ", ", b, ")"); break;
      case Opcode::kRemainder:
        if (vec) return lanewise("fmodf", 2);
        e = absl::StrCat(Libm("fmod", t), "(", a, ", ", b, ")");
        break;
      case Opcode::kPower:
        if (vec) return lanewise("powf", 2);
        e = absl::StrCat(Libm("pow", t), "(", a, ", ", b, ")");
        break;
      case Opcode::kAtan2:
        if (vec) return lanewise("atan2f", 2);
        e = absl::StrCat(Libm("atan2", t), "(", a, ", ", b, ")");
        break;
      case Opcode::kNegate: e = absl::StrCat("(-", a, ")"); break;
      case Opcode::kAbs: e = vec ? absl::StrCat("xt_abs(", a, ")")
                                 : absl::StrCat(Libm("fabs", t), "(", a, ")");
        break;
      case Opcode::kSign:
        e = vec ? absl::StrCat("xt_sel(", a, " > 0.0f, xt_vsplat(1.0f), xt_sel(",
                               a, " < 0.0f, xt_vsplat(-1.0f), ", a, "))")
                : absl::StrCat("(", a, " > 0 ? ", one, " : (", a, " < 0 ? -",
                               one, " : ", a, "))");
        break;
      case Opcode::kExp: e = math("xt_exp", "exp"); break;
      case Opcode::kExpm1: e = math("xt_expm1", "expm1"); break;
      case Opcode::kLog: e = math("xt_log", "log"); break;
      case Opcode::kLog1p: e = math("xt_log1p", "log1p"); break;
      case Opcode::kTanh: e = math("xt_tanh", "tanh"); break;
      case Opcode::kSqrt: e = math("xt_sqrt", "sqrt"); break;
      case Opcode::kFloor: e = math("xt_floor", "floor"); break;
      case Opcode::kCeil: e = math("xt_ceil", "ceil"); break;
      case Opcode::kRoundNearestEven: e = math("xt_rint", "rint"); break;
      case Opcode::kRoundNearestAfz: e = math("xt_round_afz", "round"); break;
      case Opcode::kCos: e = math("xt_cos", "cos"); break;
      case Opcode::kSin: e = math("xt_sin", "sin"); break;
      case Opcode::kErf: e = math("xt_erf", "erf"); break;
      case Opcode::kTan:
        e = vec ? absl::StrCat("(xt_sin(", a, ") / xt_cos(", a, "))")
                : absl::StrCat(Libm("tan", t), "(", a, ")");
        break;
      case Opcode::kCbrt:
        if (vec) return lanewise("cbrtf", 1);
        e = absl::StrCat(Libm("cbrt", t), "(", a, ")");
        break;
      case Opcode::kRsqrt:
        e = vec ? absl::StrCat("(1.0f / xt_sqrt(", a, "))")
                : absl::StrCat("(", one, " / ", Libm("sqrt", t), "(", a, "))");
        break;
      case Opcode::kLogistic:
        e = vec ? absl::StrCat("xt_logistic(", a, ")")
                : absl::StrCat("(", one, " / (", one, " + ", Libm("exp", t),
                               "(-", a, ")))");
        break;
      default:
        return absl::UnimplementedError(absl::StrCat(
            OpcodeName(op), " on ", DTypeName(t)));
    }
  } else {
    if (vec) return absl::UnimplementedError("integers in vector mode");
    std::string ua = absl::StrCat("(uint64_t)", a);
    std::string ub = absl::StrCat("(uint64_t)", b);
    int bits = static_cast<int>(DTypeByteSize(t) * 8);
    std::string mask = bits == 64 ? "~0ull"
                                  : absl::StrCat("((1ull << ", bits, ") - 1)");
    std::optional<std::string> u64 =
        t == DType::kU64 ? U64Expression(op, a, b) : std::nullopt;
    if (u64.has_value()) {
      e = *u64;
    } else switch (op) {
      case Opcode::kAdd: e = WrapInteger(absl::StrCat("(int64_t)(", ua, " + ", ub, ")"), t); break;
      case Opcode::kSubtract: e = WrapInteger(absl::StrCat("(int64_t)(", ua, " - ", ub, ")"), t); break;
      case Opcode::kMultiply: e = WrapInteger(absl::StrCat("(int64_t)(", ua, " * ", ub, ")"), t); break;
      case Opcode::kDivide:
        e = absl::StrCat("xt_idiv(", a, ", ", b, ", ", IntegerLiteral(MinOf(t)), ", ",
                         IsUnsigned(t) ? 1 : 0, ", ", IntegerLiteral(MaxOf(t)), ")");
        break;
      case Opcode::kRemainder:
        e = absl::StrCat("xt_irem(", a, ", ", b, ", ", IntegerLiteral(MinOf(t)), ", ",
                         IsUnsigned(t) ? 1 : 0, ")");
        break;
      case Opcode::kMaximum: e = absl::StrCat("(", a, " > ", b, " ? ", a, " : ", b, ")"); break;
      case Opcode::kMinimum: e = absl::StrCat("(", a, " < ", b, " ? ", a, " : ", b, ")"); break;
      case Opcode::kAnd: e = absl::StrCat("(", a, " & ", b, ")"); break;
      case Opcode::kOr: e = absl::StrCat("(", a, " | ", b, ")"); break;
      case Opcode::kXor: e = absl::StrCat("(", a, " ^ ", b, ")"); break;
      case Opcode::kNot: e = WrapInteger(absl::StrCat("~", a), t); break;
      case Opcode::kNegate: e = WrapInteger(absl::StrCat("(int64_t)(0 - ", ua, ")"), t); break;
      case Opcode::kAbs:
        e = WrapInteger(absl::StrCat("(", a, " < 0 ? (int64_t)(0 - ", ua, ") : ", a, ")"), t);
        break;
      case Opcode::kSign: e = absl::StrCat("(int64_t)((", a, " > 0) - (", a, " < 0))"); break;
      case Opcode::kPopcnt: e = absl::StrCat("xt_popcnt(", a, ", ", bits, ")"); break;
      case Opcode::kClz: e = absl::StrCat("xt_clz(", a, ", ", bits, ")"); break;
      case Opcode::kPower: e = WrapInteger(absl::StrCat("xt_ipow(", a, ", ", b, ")"), t); break;
      case Opcode::kShiftLeft:
        e = absl::StrCat("(", ub, " >= ", bits, " ? 0 : ",
                         WrapInteger(absl::StrCat("(int64_t)(", ua, " << ", b, ")"), t), ")");
        break;
      case Opcode::kShiftRightLogical:
        e = absl::StrCat("(", ub, " >= ", bits, " ? 0 : ",
                         WrapInteger(absl::StrCat("(int64_t)((", ua, " & ", mask,
                                           ") >> ", b, ")"),
                              t),
                         ")");
        break;
      case Opcode::kShiftRightArithmetic:
        e = IsUnsigned(t)
                ? absl::StrCat("(", ub, " >= ", bits, " ? 0 : (", a, " >> ", b, "))")
                : absl::StrCat("(", a, " >> (", ub, " >= ", bits, " ? ",
                               bits - 1, " : ", b, "))");
        break;
      default:
        return absl::UnimplementedError(absl::StrCat(
            OpcodeName(op), " on ", DTypeName(t)));
    }
  }
  std::string v = out->Fresh();
  out->Linef("const auto ", v, " = ", e, ";");
  return v;
}

absl::StatusOr<std::string> ElementalEmitter::EmitCombine(
    const Computation& to_apply, const std::string& acc, const std::string& x,
    CodeBuffer* out) {
  const Instruction* root = to_apply.root();
  if (to_apply.parameter_count() != 2 || root->shape().IsTuple()) {
    return absl::UnimplementedError("variadic reductions");
  }
  Bind(to_apply.parameter(0), acc);
  Bind(to_apply.parameter(1), x);
  absl::StatusOr<std::string> result = Emit(root, {}, out);
  bound_.erase(to_apply.parameter(0));
  bound_.erase(to_apply.parameter(1));
  return result;
}

absl::StatusOr<std::string> ElementalEmitter::EmitDot(
    const Instruction* inst, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  if (width_ > 1) return absl::UnimplementedError("dot in vector mode");
  const DotDimensions& dd = inst->attrs().dot;
  const Shape& lhs = inst->operand(0)->shape();
  const Shape& rhs = inst->operand(1)->shape();
  DType t = inst->shape().dtype();
  bool wide = t == DType::kF64 || lhs.dtype() == DType::kF64 ||
              rhs.dtype() == DType::kF64;
  std::string acc_type = IsFloat(t) || IsFloat(lhs.dtype()) || IsFloat(rhs.dtype())
                             ? (wide ? "double" : "float")
                             : "uint64_t";
  std::string acc = out->Fresh("dot");
  out->Linef(acc_type, " ", acc, " = 0;");
  // The result index is [batch..., lhs free..., rhs free...].
  std::vector<IndexExpr> li(lhs.rank()), ri(rhs.rank());
  size_t next = 0;
  for (size_t i = 0; i < dd.lhs_batch.size(); ++i) {
    li[dd.lhs_batch[i]] = index[next];
    ri[dd.rhs_batch[i]] = index[next];
    ++next;
  }
  auto is_in = [](const std::vector<int64_t>& v, int64_t d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!is_in(dd.lhs_batch, d) && !is_in(dd.lhs_contracting, d)) li[d] = index[next++];
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!is_in(dd.rhs_batch, d) && !is_in(dd.rhs_contracting, d)) ri[d] = index[next++];
  }
  for (size_t i = 0; i < dd.lhs_contracting.size(); ++i) {
    std::string k = out->Fresh("k");
    out->Open(absl::StrCat("for (int64_t ", k, " = 0; ", k, " < ",
                           lhs.dim(dd.lhs_contracting[i]), "; ++", k, ")"));
    li[dd.lhs_contracting[i]] = {k, 0};
    ri[dd.rhs_contracting[i]] = {k, 0};
  }
  XTUNE_ASSIGN_OR_RETURN(std::string a, Emit(inst->operand(0), li, out));
  XTUNE_ASSIGN_OR_RETURN(std::string b, Emit(inst->operand(1), ri, out));
  if (acc_type == "uint64_t") {
    out->Linef(acc, " += (uint64_t)", a, " * (uint64_t)", b, ";");
  } else {
    out->Linef(acc, " += (", acc_type, ")", a, " * (", acc_type, ")", b, ";");
  }
  for (size_t i = 0; i < dd.lhs_contracting.size(); ++i) out->Close();
  std::string v = out->Fresh();
  if (acc_type == "uint64_t") {
    out->Linef("const auto ", v, " = ", WrapInteger(absl::StrCat("(int64_t)", acc), t), ";");
  } else if (t == DType::kF16) {
    out->Linef("const auto ", v, " = xt_round_h((float)", acc, ");");
  } else if (t == DType::kBF16) {
    out->Linef("const auto ", v, " = xt_round_bf((float)", acc, ");");
  } else if (IsFp8(t)) {
    out->Linef("const auto ", v, " = ",
               RoundTo(absl::StrCat("(float)", acc), t), ";");
  } else {
    out->Linef("const auto ", v, " = (", ScalarType(t), ")", acc, ";");
  }
  return v;
}

absl::StatusOr<std::string> ElementalEmitter::EmitReduce(
    const Instruction* inst, int64_t output, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  if (width_ > 1) return absl::UnimplementedError("reduce in vector mode");
  const int64_t n = inst->operand_count() / 2;
  const Computation& to_apply = *inst->called_computations()[0];
  if (n > 1 && to_apply.root()->opcode() != Opcode::kTuple) {
    return absl::UnimplementedError(absl::StrCat(
        "variadic reduce '", inst->name(),
        "' whose to_apply does not end in a tuple"));
  }
  const Instruction* input0 = inst->operand(0);
  const std::vector<int64_t>& reduced = inst->attrs().dimensions;
  XTUNE_ASSIGN_OR_RETURN(std::vector<std::string> accs, EmitAccumulators(inst, out));
  std::vector<IndexExpr> in_index;
  size_t kept = 0;
  int loops = 0;
  for (int64_t d = 0; d < input0->shape().rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) != reduced.end()) {
      std::string r = out->Fresh("r");
      out->Open(absl::StrCat("for (int64_t ", r, " = 0; ", r, " < ",
                             input0->shape().dim(d), "; ++", r, ")"));
      ++loops;
      in_index.push_back({r, 0});
    } else {
      in_index.push_back(index[kept++]);
    }
  }
  XTUNE_RETURN_IF_ERROR(EmitAccumulate(inst, accs, in_index, out));
  for (int i = 0; i < loops; ++i) out->Close();
  return accs[output];
}

absl::StatusOr<std::vector<std::string>> ElementalEmitter::EmitAccumulators(
    const Instruction* inst, CodeBuffer* out) {
  const int64_t n = inst->operand_count() / 2;
  std::vector<std::string> accs;
  for (int64_t j = 0; j < n; ++j) {
    XTUNE_ASSIGN_OR_RETURN(std::string init, Emit(inst->operand(n + j), {}, out));
    std::string acc = out->Fresh("acc");
    out->Linef(ScalarType(inst->operand(j)->shape().dtype()), " ", acc, " = ", init, ";");
    accs.push_back(acc);
  }
  return accs;
}

absl::Status ElementalEmitter::EmitAccumulate(const Instruction* inst,
                                              const std::vector<std::string>& accs,
                                              const std::vector<IndexExpr>& in_index,
                                              CodeBuffer* out) {
  const int64_t n = inst->operand_count() / 2;
  const Computation& to_apply = *inst->called_computations()[0];
  if (n == 1) {
    XTUNE_ASSIGN_OR_RETURN(std::string x, Emit(inst->operand(0), in_index, out));
    XTUNE_ASSIGN_OR_RETURN(std::string combined, EmitCombine(to_apply, accs[0], x, out));
    out->Linef(accs[0], " = ", combined, ";");
    return absl::OkStatus();
  }
  // Every new accumulator from the old ones, then all assigned at once.
  for (int64_t j = 0; j < n; ++j) {
    XTUNE_ASSIGN_OR_RETURN(std::string x, Emit(inst->operand(j), in_index, out));
    Bind(to_apply.parameter(j), accs[j]);
    Bind(to_apply.parameter(n + j), x);
  }
  std::vector<std::string> next;
  absl::Status status = absl::OkStatus();
  for (int64_t j = 0; j < n && status.ok(); ++j) {
    absl::StatusOr<std::string> v = Emit(to_apply.root()->operand(j), {}, out);
    if (v.ok()) next.push_back(*v);
    status = v.status();
  }
  for (int64_t p = 0; p < 2 * n; ++p) bound_.erase(to_apply.parameter(p));
  XTUNE_RETURN_IF_ERROR(status);
  for (int64_t j = 0; j < n; ++j) out->Linef(accs[j], " = ", next[j], ";");
  return absl::OkStatus();
}

absl::StatusOr<std::string> ElementalEmitter::EmitBitsAs(const std::string& a, DType in,
                                                        DType t, CodeBuffer* out) {
  if (DTypeByteSize(in) != DTypeByteSize(t) || t == DType::kPred || in == DType::kPred) {
    return absl::UnimplementedError("bitcast-convert of this kind");
  }
  std::string v = out->Fresh();
  std::string src = out->Fresh("bits");
  out->Linef(StorageType(in), " ", src, " = ", ToStorage(a, in), ";");
  out->Linef(StorageType(t), " ", src, "_out;");
  out->Linef("memcpy(&", src, "_out, &", src, ", sizeof ", src, ");");
  std::string load = absl::StrCat(src, "_out");
  if (t == DType::kF16) load = absl::StrCat("xt_h2f(", load, ")");
  if (t == DType::kBF16) load = absl::StrCat("xt_bf2f(", load, ")");
  if (IsFp8(t)) load = Fp8Call("xt_f82f", load, t);
  if (IsInteger(t)) load = absl::StrCat("(int64_t)", load);
  out->Linef("const auto ", v, " = ", load, ";");
  return v;
}

}  // namespace xtune::cpu
