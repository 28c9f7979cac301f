#include "codegen/cpu/elemental.h"

#include "codegen/kernel_text.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_join.h"
#include "ir/literal.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

std::string Times(const std::string& e, int64_t c) {
  if (c == 0) return "0";
  if (c == 1) return e;
  return absl::StrCat("(", e, ") * ", c);
}

std::string Plus(const std::string& a, const std::string& b) {
  if (a == "0") return b;
  if (b == "0") return a;
  return absl::StrCat(a, " + ", b);
}

std::string Key(const Instruction* inst, const std::vector<IndexExpr>& index) {
  std::string key = absl::StrCat(reinterpret_cast<uintptr_t>(inst), "@");
  for (const IndexExpr& e : index) absl::StrAppend(&key, e.base, "~", e.lane_stride, ";");
  return key;
}

bool IsFloatCompute(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 || IsFp8(t);
}



}  // namespace

ElementalEmitter::ElementalEmitter(
    int width, std::function<std::string(int64_t)> param_pointer,
    std::string name_prefix)
    : width_(width),
      name_prefix_(std::move(name_prefix)),
      param_pointer_(std::move(param_pointer)) {}

void ElementalEmitter::Bind(const Instruction* inst, std::string var) {
  bound_[inst] = std::move(var);
}

std::string ElementalEmitter::WrapInteger(const std::string& e, DType t) {
  switch (t) {
    case DType::kS8:
      return absl::StrCat("((int64_t)(int8_t)(", e, "))");
    case DType::kS32:
      return absl::StrCat("((int64_t)(int32_t)(", e, "))");
    case DType::kU8:
      return absl::StrCat("((int64_t)(uint8_t)(", e, "))");
    case DType::kS16:
      return absl::StrCat("((int64_t)(int16_t)(", e, "))");
    case DType::kU16:
      return absl::StrCat("((int64_t)(uint16_t)(", e, "))");
    case DType::kU32:
      return absl::StrCat("((int64_t)(uint32_t)(", e, "))");
    case DType::kU64:
      return absl::StrCat("((int64_t)(uint64_t)(", e, "))");
    case DType::kPred:
      return absl::StrCat("((", e, ") != 0)");
    default:
      return absl::StrCat("((int64_t)(", e, "))");
  }
}

std::string ElementalEmitter::IntegerLiteral(int64_t v) {
  if (v == INT64_MIN) return "INT64_MIN";
  return absl::StrCat("INT64_C(", v, ")");
}

std::string ElementalEmitter::ScalarType(DType t) {
  if (IsFloatCompute(t)) return "float";
  if (t == DType::kF64) return "double";
  if (t == DType::kPred) return "bool";
  return "int64_t";
}

std::string ElementalEmitter::StorageType(DType t) {
  switch (t) {
    case DType::kPred: return "uint8_t";
    case DType::kS8: return "int8_t";
    case DType::kS32: return "int32_t";
    case DType::kS64: return "int64_t";
    case DType::kU8: return "uint8_t";
    case DType::kS16: return "int16_t";
    case DType::kU16: return "uint16_t";
    case DType::kU32: return "uint32_t";
    case DType::kU64: return "uint64_t";
    case DType::kF16:
    case DType::kBF16: return "uint16_t";
    case DType::kF32: return "float";
    case DType::kF64: return "double";
    default: return IsFp8(t) ? "uint8_t" : "void";
  }
}

std::string ElementalEmitter::ToStorage(const std::string& v, DType t) {
  switch (t) {
    case DType::kF16: return absl::StrCat("xt_f2h(", v, ")");
    case DType::kBF16: return absl::StrCat("xt_f2bf(", v, ")");
    case DType::kPred: return absl::StrCat("(uint8_t)((", v, ") ? 1 : 0)");
    default:
      if (IsFp8(t)) return Fp8Call("xt_f2f8", v, t);
      return absl::StrCat("(", StorageType(t), ")(", v, ")");
  }
}

std::string ElementalEmitter::FromStorage(const std::string& p,
                                          const std::string& at, DType t) {
  std::string e = absl::StrCat(p, "[", at, "]");
  switch (t) {
    case DType::kF16: return absl::StrCat("xt_h2f(", e, ")");
    case DType::kBF16: return absl::StrCat("xt_bf2f(", e, ")");
    case DType::kPred: return absl::StrCat("(", e, " != 0)");
    case DType::kF32:
    case DType::kF64: return e;
    default:
      if (IsFp8(t)) return Fp8Call("xt_f82f", e, t);
      return absl::StrCat("(int64_t)", e);
  }
}

std::string ElementalEmitter::RoundTo(const std::string& f, DType t) {
  if (t == DType::kF16) return absl::StrCat("xt_round_h(", f, ")");
  if (t == DType::kBF16) return absl::StrCat("xt_round_bf(", f, ")");
  if (IsFp8(t)) return Fp8Call("xt_round_f8", f, t);
  return f;
}

std::string ElementalEmitter::Literal(double v, DType t) {
  if (t == DType::kPred) return v != 0 ? "true" : "false";
  if (!IsFloat(t)) return IntegerLiteral(static_cast<int64_t>(v));
  bool f = t != DType::kF64;
  if (std::isnan(v)) {
    // The sign of a NaN matters to TOTALORDER comparisons (-nan < nan).
    std::string nan = f ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
    return std::signbit(v) ? "(-" + nan + ")" : nan;
  }
  if (std::isinf(v)) {
    std::string inf = f ? "__builtin_inff()" : "__builtin_inf()";
    return v < 0 ? "(-" + inf + ")" : inf;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return absl::StrCat("(", buf, f ? "f" : "", ")");
}

std::string ElementalEmitter::Splat(const std::string& scalar) const {
  if (width_ == 1) return scalar;
  return absl::StrCat("xt_vsplat(", scalar, ")");
}

IndexExpr PhysicalOffset(const Shape& shape, const std::vector<IndexExpr>& index) {
  std::vector<int64_t> strides = shape.PhysicalStrides();
  IndexExpr off{"0", 0};
  for (size_t d = 0; d < index.size(); ++d) {
    if (shape.dim(d) == 1) continue;
    off.base = Plus(off.base, Times(index[d].base, strides[d]));
    off.lane_stride += index[d].lane_stride * strides[d];
  }
  return off;
}

bool ElementalEmitter::Vectorizable(
    const Instruction* root,
    const absl::flat_hash_set<const Instruction*>& boundary) {
  std::vector<const Instruction*> stack = {root};
  // Pad and concatenate vectorize when the lanes (the root's last
  // dimension) stay every instruction's last dimension, so the lanes are
  // never padded or split: row-major layouts, no transpose, broadcasts that
  // keep the last dimension last, and neither on the last dimension.
  bool windows = false, lanes_move = false;
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (boundary.contains(i)) continue;
    DType t = i->shape().dtype();
    if (!IsFloatCompute(t) && t != DType::kPred) return false;
    const Shape& s = i->shape();
    if (s.IsArray() && s.rank() > 0 && s.minor_to_major()[0] != s.rank() - 1) lanes_move = true;
    switch (i->opcode()) {
      case Opcode::kPad: {
        if (t == DType::kPred || s.rank() == 0) return false;
        const PaddingDimension& p = i->attrs().padding.back();
        if (p.low != 0 || p.high != 0 || p.interior != 0) return false;
        windows = true;
        break;
      }
      case Opcode::kConcatenate:
        if (t == DType::kPred || s.rank() == 0 || i->attrs().dimensions[0] == s.rank() - 1) {
          return false;
        }
        windows = true;
        break;
      case Opcode::kParameter:
      case Opcode::kIota:
        continue;
      case Opcode::kConstant:
        if (i->attrs().literal_elided) return false;
        continue;
      case Opcode::kBroadcast: {
        const std::vector<int64_t>& d = i->attrs().dimensions;
        if (!d.empty() && d.back() != s.rank() - 1) lanes_move = true;
        break;
      }
      case Opcode::kTranspose:
        lanes_move = true;
        break;
      case Opcode::kSlice:
      case Opcode::kReverse:
      case Opcode::kCopy:
        break;
      case Opcode::kCompare:
        if (i->attrs().comparison_type == "TOTALORDER") return false;
        break;
      case Opcode::kConvert: {
        DType from = i->operand(0)->shape().dtype();
        if (!IsFloatCompute(from) && from != DType::kPred) return false;
        break;
      }
      default:
        if (!IsElementwise(i->opcode()) ||
            i->opcode() == Opcode::kBitcastConvert) {
          return false;
        }
    }
    for (const Instruction* op : i->operands()) stack.push_back(op);
  }
  return !(windows && lanes_move);
}

void ElementalEmitter::BindBuffer(const Instruction* inst, std::string pointer,
                                  std::vector<int64_t> strides) {
  buffers_[inst] = {std::move(pointer), std::move(strides)};
}

absl::StatusOr<std::string> ElementalEmitter::Emit(
    const Instruction* inst, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  auto bound = bound_.find(inst);
  if (bound != bound_.end()) return bound->second;
  std::string key = Key(inst, index);
  if (const std::string* v = out->Find(key)) return *v;
  auto buffer = buffers_.find(inst);
  if (buffer != buffers_.end()) {
    IndexExpr off{"0", 0};
    const std::vector<int64_t>& strides = buffer->second.second;
    for (size_t d = 0; d < index.size(); ++d) {
      if (strides[d] == 0) continue;
      off.base = Plus(off.base, Times(index[d].base, strides[d]));
      off.lane_stride += index[d].lane_stride * strides[d];
    }
    const std::string& p = buffer->second.first;
    std::string v = out->Fresh();
    if (width_ == 1) {
      out->Linef("const float ", v, " = ", p, "[", off.base, "];");
    } else if (off.lane_stride == 1) {
      out->Linef("const xt_vf ", v, " = xt_load(", p, " + ", off.base, ");");
    } else if (off.lane_stride == 0) {
      out->Linef("const xt_vf ", v, " = xt_vsplat(", p, "[", off.base, "]);");
    } else {
      out->Linef("xt_vf ", v, ";");
      out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ", p, "[",
                 off.base, " + l * ", off.lane_stride, "];");
    }
    out->Remember(key, v);
    return v;
  }
  XTUNE_ASSIGN_OR_RETURN(std::string var, EmitUncached(inst, index, out));
  out->Remember(key, var);
  return var;
}

absl::StatusOr<std::string> ElementalEmitter::EmitParameterLoad(
    const Instruction* inst, const std::string& pointer,
    const std::vector<IndexExpr>& index, CodeBuffer* out) {
  DType t = inst->shape().dtype();
  IndexExpr off = PhysicalOffset(inst->shape(), index);
  auto scalar_load = [&](const std::string& at) -> std::string {
    std::string e = absl::StrCat(pointer, "[", at, "]");
    switch (t) {
      case DType::kF16: return absl::StrCat("xt_h2f(", e, ")");
      case DType::kBF16: return absl::StrCat("xt_bf2f(", e, ")");
      case DType::kPred: return absl::StrCat("(", e, " != 0)");
      case DType::kF32:
      case DType::kF64: return e;
      default:
        if (IsFp8(t)) return Fp8Call("xt_f82f", e, t);
        return absl::StrCat("(int64_t)", e);
    }
  };
  std::string v = out->Fresh();
  if (width_ == 1 || off.lane_stride == 0) {
    std::string s = scalar_load(off.base);
    if (width_ == 1) {
      out->Linef("const auto ", v, " = ", s, ";");
    } else if (t == DType::kPred) {
      out->Linef("const xt_vi ", v, " = (xt_vi){} + (", s, " ? -1 : 0);");
    } else {
      out->Linef("const xt_vf ", v, " = xt_vsplat(", s, ");");
    }
    return v;
  }
  if (off.lane_stride == 1 && t != DType::kPred && !IsFp8(t)) {
    const char* fn = t == DType::kF16 ? "xt_load_h"
                     : t == DType::kBF16 ? "xt_load_bf" : "xt_load";
    out->Linef("const xt_vf ", v, " = ", fn, "(", pointer, " + ", off.base,
               ");");
    return v;
  }
  // Strided: gather lane by lane.
  out->Linef(t == DType::kPred ? "xt_vi " : "xt_vf ", v, ";");
  std::string at = absl::StrCat(off.base, " + l * ", off.lane_stride);
  if (t == DType::kPred) {
    out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ", scalar_load(at),
               " ? -1 : 0;");
  } else {
    out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ", scalar_load(at),
               ";");
  }
  return v;
}

absl::StatusOr<std::string> ElementalEmitter::EmitUncached(
    const Instruction* inst, const std::vector<IndexExpr>& index,
    CodeBuffer* out) {
  const InstructionAttrs& a = inst->attrs();
  const Shape& shape = inst->shape();
  switch (inst->opcode()) {
    case Opcode::kParameter:
      return EmitParameterLoad(inst, param_pointer_(a.parameter_number), index,
                               out);
    case Opcode::kConstant: {
      if (a.literal_elided) {
        return absl::UnimplementedError("constant value is elided");
      }
      if (shape.rank() == 0) {
        std::string v = out->Fresh();
        DType t = shape.dtype();
        // Integers as their exact bits (through a double, s64 and u64 values
        // past 2^53 would round).
        std::string lit = IsFloat(t)            ? Literal(a.literal.GetDouble(0), t)
                          : t == DType::kPred ? Literal(a.literal.GetInt(0), t)
                                              : IntegerLiteral(a.literal.GetInt(0));
        if (width_ > 1 && t == DType::kPred) {
          out->Linef("const xt_vi ", v, " = (xt_vi){} + (", lit, " ? -1 : 0);");
        } else {
          out->Linef("const auto ", v, " = ", Splat(lit), ";");
        }
        return v;
      }
      auto it = constant_arrays_.find(inst);
      if (it == constant_arrays_.end()) {
        std::string name = absl::StrCat(name_prefix_, "_", constant_arrays_.size());
        DType t = shape.dtype();
        std::vector<std::string> values, bit_values;
        bool non_finite = false;
        const std::vector<uint8_t>& bytes = a.literal.bytes();
        int64_t size = DTypeByteSize(t);
        for (int64_t i = 0; i < shape.ElementCount(); ++i) {
          // Physical order: read the raw element at physical index i.
          int64_t bits = 0;
          std::memcpy(&bits, bytes.data() + i * size, size);
          switch (t) {
            case DType::kF32: {
              float f;
              std::memcpy(&f, &bits, 4);
              values.push_back(Literal(f, t));
              non_finite |= !std::isfinite(f);
              bit_values.push_back(absl::StrCat(static_cast<uint32_t>(bits), "u"));
              break;
            }
            case DType::kF64: {
              double d;
              std::memcpy(&d, &bits, 8);
              values.push_back(Literal(d, t));
              non_finite |= !std::isfinite(d);
              bit_values.push_back(absl::StrCat(static_cast<uint64_t>(bits), "ull"));
              break;
            }
            case DType::kS8: values.push_back(absl::StrCat(static_cast<int8_t>(bits))); break;
            case DType::kS16: values.push_back(absl::StrCat(static_cast<int16_t>(bits))); break;
            case DType::kS32: values.push_back(absl::StrCat(static_cast<int32_t>(bits))); break;
            case DType::kS64: values.push_back(IntegerLiteral(bits)); break;
            default: values.push_back(absl::StrCat(static_cast<uint64_t>(bits) &
                                                   ((size == 8) ? ~0ull : ((1ull << (8 * size)) - 1)),
                                                   size == 8 ? "ull" : ""));
          }
        }
        if (non_finite) {
          // NaN and infinity have no constant expression in NVRTC (a
          // __device__ array needs one): the array holds the bits, read
          // through a union.
          int64_t n = shape.ElementCount();
          absl::StrAppend(&globals_, array_qualifier_, " union { ",
                          t == DType::kF32 ? "uint32_t" : "uint64_t", " bits[", n, "]; ",
                          StorageType(t), " v[", n, "]; } ", name, " = {{",
                          absl::StrJoin(bit_values, ", "), "}};\n");
          name += ".v";
        } else {
          absl::StrAppend(&globals_, array_qualifier_, " ", StorageType(t), " ", name,
                          "[] = {", absl::StrJoin(values, ", "), "};\n");
        }
        it = constant_arrays_.emplace(inst, name).first;
      }
      return EmitParameterLoad(inst, it->second, index, out);
    }
    case Opcode::kIota: {
      const IndexExpr& e = index[a.iota_dimension];
      std::string v = out->Fresh();
      DType t = shape.dtype();
      if (width_ == 1) {
        if (IsFloat(t)) {
          std::string conv = absl::StrCat("(", ScalarType(t), ")(", e.base, ")");
          conv = RoundTo(conv, t);
          out->Linef("const auto ", v, " = ", conv, ";");
        } else {
          out->Linef("const auto ", v, " = ", WrapInteger(e.base, t), ";");
        }
      } else {
        out->Linef("xt_vf ", v, ";");
        std::string conv = absl::StrCat("(float)(", e.base, " + l * ", e.lane_stride, ")");
        conv = RoundTo(conv, t);
        out->Linef("for (int l = 0; l < XT_W; ++l) ", v, "[l] = ", conv, ";");
      }
      return v;
    }
    case Opcode::kBroadcast: {
      std::vector<IndexExpr> op_index;
      for (int64_t d : a.dimensions) op_index.push_back(index[d]);
      return Emit(inst->operand(0), op_index, out);
    }
    case Opcode::kTranspose: {
      std::vector<IndexExpr> op_index(index.size());
      for (size_t d = 0; d < index.size(); ++d) op_index[a.dimensions[d]] = index[d];
      return Emit(inst->operand(0), op_index, out);
    }
    case Opcode::kSlice: {
      std::vector<IndexExpr> op_index;
      for (size_t d = 0; d < index.size(); ++d) {
        const SliceDimension& s = a.slice[d];
        op_index.push_back({Plus(Times(index[d].base, s.stride),
                                 s.start == 0 ? "0" : absl::StrCat(s.start)),
                            index[d].lane_stride * s.stride});
      }
      return Emit(inst->operand(0), op_index, out);
    }
    case Opcode::kReverse: {
      std::vector<IndexExpr> op_index = index;
      for (int64_t d : a.dimensions) {
        op_index[d] = {absl::StrCat("(", shape.dim(d) - 1, " - (", index[d].base, "))"),
                       -index[d].lane_stride};
      }
      return Emit(inst->operand(0), op_index, out);
    }
    case Opcode::kCopy:
      return Emit(inst->operand(0), index, out);
    case Opcode::kReshape:
    case Opcode::kBitcast: {
      if (width_ > 1) return absl::UnimplementedError("reshape in vector mode");
      // Linear position in this shape (row-major for reshape, physical for
      // bitcast), then the operand index at that position.
      const Shape& in = inst->operand(0)->shape();
      bool physical = inst->opcode() == Opcode::kBitcast;
      std::string lin = out->Fresh("lin");
      std::vector<int64_t> strides =
          physical ? shape.PhysicalStrides() : RowMajorStrides(shape.dims());
      std::string expr = "0";
      for (size_t d = 0; d < index.size(); ++d) {
        expr = Plus(expr, Times(index[d].base, strides[d]));
      }
      out->Linef("const int64_t ", lin, " = ", expr, ";");
      std::vector<int64_t> in_strides =
          physical ? in.PhysicalStrides() : RowMajorStrides(in.dims());
      std::vector<IndexExpr> op_index;
      for (int64_t d = 0; d < in.rank(); ++d) {
        op_index.push_back({absl::StrCat("((", lin, " / ", in_strides[d], ") % ",
                                         in.dim(d), ")"),
                            0});
      }
      XTUNE_ASSIGN_OR_RETURN(std::string v, Emit(inst->operand(0), op_index, out));
      // XLA's optimized modules also reinterpret bits with a bitcast.
      if (physical && in.dtype() != shape.dtype()) {
        return EmitBitsAs(v, in.dtype(), shape.dtype(), out);
      }
      return v;
    }
    case Opcode::kPad: {
      XTUNE_ASSIGN_OR_RETURN(std::string pad_value,
                             Emit(inst->operand(1), {}, out));
      const Shape& in = inst->operand(0)->shape();
      std::vector<std::string> conds;
      std::vector<IndexExpr> op_index;
      for (size_t d = 0; d < index.size(); ++d) {
        const PaddingDimension& p = a.padding[d];
        if (index[d].lane_stride != 0) {
          // Vector lanes: only along a dimension without padding.
          if (p.low != 0 || p.high != 0 || p.interior != 0) {
            return absl::UnimplementedError("pad of the vector lanes' dimension");
          }
          op_index.push_back(index[d]);
          continue;
        }
        std::string rel = absl::StrCat("(", index[d].base, " - (", p.low, "))");
        int64_t step = p.interior + 1;
        conds.push_back(absl::StrCat(rel, " >= 0"));
        if (step > 1) conds.push_back(absl::StrCat(rel, " % ", step, " == 0"));
        conds.push_back(absl::StrCat(rel, " / ", step, " < ", in.dim(d)));
        op_index.push_back({step > 1 ? absl::StrCat(rel, " / ", step) : rel, 0});
      }
      std::string v = out->Fresh();
      // (In vector mode the value is already a vector: scalars splat.)
      out->Linef(width_ > 1 ? "xt_vf" : ScalarType(shape.dtype()), " ", v, " = ", pad_value,
                 ";");
      out->Open(absl::StrCat("if (", conds.empty() ? "true" : absl::StrJoin(conds, " && "), ")"));
      XTUNE_ASSIGN_OR_RETURN(std::string x, Emit(inst->operand(0), op_index, out));
      out->Linef(v, " = ", x, ";");
      out->Close();
      return v;
    }
    case Opcode::kConcatenate: {
      int64_t dim = a.dimensions[0];
      if (width_ > 1 && index[dim].lane_stride != 0) {
        return absl::UnimplementedError("concatenate along the vector lanes");
      }
      std::string v = out->Fresh();
      out->Linef(width_ > 1 ? "xt_vf" : ScalarType(shape.dtype()), " ", v, " = ",
                 width_ > 1 ? Splat("0.0f") : "0", ";");
      int64_t offset = 0;
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        int64_t size = inst->operand(i)->shape().dim(dim);
        std::vector<IndexExpr> op_index = index;
        op_index[dim] = {absl::StrCat("(", index[dim].base, " - ", offset, ")"), 0};
        out->Open(absl::StrCat("if (", index[dim].base, " >= ", offset, " && ",
                               index[dim].base, " < ", offset + size, ")"));
        XTUNE_ASSIGN_OR_RETURN(std::string x, Emit(inst->operand(i), op_index, out));
        out->Linef(v, " = ", x, ";");
        out->Close();
        offset += size;
      }
      return v;
    }
    case Opcode::kReduce:
      return EmitReduce(inst, 0, index, out);
    case Opcode::kGetTupleElement:
      // One output of a variadic reduce (argmax: values and positions).
      if (inst->operand(0)->opcode() == Opcode::kReduce) {
        return EmitReduce(inst->operand(0), inst->attrs().tuple_index, index,
                          out);
      }
      if (inst->operand(0)->opcode() == Opcode::kReduceWindow) {
        return EmitReduceWindow(inst->operand(0), inst->attrs().tuple_index, index, out);
      }
      break;
    case Opcode::kConvolution:
      return EmitConvolution(inst, index, out);
    case Opcode::kReduceWindow:
      return EmitReduceWindow(inst, 0, index, out);
    case Opcode::kSelectAndScatter:
      return EmitSelectAndScatter(inst, index, out);
    case Opcode::kDynamicSlice:
      return EmitDynamicSlice(inst, index, out);
    case Opcode::kDynamicUpdateSlice:
      return EmitDynamicUpdateSlice(inst, index, out);
    case Opcode::kGather:
      return EmitGather(inst, index, out);
    case Opcode::kDot:
      return EmitDot(inst, index, out);
    default:
      break;
  }
  // A same-width bitcast-convert is elementwise too (the flatten pass
  // expands the others).
  if (!IsElementwise(inst->opcode()) &&
      inst->opcode() != Opcode::kBitcastConvert) {
    return absl::UnimplementedError(absl::StrCat(
        "no elemental code for ", OpcodeName(inst->opcode())));
  }
  std::vector<std::string> ops;
  for (int64_t i = 0; i < inst->operand_count(); ++i) {
    // Scalar operands of clamp/select broadcast implicitly.
    std::vector<IndexExpr> op_index =
        inst->operand(i)->shape().rank() == 0 ? std::vector<IndexExpr>{} : index;
    XTUNE_ASSIGN_OR_RETURN(std::string v, Emit(inst->operand(i), op_index, out));
    ops.push_back(v);
  }
  return EmitElementwise(inst, ops, out);
}

}  // namespace xtune::cpu
