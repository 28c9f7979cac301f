#include "ir/printer.h"

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/window.h"

namespace xtune {
namespace {

// How one instruction is printed.
struct InstructionStyle {
  // Maps an instruction to the name to print (identity when not canonical).
  std::function<std::string(const Instruction*)> name;
  bool canonical = false;
  CanonicalOptions canonical_options;
  // Prints a called computation inline at `indent` (canonical mode).
  std::function<std::string(const Computation*, int)> inline_body;
  int indent = 0;
};

std::string IntList(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

std::string CanonicalConstant(const Literal& literal) {
  if (literal.IsTuple()) return "{...}";
  int64_t n = literal.element_count();
  bool all_zero = true, all_one = true;
  for (int64_t i = 0; i < n; ++i) {
    double v = literal.GetDouble(i);
    all_zero = all_zero && v == 0.0;
    all_one = all_one && v == 1.0;
  }
  if (all_zero && n > 0) return "0";
  if (all_one && n > 0) return "1";
  DType t = literal.shape().dtype();
  if (IsInteger(t) || t == DType::kPred) return literal.ToString();
  return "{...}";
}

std::string FormatInstruction(const Instruction& inst,
                              const InstructionStyle& style) {
  const InstructionAttrs& a = inst.attrs();
  std::string out = absl::StrCat(style.name(&inst), " = ",
                                 inst.shape().ToString(), " ",
                                 OpcodeName(inst.opcode()), "(");
  switch (inst.opcode()) {
    case Opcode::kParameter:
      absl::StrAppend(&out, a.parameter_number);
      break;
    case Opcode::kConstant:
      if (a.literal_elided) {
        out += "{...}";
      } else if (style.canonical &&
                 style.canonical_options.essential_constants_only) {
        out += CanonicalConstant(a.literal);
      } else {
        out += a.literal.ToString();
      }
      break;
    default:
      for (int64_t i = 0; i < inst.operand_count(); ++i) {
        if (i > 0) out += ", ";
        const Instruction* op = inst.operand(i);
        absl::StrAppend(&out, op->shape().ToString(), " ", style.name(op));
      }
  }
  out += ")";
  std::vector<std::string> attrs;
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kReduce:
      attrs.push_back(absl::StrCat("dimensions=", IntList(a.dimensions)));
      break;
    case Opcode::kSort:
      attrs.push_back(absl::StrCat("dimensions=", IntList(a.dimensions)));
      if (a.is_stable) attrs.push_back("is_stable=true");
      break;
    case Opcode::kReducePrecision:
      attrs.push_back(absl::StrCat("exponent_bits=", a.exponent_bits));
      attrs.push_back(absl::StrCat("mantissa_bits=", a.mantissa_bits));
      break;
    case Opcode::kTopK:
      attrs.push_back(absl::StrCat("k=", a.k));
      attrs.push_back(absl::StrCat("largest=", a.largest ? "true" : "false"));
      break;
    case Opcode::kDot:
      if (!a.dot.lhs_batch.empty()) {
        attrs.push_back(absl::StrCat("lhs_batch_dims=", IntList(a.dot.lhs_batch)));
      }
      attrs.push_back(
          absl::StrCat("lhs_contracting_dims=", IntList(a.dot.lhs_contracting)));
      if (!a.dot.rhs_batch.empty()) {
        attrs.push_back(absl::StrCat("rhs_batch_dims=", IntList(a.dot.rhs_batch)));
      }
      attrs.push_back(
          absl::StrCat("rhs_contracting_dims=", IntList(a.dot.rhs_contracting)));
      break;
    case Opcode::kSlice: {
      bool strided = false;
      for (const SliceDimension& s : a.slice) strided |= s.stride != 1;
      std::vector<std::string> dims;
      for (const SliceDimension& s : a.slice) {
        dims.push_back(strided ? absl::StrCat("[", s.start, ":", s.limit, ":",
                                              s.stride, "]")
                               : absl::StrCat("[", s.start, ":", s.limit, "]"));
      }
      attrs.push_back(absl::StrCat("slice={", absl::StrJoin(dims, ", "), "}"));
      break;
    }
    case Opcode::kPad: {
      bool interior = false;
      for (const PaddingDimension& p : a.padding) interior |= p.interior != 0;
      std::vector<std::string> dims;
      for (const PaddingDimension& p : a.padding) {
        dims.push_back(interior
                           ? absl::StrCat(p.low, "_", p.high, "_", p.interior)
                           : absl::StrCat(p.low, "_", p.high));
      }
      attrs.push_back(absl::StrCat("padding=", absl::StrJoin(dims, "x")));
      break;
    }
    case Opcode::kCompare:
      attrs.push_back(
          absl::StrCat("direction=", ComparisonDirectionName(a.direction)));
      if (!a.comparison_type.empty()) {
        attrs.push_back(absl::StrCat("type=", a.comparison_type));
      }
      break;
    case Opcode::kIota:
      attrs.push_back(absl::StrCat("iota_dimension=", a.iota_dimension));
      break;
    case Opcode::kGetTupleElement:
      attrs.push_back(absl::StrCat("index=", a.tuple_index));
      break;
    case Opcode::kFusion:
      attrs.push_back(absl::StrCat("kind=", a.fusion_kind));
      break;
    case Opcode::kDynamicSlice:
      attrs.push_back(
          absl::StrCat("dynamic_slice_sizes=", IntList(a.slice_sizes)));
      break;
    case Opcode::kGather: {
      const GatherDimensions& g = a.gather;
      attrs.push_back(absl::StrCat("offset_dims=", IntList(g.offset_dims)));
      attrs.push_back(absl::StrCat("collapsed_slice_dims=",
                                   IntList(g.collapsed_slice_dims)));
      attrs.push_back(
          absl::StrCat("start_index_map=", IntList(g.start_index_map)));
      if (!g.operand_batching_dims.empty()) {
        attrs.push_back(absl::StrCat("operand_batching_dims=",
                                     IntList(g.operand_batching_dims)));
        attrs.push_back(absl::StrCat("start_indices_batching_dims=",
                                     IntList(g.start_indices_batching_dims)));
      }
      attrs.push_back(absl::StrCat("index_vector_dim=", g.index_vector_dim));
      attrs.push_back(absl::StrCat("slice_sizes=", IntList(a.slice_sizes)));
      if (a.indices_are_sorted) attrs.push_back("indices_are_sorted=true");
      break;
    }
    case Opcode::kScatter: {
      const ScatterDimensions& d = a.scatter;
      attrs.push_back(
          absl::StrCat("update_window_dims=", IntList(d.update_window_dims)));
      attrs.push_back(absl::StrCat("inserted_window_dims=",
                                   IntList(d.inserted_window_dims)));
      attrs.push_back(absl::StrCat("scatter_dims_to_operand_dims=",
                                   IntList(d.scatter_dims_to_operand_dims)));
      if (!d.input_batching_dims.empty()) {
        attrs.push_back(absl::StrCat("input_batching_dims=",
                                     IntList(d.input_batching_dims)));
        attrs.push_back(absl::StrCat("scatter_indices_batching_dims=",
                                     IntList(d.scatter_indices_batching_dims)));
      }
      attrs.push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim));
      if (a.indices_are_sorted) attrs.push_back("indices_are_sorted=true");
      if (a.unique_indices) attrs.push_back("unique_indices=true");
      break;
    }
    case Opcode::kConvolution:
      if (!a.window.empty()) attrs.push_back("window={" + WindowText(a.window) + "}");
      attrs.push_back("dim_labels=" + DimLabelsText(a.conv, inst.shape().rank()));
      if (a.feature_group_count != 1) {
        attrs.push_back(absl::StrCat("feature_group_count=", a.feature_group_count));
      }
      if (a.batch_group_count != 1) {
        attrs.push_back(absl::StrCat("batch_group_count=", a.batch_group_count));
      }
      break;
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
      attrs.push_back("window={" + WindowText(a.window) + "}");
      break;
    default:
      break;
  }
  const std::vector<Computation*>& callees = inst.called_computations();
  const bool pred_branches =
      inst.opcode() == Opcode::kConditional && callees.size() == 2 &&
      inst.operand_count() > 0 && inst.operand(0)->shape().IsArray() &&
      inst.operand(0)->shape().dtype() == DType::kPred;
  if (inst.opcode() == Opcode::kConditional && !pred_branches) {
    std::vector<std::string> names;
    for (const Computation* c : callees) names.push_back(c->name());
    attrs.push_back(absl::StrCat("branch_computations={",
                                 absl::StrJoin(names, ", "), "}"));
  } else {
    for (size_t k = 0; k < callees.size(); ++k) {
      const Computation* callee = callees[k];
      std::string key = "to_apply=";
      if (inst.opcode() == Opcode::kFusion) key = "calls=";
      if (inst.opcode() == Opcode::kWhile) {
        key = k == 0 ? "condition=" : "body=";
      }
      if (inst.opcode() == Opcode::kSelectAndScatter) {
        key = k == 0 ? "select=" : "scatter=";
      }
      if (pred_branches) {
        key = k == 0 ? "true_computation=" : "false_computation=";
      }
      if (!style.canonical) {
        attrs.push_back(key + callee->name());
      } else if (style.canonical_options.print_called_computations) {
        attrs.push_back(key + "\n" + style.inline_body(callee, style.indent));
      }
    }
  }
  if (!style.canonical) {
    for (const RawAttribute& raw : a.other) {
      attrs.push_back(absl::StrCat(raw.name, "=", raw.value));
    }
    if (!a.metadata.empty()) attrs.push_back("metadata=" + a.metadata);
    if (!a.backend_config.empty()) {
      attrs.push_back("backend_config=" + a.backend_config);
    }
  }
  for (const std::string& attr : attrs) absl::StrAppend(&out, ", ", attr);
  return out;
}

InstructionStyle PlainStyle() {
  InstructionStyle style;
  style.name = [](const Instruction* i) { return i->name(); };
  return style;
}

std::string CanonicalBody(const Computation& computation,
                          const CanonicalOptions& options, int indent) {
  absl::flat_hash_map<const Instruction*, std::string> names;
  InstructionStyle style;
  style.canonical = true;
  style.canonical_options = options;
  style.indent = indent + 2;
  style.name = [&names](const Instruction* i) {
    auto it = names.find(i);
    return it == names.end() ? std::string("tmp_?") : it->second;
  };
  style.inline_body = [&options](const Computation* c, int at) {
    return CanonicalBody(*c, options, at);
  };
  std::string pad(indent, ' ');
  std::string out = pad + "{\n";
  for (const Instruction* inst : computation.PostOrder()) {
    names[inst] = absl::StrCat("tmp_", names.size());
    absl::StrAppend(&out, pad, "  ",
                    inst == computation.root() ? "ROOT " : "",
                    FormatInstruction(*inst, style), "\n");
  }
  return out + pad + "}";
}

}  // namespace

std::string ToString(const Instruction& instruction) {
  return FormatInstruction(instruction, PlainStyle());
}

std::string ToString(const Computation& computation) {
  std::vector<std::string> params;
  for (const Instruction* p : computation.parameters()) {
    params.push_back(
        absl::StrCat(p->name(), ": ", p->shape().ToString(/*print_layout=*/false)));
  }
  std::string out = absl::StrCat(
      computation.name(), " (", absl::StrJoin(params, ", "), ") -> ",
      computation.root()->shape().ToString(/*print_layout=*/false), " {\n");
  InstructionStyle style = PlainStyle();
  for (const auto& inst : computation.instructions()) {
    absl::StrAppend(&out, "  ", inst.get() == computation.root() ? "ROOT " : "",
                    FormatInstruction(*inst, style), "\n");
  }
  return out + "}";
}

std::string ToString(const Module& module) {
  std::string out = absl::StrCat("HloModule ", module.name());
  for (const RawAttribute& attr : module.attributes()) {
    absl::StrAppend(&out, ", ", attr.name, "=", attr.value);
  }
  out += "\n";
  for (const auto& c : module.computations()) {
    absl::StrAppend(&out, "\n", c.get() == module.entry() ? "ENTRY " : "",
                    ToString(*c), "\n");
  }
  return out;
}

std::string CanonicalText(const Computation& computation,
                          const CanonicalOptions& options) {
  return CanonicalBody(computation, options, 0);
}

}  // namespace xtune
