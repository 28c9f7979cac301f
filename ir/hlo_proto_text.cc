#include "ir/hlo_proto_text.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "ir/dtype.h"
#include "ir/hlo_proto/xla_hlo.pb.h"
#include "ir/literal.h"
#include "ir/shape.h"
#include "util/json.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

namespace xp = ::xtune::xla_proto;

std::string Ints(const google::protobuf::RepeatedField<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

std::string TypeName(xp::PrimitiveType t) {
  return absl::AsciiStrToLower(xp::PrimitiveType_Name(t));
}

std::string ShapeText(const xp::ShapeProto& s) {
  if (s.element_type() == xp::TUPLE) {
    std::vector<std::string> parts;
    for (const xp::ShapeProto& e : s.tuple_shapes()) parts.push_back(ShapeText(e));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  if (s.element_type() == xp::TOKEN) return "token[]";
  std::vector<std::string> dims;
  for (int i = 0; i < s.dimensions_size(); ++i) {
    const bool dynamic = i < s.is_dynamic_dimension_size() && s.is_dynamic_dimension(i);
    dims.push_back(absl::StrCat(dynamic ? "<=" : "", s.dimensions(i)));
  }
  std::string out = absl::StrCat(TypeName(s.element_type()), "[", absl::StrJoin(dims, ","), "]");
  if (s.has_layout() && s.dimensions_size() > 0) {
    absl::StrAppend(&out, Ints(s.layout().minor_to_major()));
  }
  return out;
}

// Our shape of an array ShapeProto (its layout kept).
absl::StatusOr<Shape> ArrayShape(const xp::ShapeProto& s) {
  std::optional<DType> t = DTypeFromName(TypeName(s.element_type()));
  if (!t.has_value() || *t == DType::kTuple) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a constant of element type '", TypeName(s.element_type()), "', which xtune does not run"));
  }
  std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
  if (s.has_layout() && s.layout().minor_to_major_size() == s.dimensions_size()) {
    return Shape(*t, dims, {s.layout().minor_to_major().begin(), s.layout().minor_to_major().end()});
  }
  return Shape(*t, dims);
}

// The literal's values, in the text form the parser reads. The proto holds
// them in its shape's physical (layout) order, as our literals' bytes.
absl::StatusOr<std::string> LiteralText(const xp::LiteralProto& l) {
  if (l.shape().element_type() == xp::TUPLE) {
    std::vector<std::string> parts;
    for (const xp::LiteralProto& e : l.tuple_literals()) {
      absl::StatusOr<std::string> t = LiteralText(e);
      if (!t.ok()) return t.status();
      parts.push_back(*t);
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  absl::StatusOr<Shape> shape = ArrayShape(l.shape());
  if (!shape.ok()) return shape.status();
  Literal lit(*shape);
  std::vector<uint8_t>& bytes = lit.bytes();
  const int64_t n = shape->ElementCount();
  auto copy = [&](const void* data, size_t size) -> absl::Status {
    if (size != bytes.size()) {
      return absl::DataLossError(absl::StrCat("a ", shape->ToString(), " constant holds ", size,
                                              " bytes of data, not ", bytes.size()));
    }
    if (size > 0) std::memcpy(bytes.data(), data, size);
    return absl::OkStatus();
  };
  switch (shape->dtype()) {
    case DType::kPred: {
      if (l.preds_size() != n) return copy(nullptr, l.preds_size());
      for (int64_t i = 0; i < n; ++i) bytes[i] = l.preds(i) ? 1 : 0;
      break;
    }
    case DType::kS8: XTUNE_RETURN_IF_ERROR(copy(l.s8s().data(), l.s8s().size())); break;
    case DType::kU8: XTUNE_RETURN_IF_ERROR(copy(l.u8s().data(), l.u8s().size())); break;
    case DType::kS16: XTUNE_RETURN_IF_ERROR(copy(l.s16s().data(), l.s16s().size())); break;
    case DType::kU16: XTUNE_RETURN_IF_ERROR(copy(l.u16s().data(), l.u16s().size())); break;
    case DType::kF16: XTUNE_RETURN_IF_ERROR(copy(l.f16s().data(), l.f16s().size())); break;
    case DType::kBF16: XTUNE_RETURN_IF_ERROR(copy(l.bf16s().data(), l.bf16s().size())); break;
    case DType::kS32: XTUNE_RETURN_IF_ERROR(copy(l.s32s().data(), l.s32s_size() * 4)); break;
    case DType::kU32: XTUNE_RETURN_IF_ERROR(copy(l.u32s().data(), l.u32s_size() * 4)); break;
    case DType::kS64: XTUNE_RETURN_IF_ERROR(copy(l.s64s().data(), l.s64s_size() * 8)); break;
    case DType::kU64: XTUNE_RETURN_IF_ERROR(copy(l.u64s().data(), l.u64s_size() * 8)); break;
    case DType::kF32: XTUNE_RETURN_IF_ERROR(copy(l.f32s().data(), l.f32s_size() * 4)); break;
    case DType::kF64: XTUNE_RETURN_IF_ERROR(copy(l.f64s().data(), l.f64s_size() * 8)); break;
    case DType::kF8E4M3FN:
      XTUNE_RETURN_IF_ERROR(copy(l.f8e4m3fns().data(), l.f8e4m3fns().size()));
      break;
    case DType::kF8E5M2: XTUNE_RETURN_IF_ERROR(copy(l.f8e5m2s().data(), l.f8e5m2s().size())); break;
    case DType::kF8E4M3FNUZ:
      XTUNE_RETURN_IF_ERROR(copy(l.f8e4m3fnuzs().data(), l.f8e4m3fnuzs().size()));
      break;
    case DType::kF8E5M2FNUZ:
      XTUNE_RETURN_IF_ERROR(copy(l.f8e5m2fnuzs().data(), l.f8e5m2fnuzs().size()));
      break;
    case DType::kF8E4M3B11FNUZ:
      XTUNE_RETURN_IF_ERROR(copy(l.f8e4m3b11fnuzs().data(), l.f8e4m3b11fnuzs().size()));
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("a constant of element type '", DTypeName(shape->dtype()),
                       "', which xtune cannot read from a binary module"));
  }
  return lit.ToString();
}

std::string Quoted(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string MetadataText(const xp::OpMetadata& m) {
  std::vector<std::string> parts;
  if (!m.op_type().empty()) parts.push_back("op_type=" + Quoted(m.op_type()));
  if (!m.op_name().empty()) parts.push_back("op_name=" + Quoted(m.op_name()));
  if (!m.source_file().empty()) parts.push_back("source_file=" + Quoted(m.source_file()));
  if (m.source_line() != 0) parts.push_back(absl::StrCat("source_line=", m.source_line()));
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

std::string WindowText(const xp::Window& w) {
  std::vector<std::string> size, stride, pad, lhs, rhs, rev;
  bool any_stride = false, any_pad = false, any_lhs = false, any_rhs = false, any_rev = false;
  for (const xp::WindowDimension& d : w.dimensions()) {
    size.push_back(absl::StrCat(d.size()));
    stride.push_back(absl::StrCat(d.stride()));
    pad.push_back(absl::StrCat(d.padding_low(), "_", d.padding_high()));
    lhs.push_back(absl::StrCat(d.base_dilation()));
    rhs.push_back(absl::StrCat(d.window_dilation()));
    rev.push_back(d.window_reversal() ? "1" : "0");
    any_stride |= d.stride() != 1;
    any_pad |= d.padding_low() != 0 || d.padding_high() != 0;
    any_lhs |= d.base_dilation() != 1;
    any_rhs |= d.window_dilation() != 1;
    any_rev |= d.window_reversal();
  }
  std::string out = "{size=" + absl::StrJoin(size, "x");
  if (any_stride) absl::StrAppend(&out, " stride=", absl::StrJoin(stride, "x"));
  if (any_pad) absl::StrAppend(&out, " pad=", absl::StrJoin(pad, "x"));
  if (any_lhs) absl::StrAppend(&out, " lhs_dilate=", absl::StrJoin(lhs, "x"));
  if (any_rhs) absl::StrAppend(&out, " rhs_dilate=", absl::StrJoin(rhs, "x"));
  if (any_rev) absl::StrAppend(&out, " rhs_reversal=", absl::StrJoin(rev, "x"));
  return out + "}";
}

// XLA's dim_labels: "b01f_01io->b01f" (batch, feature, spatial dims by
// position in each of input, kernel and output).
std::string DimLabels(const xp::ConvolutionDimensionNumbers& d, int64_t rank) {
  auto labels = [&](int64_t a, char ca, int64_t b, char cb,
                    const google::protobuf::RepeatedField<int64_t>& spatial) {
    std::string s(rank, '?');
    if (a >= 0 && a < rank) s[a] = ca;
    if (b >= 0 && b < rank) s[b] = cb;
    for (int i = 0; i < spatial.size(); ++i) {
      if (spatial[i] >= 0 && spatial[i] < rank) s[spatial[i]] = static_cast<char>('0' + i);
    }
    return s;
  };
  return absl::StrCat(
      labels(d.input_batch_dimension(), 'b', d.input_feature_dimension(), 'f',
             d.input_spatial_dimensions()),
      "_",
      labels(d.kernel_input_feature_dimension(), 'i', d.kernel_output_feature_dimension(), 'o',
             d.kernel_spatial_dimensions()),
      "->",
      labels(d.output_batch_dimension(), 'b', d.output_feature_dimension(), 'f',
             d.output_spatial_dimensions()));
}

std::string ReplicaGroups(const google::protobuf::RepeatedPtrField<xp::ReplicaGroup>& groups) {
  std::vector<std::string> parts;
  for (const xp::ReplicaGroup& g : groups) parts.push_back(Ints(g.replica_ids()));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

class Converter {
 public:
  absl::StatusOr<std::string> Convert(const xp::HloModuleProto& m) {
    for (const xp::HloComputationProto& c : m.computations()) {
      computation_names_[c.id()] = c.name();
    }
    std::string out = absl::StrCat("HloModule ", m.name().empty() ? "module" : m.name());
    if (m.has_host_program_shape()) {
      std::vector<std::string> params;
      for (const xp::ShapeProto& p : m.host_program_shape().parameters()) {
        params.push_back(ShapeText(p));
      }
      absl::StrAppend(&out, ", entry_computation_layout={(", absl::StrJoin(params, ", "),
                      ")->", ShapeText(m.host_program_shape().result()), "}");
    }
    out += "\n";
    for (const xp::HloComputationProto& c : m.computations()) {
      const bool entry = m.entry_computation_id() != 0 ? c.id() == m.entry_computation_id()
                                                       : c.name() == m.entry_computation_name();
      absl::StatusOr<std::string> text = Computation(c, entry);
      if (!text.ok()) return text.status();
      absl::StrAppend(&out, "\n", *text);
    }
    return out;
  }

 private:
  absl::StatusOr<std::string> Computation(const xp::HloComputationProto& c, bool entry) {
    absl::flat_hash_map<int64_t, std::string> names;
    for (const xp::HloInstructionProto& i : c.instructions()) {
      names[i.id()] = i.name();
      if (i.shape().element_type() == xp::PRED && i.shape().dimensions_size() == 0) {
        pred_ids_.insert(i.id());
      }
    }
    std::string out = absl::StrCat(entry ? "ENTRY " : "", "%", c.name(), " {\n");
    for (const xp::HloInstructionProto& i : c.instructions()) {
      std::vector<std::string> operands;
      for (int64_t id : i.operand_ids()) {
        auto it = names.find(id);
        if (it == names.end()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "instruction '", i.name(), "' of computation '", c.name(),
              "' has operand id ", id, ", which names no instruction of that computation"));
        }
        operands.push_back("%" + it->second);
      }
      std::vector<std::string> callees;
      for (int64_t id : i.called_computation_ids()) {
        auto it = computation_names_.find(id);
        if (it == computation_names_.end()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "instruction '", i.name(), "' calls computation id ", id,
              ", which names no computation of the module"));
        }
        callees.push_back("%" + it->second);
      }
      std::string args;
      if (i.opcode() == "parameter") {
        args = absl::StrCat(i.parameter_number());
      } else if (i.opcode() == "constant") {
        absl::StatusOr<std::string> lit = LiteralText(i.literal());
        if (!lit.ok()) {
          return absl::Status(lit.status().code(),
                              absl::StrCat("constant '", i.name(), "': ", lit.status().message()));
        }
        args = *lit;
      } else {
        args = absl::StrJoin(operands, ", ");
      }
      absl::StrAppend(&out, "  ", i.id() == c.root_id() ? "ROOT " : "", "%", i.name(), " = ",
                      ShapeText(i.shape()), " ", i.opcode(), "(", args, ")");
      for (const std::string& a : Attributes(i, callees)) absl::StrAppend(&out, ", ", a);
      out += "\n";
    }
    return out + "}\n";
  }

  // XLA's attribute text for what the instruction holds.
  std::vector<std::string> Attributes(const xp::HloInstructionProto& i,
                                      const std::vector<std::string>& callees) {
    std::vector<std::string> a;
    const std::string& op = i.opcode();
    auto callee = [&](size_t k) { return k < callees.size() ? callees[k] : std::string("%?"); };
    auto all_callees = [&] { return absl::StrCat("{", absl::StrJoin(callees, ", "), "}"); };
    if (op == "fusion") {
      a.push_back("kind=" + i.fusion_kind());
      a.push_back("calls=" + callee(0));
    } else if (op == "while") {
      a.push_back("condition=" + callee(0));
      a.push_back("body=" + callee(1));
    } else if (op == "conditional") {
      if (callees.size() == 2 && i.operand_ids_size() == 3 && IsPredicate(i)) {
        a.push_back("true_computation=" + callee(0));
        a.push_back("false_computation=" + callee(1));
      } else {
        a.push_back("branch_computations=" + all_callees());
      }
    } else if (op == "select-and-scatter") {
      a.push_back("select=" + callee(0));
      a.push_back("scatter=" + callee(1));
    } else if (op == "custom-call" || op == "async-start") {
      // below
    } else if (!callees.empty()) {
      a.push_back("to_apply=" + callee(0));
    }
    if (op == "async-start" && !callees.empty()) a.push_back("calls=" + callee(0));
    if (op == "get-tuple-element") a.push_back(absl::StrCat("index=", i.tuple_index()));
    if (op == "iota" && i.dimensions_size() > 0) {
      a.push_back(absl::StrCat("iota_dimension=", i.dimensions(0)));
    }
    if (op == "broadcast" || op == "transpose" || op == "reduce" || op == "reverse" ||
        op == "concatenate" || op == "sort" || op == "map" || op == "all-gather" ||
        op == "reduce-scatter" || op == "all-to-all" || op == "topk") {
      if (op == "broadcast" || i.dimensions_size() > 0) {
        a.push_back("dimensions=" + Ints(i.dimensions()));
      }
    }
    if (op == "sort" && i.is_stable()) a.push_back("is_stable=true");
    if (op == "topk") {
      a.push_back(absl::StrCat("k=", i.k()));
      a.push_back(absl::StrCat("largest=", i.largest() ? "true" : "false"));
    }
    if (op == "reduce-precision") {
      a.push_back(absl::StrCat("exponent_bits=", i.exponent_bits()));
      a.push_back(absl::StrCat("mantissa_bits=", i.mantissa_bits()));
    }
    if (op == "slice") {
      std::vector<std::string> dims;
      for (const auto& d : i.slice_dimensions()) {
        dims.push_back(d.stride() == 1 ? absl::StrCat("[", d.start(), ":", d.limit(), "]")
                                       : absl::StrCat("[", d.start(), ":", d.limit(), ":",
                                                      d.stride(), "]"));
      }
      a.push_back(absl::StrCat("slice={", absl::StrJoin(dims, ", "), "}"));
    }
    if (op == "dynamic-slice") a.push_back("dynamic_slice_sizes=" + Ints(i.dynamic_slice_sizes()));
    if (op == "pad") {
      std::vector<std::string> dims;
      for (const auto& d : i.padding_config().dimensions()) {
        dims.push_back(d.interior_padding() == 0
                           ? absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high())
                           : absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high(), "_",
                                          d.interior_padding()));
      }
      a.push_back("padding=" + absl::StrJoin(dims, "x"));
    }
    if (op == "compare") {
      a.push_back("direction=" + i.comparison_direction());
      if (!i.comparison_type().empty()) {
        a.push_back("type=" + absl::AsciiStrToUpper(i.comparison_type()));
      }
    }
    if (op == "dot") DotAttributes(i, &a);
    if (op == "gather") {
      const xp::GatherDimensionNumbers& g = i.gather_dimension_numbers();
      a.push_back("offset_dims=" + Ints(g.offset_dims()));
      a.push_back("collapsed_slice_dims=" + Ints(g.collapsed_slice_dims()));
      a.push_back("start_index_map=" + Ints(g.start_index_map()));
      if (g.operand_batching_dims_size() > 0) {
        a.push_back("operand_batching_dims=" + Ints(g.operand_batching_dims()));
        a.push_back("start_indices_batching_dims=" + Ints(g.start_indices_batching_dims()));
      }
      a.push_back(absl::StrCat("index_vector_dim=", g.index_vector_dim()));
      a.push_back("slice_sizes=" + Ints(i.gather_slice_sizes()));
    }
    if (op == "scatter") {
      const xp::ScatterDimensionNumbers& s = i.scatter_dimension_numbers();
      a.push_back("update_window_dims=" + Ints(s.update_window_dims()));
      a.push_back("inserted_window_dims=" + Ints(s.inserted_window_dims()));
      a.push_back("scatter_dims_to_operand_dims=" + Ints(s.scatter_dims_to_operand_dims()));
      if (s.input_batching_dims_size() > 0) {
        a.push_back("input_batching_dims=" + Ints(s.input_batching_dims()));
        a.push_back("scatter_indices_batching_dims=" + Ints(s.scatter_indices_batching_dims()));
      }
      a.push_back(absl::StrCat("index_vector_dim=", s.index_vector_dim()));
      if (i.unique_indices()) a.push_back("unique_indices=true");
    }
    if ((op == "gather" || op == "scatter") && i.indices_are_sorted()) {
      a.push_back("indices_are_sorted=true");
    }
    // XLA's cuDNN convolution custom-calls carry a convolution's attributes.
    const bool conv_call = op == "custom-call" && i.has_convolution_dimension_numbers();
    if (op == "convolution" || op == "reduce-window" || op == "select-and-scatter" ||
        conv_call) {
      if (i.has_window()) a.push_back("window=" + WindowText(i.window()));
    }
    if (op == "convolution" || conv_call) {
      a.push_back("dim_labels=" + DimLabels(i.convolution_dimension_numbers(),
                                            i.convolution_dimension_numbers()
                                                    .input_spatial_dimensions_size() + 2));
      if (i.feature_group_count() > 1) {
        a.push_back(absl::StrCat("feature_group_count=", i.feature_group_count()));
      }
      if (i.batch_group_count() > 1) {
        a.push_back(absl::StrCat("batch_group_count=", i.batch_group_count()));
      }
      if (op == "convolution") PrecisionAttributes(i, &a);
    }
    if (op == "custom-call") {
      a.push_back("custom_call_target=" + Quoted(i.custom_call_target()));
      if (!callees.empty()) a.push_back("called_computations=" + all_callees());
      if (i.custom_call_has_side_effect()) a.push_back("custom_call_has_side_effect=true");
      if (i.custom_call_api_version() != xp::API_VERSION_ORIGINAL &&
          i.custom_call_api_version() != xp::API_VERSION_UNSPECIFIED) {
        a.push_back("api_version=" + xp::CustomCallApiVersion_Name(i.custom_call_api_version()));
      }
    }
    if (op == "rng-bit-generator") {
      a.push_back("algorithm=" + absl::AsciiStrToLower(xp::RandomAlgorithm_Name(i.rng_algorithm())));
    }
    if (op == "rng") {
      a.push_back("distribution=" +
                  absl::AsciiStrToLower(xp::RandomDistribution_Name(i.distribution())));
    }
    if (i.channel_id() > 0) a.push_back(absl::StrCat("channel_id=", i.channel_id()));
    // Replica groups: the device list of newer XLA, else the field older
    // XLA wrote (deprecated in XLA's schema since).
    if (i.has_collective_device_list() && i.collective_device_list().replica_groups_size() > 0) {
      a.push_back("replica_groups=" + ReplicaGroups(i.collective_device_list().replica_groups()));
    } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      if (i.replica_groups_size() > 0) {
        a.push_back("replica_groups=" + ReplicaGroups(i.replica_groups()));
      }
#pragma GCC diagnostic pop
    }
    if (i.use_global_device_ids()) a.push_back("use_global_device_ids=true");
    if (!i.async_execution_thread().empty() && i.async_execution_thread() != "main") {
      a.push_back("async_execution_thread=" + Quoted(i.async_execution_thread()));
    }
    if (i.has_metadata()) {
      std::string m = MetadataText(i.metadata());
      if (m != "{}") a.push_back("metadata=" + m);
    }
    if (!i.backend_config().empty()) {
      // JSON with its keys sorted, as XLA's text prints it; anything else
      // as a string.
      const std::string& bc = i.backend_config();
      absl::StatusOr<JsonValue> json = ParseJson(bc);
      a.push_back("backend_config=" +
                  (json.ok() && json->kind == JsonValue::Kind::kObject
                       ? PrintJson(*json, /*sort_keys=*/true)
                       : Quoted(bc)));
    }
    return a;
  }

  // Whether a conditional's selector (operand 0) is a pred: XLA's text then
  // names its two branches true_computation and false_computation.
  bool IsPredicate(const xp::HloInstructionProto& i) const {
    return pred_ids_.contains(i.operand_ids(0));
  }

  void DotAttributes(const xp::HloInstructionProto& i, std::vector<std::string>* a) {
    const xp::DotDimensionNumbers& d = i.dot_dimension_numbers();
    if (d.lhs_batch_dimensions_size() > 0) {
      a->push_back("lhs_batch_dims=" + Ints(d.lhs_batch_dimensions()));
    }
    a->push_back("lhs_contracting_dims=" + Ints(d.lhs_contracting_dimensions()));
    if (d.rhs_batch_dimensions_size() > 0) {
      a->push_back("rhs_batch_dims=" + Ints(d.rhs_batch_dimensions()));
    }
    a->push_back("rhs_contracting_dims=" + Ints(d.rhs_contracting_dimensions()));
    PrecisionAttributes(i, a);
  }

  void PrecisionAttributes(const xp::HloInstructionProto& i, std::vector<std::string>* a) {
    const xp::PrecisionConfig& p = i.precision_config();
    bool all_default = true;
    std::vector<std::string> levels;
    for (int level : p.operand_precision()) {
      levels.push_back(absl::AsciiStrToLower(
          xp::PrecisionConfig::Precision_Name(static_cast<xp::PrecisionConfig::Precision>(level))));
      all_default &= level == xp::PrecisionConfig::DEFAULT;
    }
    if (!all_default) {
      a->push_back(absl::StrCat("operand_precision={", absl::StrJoin(levels, ","), "}"));
    }
    if (p.algorithm() != xp::PrecisionConfig::ALG_UNSET) {
      absl::string_view name = xp::PrecisionConfig::Algorithm_Name(p.algorithm());
      absl::ConsumePrefix(&name, "ALG_");
      a->push_back(absl::StrCat("algorithm=", absl::AsciiStrToLower(name)));
    }
  }

  absl::flat_hash_map<int64_t, std::string> computation_names_;
  absl::flat_hash_set<int64_t> pred_ids_;  // ids of pred[] instructions
};

}  // namespace

bool LooksLikeHloProto(absl::string_view data, absl::string_view path) {
  if (absl::EndsWith(path, ".pb")) return true;
  for (unsigned char c : data.substr(0, 4096)) {
    // Text holds printable ASCII, whitespace and UTF-8; a protobuf starts
    // with a field tag and holds varints and lengths.
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) return true;
  }
  return false;
}

absl::StatusOr<std::string> HloProtoToText(absl::string_view data, absl::string_view source) {
  xp::HloModuleProto module;
  xp::HloProto hlo;
  // `--xla_dump_hlo_as_proto` writes an HloProto (the module in field 1);
  // other tools write the HloModuleProto alone.
  if (hlo.ParseFromArray(data.data(), static_cast<int>(data.size())) &&
      hlo.hlo_module().computations_size() > 0) {
    module = hlo.hlo_module();
  } else if (!module.ParseFromArray(data.data(), static_cast<int>(data.size())) ||
             module.computations_size() == 0) {
    return absl::DataLossError(absl::StrCat(
        source, ": not an XLA HloModuleProto or HloProto with computations (a binary module "
                "as --xla_dump_hlo_as_proto writes; truncated or another file?)"));
  }
  Converter converter;
  absl::StatusOr<std::string> text = converter.Convert(module);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(source, ": ", text.status().message()));
  }
  return text;
}

}  // namespace xtune
