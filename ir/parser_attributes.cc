#include "ir/parser_attributes.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/text_parsers.h"
#include "ir/window.h"
#include "util/status_macros.h"

namespace xtune {

// Which instruction attributes the parser interprets, and for which opcodes.
// Anything else is kept verbatim as a RawAttribute.
bool AttributeApplies(absl::string_view attr, Opcode op) {
  if (attr == "dimensions") {
    return op == Opcode::kBroadcast || op == Opcode::kTranspose ||
           op == Opcode::kReduce || op == Opcode::kReverse ||
           op == Opcode::kConcatenate || op == Opcode::kSort;
  }
  if (attr == "is_stable") return op == Opcode::kSort;
  if (attr == "k" || attr == "largest") return op == Opcode::kTopK;
  if (attr == "exponent_bits" || attr == "mantissa_bits") {
    return op == Opcode::kReducePrecision;
  }
  if (attr == "lhs_batch_dims" || attr == "lhs_contracting_dims" ||
      attr == "rhs_batch_dims" || attr == "rhs_contracting_dims") {
    return op == Opcode::kDot;
  }
  if (attr == "slice") return op == Opcode::kSlice;
  if (attr == "padding") return op == Opcode::kPad;
  if (attr == "direction" || attr == "type") return op == Opcode::kCompare;
  if (attr == "index") return op == Opcode::kGetTupleElement;
  if (attr == "iota_dimension") return op == Opcode::kIota;
  if (attr == "kind") return op == Opcode::kFusion;
  if (attr == "calls") return op == Opcode::kFusion;
  if (attr == "dynamic_slice_sizes") return op == Opcode::kDynamicSlice;
  if (attr == "offset_dims" || attr == "collapsed_slice_dims" ||
      attr == "start_index_map" || attr == "operand_batching_dims" ||
      attr == "start_indices_batching_dims" || attr == "slice_sizes") {
    return op == Opcode::kGather;
  }
  if (attr == "update_window_dims" || attr == "inserted_window_dims" ||
      attr == "scatter_dims_to_operand_dims" || attr == "input_batching_dims" ||
      attr == "scatter_indices_batching_dims" || attr == "unique_indices") {
    return op == Opcode::kScatter;
  }
  if (attr == "index_vector_dim" || attr == "indices_are_sorted") {
    return op == Opcode::kGather || op == Opcode::kScatter;
  }
  if (attr == "window") {
    return op == Opcode::kConvolution || op == Opcode::kReduceWindow ||
           op == Opcode::kSelectAndScatter;
  }
  if (attr == "dim_labels" || attr == "feature_group_count" ||
      attr == "batch_group_count") {
    return op == Opcode::kConvolution;
  }
  if (attr == "select" || attr == "scatter") return op == Opcode::kSelectAndScatter;
  if (attr == "condition" || attr == "body") return op == Opcode::kWhile;
  if (attr == "true_computation" || attr == "false_computation" ||
      attr == "branch_computations") {
    return op == Opcode::kConditional;
  }
  if (attr == "to_apply") {
    return op == Opcode::kReduce || op == Opcode::kCall ||
           op == Opcode::kAllReduce || op == Opcode::kScatter ||
           op == Opcode::kReduceScatter || op == Opcode::kSort ||
           op == Opcode::kMap || op == Opcode::kReduceWindow;
  }
  return attr == "metadata" || attr == "backend_config";
}

absl::Status CheckRequiredAttributes(
    const Instruction& inst, const absl::flat_hash_set<std::string>& seen,
    size_t pos, const TextCursor& cursor) {
  std::vector<absl::string_view> required;
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
      // XLA's parser takes a broadcast of a scalar without dimensions
      // (XLA's multi-host runner data writes it so): dimensions={}.
      if (inst.operand_count() == 1 && inst.operand(0)->shape().IsArray() &&
          inst.operand(0)->shape().rank() == 0) {
        break;
      }
      required = {"dimensions"};
      break;
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
      required = {"dimensions"};
      break;
    case Opcode::kReduce:
      required = {"dimensions", "to_apply"};
      break;
    case Opcode::kSlice:
      required = {"slice"};
      break;
    case Opcode::kPad:
      required = {"padding"};
      break;
    case Opcode::kCompare:
      required = {"direction"};
      break;
    case Opcode::kGetTupleElement:
      required = {"index"};
      break;
    case Opcode::kFusion:
      required = {"kind", "calls"};
      break;
    case Opcode::kCall:
    case Opcode::kAllReduce:
    case Opcode::kReduceScatter:
    case Opcode::kMap:
      required = {"to_apply"};
      break;
    case Opcode::kDynamicSlice:
      required = {"dynamic_slice_sizes"};
      break;
    case Opcode::kSort:
      required = {"dimensions", "to_apply"};
      break;
    case Opcode::kTopK:
      required = {"k"};
      break;
    case Opcode::kCustomCall:
      required = {"custom_call_target"};
      break;
    case Opcode::kReducePrecision:
      required = {"exponent_bits", "mantissa_bits"};
      break;
    case Opcode::kWhile:
      required = {"condition", "body"};
      break;
    case Opcode::kConditional:
      if (seen.contains("branch_computations")) {
        if (seen.contains("true_computation") ||
            seen.contains("false_computation")) {
          return cursor.ErrorAt(
              pos, absl::StrCat("conditional '", inst.name(),
                                "' names both branch_computations and "
                                "true_/false_computation"));
        }
      } else {
        required = {"true_computation", "false_computation"};
      }
      break;
    case Opcode::kGather:
      required = {"offset_dims", "collapsed_slice_dims", "start_index_map",
                  "index_vector_dim", "slice_sizes"};
      break;
    case Opcode::kConvolution:
      required = {"dim_labels"};  // a 0-spatial convolution has no window
      break;
    case Opcode::kReduceWindow:  // a rank-0 one has no window either
      required = {"to_apply"};
      break;
    case Opcode::kSelectAndScatter:
      required = {"select", "scatter"};
      break;
    case Opcode::kScatter:
      required = {"update_window_dims", "inserted_window_dims",
                  "scatter_dims_to_operand_dims", "index_vector_dim",
                  "to_apply"};
      break;
    default:
      break;
  }
  for (absl::string_view attr : required) {
    if (!seen.contains(attr)) {
      return cursor.ErrorAt(
          pos, absl::StrCat(OpcodeName(inst.opcode()), " '", inst.name(),
                            "' needs the attribute '", attr, "'"));
    }
  }
  return absl::OkStatus();
}


bool IsCalleeAttribute(absl::string_view attr) {
  return attr == "calls" || attr == "to_apply" || attr == "condition" ||
         attr == "body" || attr == "true_computation" ||
         attr == "false_computation" || attr == "branch_computations" ||
         attr == "select" || attr == "scatter";
}

absl::Status ParseValueAttribute(const std::string& attr, Instruction* inst,
                                 TextCursor& cursor) {
  cursor.SkipSpace();
  size_t pos = cursor.pos();
  InstructionAttrs* a = inst->mutable_attrs();
  if (!AttributeApplies(attr, inst->opcode())) {
    XTUNE_ASSIGN_OR_RETURN(absl::string_view value, cursor.ParseRawValue());
    a->other.push_back({attr, std::string(value)});
    return absl::OkStatus();
  }
  if (attr == "dimensions") {
    XTUNE_ASSIGN_OR_RETURN(a->dimensions, cursor.ParseIntList());
  } else if (attr == "lhs_batch_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->dot.lhs_batch, cursor.ParseIntList());
  } else if (attr == "lhs_contracting_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->dot.lhs_contracting, cursor.ParseIntList());
  } else if (attr == "rhs_batch_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->dot.rhs_batch, cursor.ParseIntList());
  } else if (attr == "rhs_contracting_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->dot.rhs_contracting, cursor.ParseIntList());
  } else if (attr == "slice") {
    XTUNE_RETURN_IF_ERROR(ParseSliceText(cursor, &a->slice));
  } else if (attr == "padding") {
    XTUNE_RETURN_IF_ERROR(ParsePaddingText(cursor, &a->padding));
  } else if (attr == "direction") {
    XTUNE_ASSIGN_OR_RETURN(std::string d, cursor.ParseName("a direction"));
    static constexpr std::pair<absl::string_view, ComparisonDirection>
        kDirections[] = {{"EQ", ComparisonDirection::kEq},
                         {"NE", ComparisonDirection::kNe},
                         {"GE", ComparisonDirection::kGe},
                         {"GT", ComparisonDirection::kGt},
                         {"LE", ComparisonDirection::kLe},
                         {"LT", ComparisonDirection::kLt}};
    bool found = false;
    for (const auto& [text, dir] : kDirections) {
      if (d == text) {
        a->direction = dir;
        found = true;
      }
    }
    if (!found) {
      return cursor.ErrorAt(
          pos, absl::StrCat("unknown comparison direction '", d,
                            "' (expected EQ NE GE GT LE LT)"));
    }
  } else if (attr == "type") {
    XTUNE_ASSIGN_OR_RETURN(std::string t, cursor.ParseName("a comparison type"));
    if (t != "FLOAT" && t != "TOTALORDER" && t != "SIGNED" &&
        t != "UNSIGNED" && t != "PARTIALORDER") {
      return cursor.ErrorAt(
          pos, absl::StrCat("unknown comparison type '", t, "'"));
    }
    // The default for the operands' type (FLOAT, SIGNED, UNSIGNED) is kept
    // as no type, as XLA prints it: text and binary dumps key alike.
    const DType operand = inst->operand_count() > 0 && inst->operand(0)->shape().IsArray()
                              ? inst->operand(0)->shape().dtype()
                              : DType::kF32;
    const char* fallback = IsFloat(operand)    ? "FLOAT"
                           : IsInteger(operand) && IsSigned(operand) ? "SIGNED"
                                                                     : "UNSIGNED";
    a->comparison_type = t == fallback ? "" : t;
  } else if (attr == "index") {
    XTUNE_ASSIGN_OR_RETURN(a->tuple_index, cursor.ParseInt());
  } else if (attr == "dynamic_slice_sizes" || attr == "slice_sizes") {
    XTUNE_ASSIGN_OR_RETURN(a->slice_sizes, cursor.ParseIntList());
  } else if (attr == "offset_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->gather.offset_dims, cursor.ParseIntList());
  } else if (attr == "collapsed_slice_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->gather.collapsed_slice_dims,
                           cursor.ParseIntList());
  } else if (attr == "start_index_map") {
    XTUNE_ASSIGN_OR_RETURN(a->gather.start_index_map, cursor.ParseIntList());
  } else if (attr == "operand_batching_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->gather.operand_batching_dims,
                           cursor.ParseIntList());
  } else if (attr == "start_indices_batching_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->gather.start_indices_batching_dims,
                           cursor.ParseIntList());
  } else if (attr == "update_window_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->scatter.update_window_dims,
                           cursor.ParseIntList());
  } else if (attr == "inserted_window_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->scatter.inserted_window_dims,
                           cursor.ParseIntList());
  } else if (attr == "scatter_dims_to_operand_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->scatter.scatter_dims_to_operand_dims,
                           cursor.ParseIntList());
  } else if (attr == "input_batching_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->scatter.input_batching_dims,
                           cursor.ParseIntList());
  } else if (attr == "scatter_indices_batching_dims") {
    XTUNE_ASSIGN_OR_RETURN(a->scatter.scatter_indices_batching_dims,
                           cursor.ParseIntList());
  } else if (attr == "index_vector_dim") {
    XTUNE_ASSIGN_OR_RETURN(int64_t d, cursor.ParseInt());
    a->gather.index_vector_dim = d;
    a->scatter.index_vector_dim = d;
  } else if (attr == "indices_are_sorted" || attr == "unique_indices" ||
             attr == "is_stable" || attr == "largest") {
    XTUNE_ASSIGN_OR_RETURN(std::string b, cursor.ParseName("true or false"));
    if (b != "true" && b != "false") {
      return cursor.ErrorAt(pos, absl::StrCat("'", attr,
                                               "' must be true or false"));
    }
    bool* field = attr == "unique_indices" ? &a->unique_indices
                  : attr == "is_stable"    ? &a->is_stable
                  : attr == "largest"      ? &a->largest
                                           : &a->indices_are_sorted;
    *field = b == "true";
  } else if (attr == "window") {
    XTUNE_RETURN_IF_ERROR(ParseWindowText(cursor, &a->window));
  } else if (attr == "dim_labels") {
    XTUNE_ASSIGN_OR_RETURN(absl::string_view value, cursor.ParseRawValue());
    absl::StatusOr<ConvDimensions> d = ParseDimLabels(value);
    if (!d.ok()) return cursor.ErrorAt(pos, d.status().message());
    a->conv = *d;
  } else if (attr == "feature_group_count" || attr == "batch_group_count") {
    XTUNE_ASSIGN_OR_RETURN(int64_t n, cursor.ParseInt());
    if (n < 1) return cursor.ErrorAt(pos, absl::StrCat(attr, " must be at least 1"));
    (attr == "feature_group_count" ? a->feature_group_count : a->batch_group_count) = n;
  } else if (attr == "k") {
    XTUNE_ASSIGN_OR_RETURN(a->k, cursor.ParseInt());
  } else if (attr == "exponent_bits") {
    XTUNE_ASSIGN_OR_RETURN(a->exponent_bits, cursor.ParseInt());
  } else if (attr == "mantissa_bits") {
    XTUNE_ASSIGN_OR_RETURN(a->mantissa_bits, cursor.ParseInt());
  } else if (attr == "iota_dimension") {
    XTUNE_ASSIGN_OR_RETURN(a->iota_dimension, cursor.ParseInt());
  } else if (attr == "kind") {
    XTUNE_ASSIGN_OR_RETURN(a->fusion_kind, cursor.ParseName("a fusion kind"));
    if (a->fusion_kind != "kLoop" && a->fusion_kind != "kInput" &&
        a->fusion_kind != "kOutput" && a->fusion_kind != "kCustom") {
      return cursor.ErrorAt(
          pos, absl::StrCat("unknown fusion kind '", a->fusion_kind,
                            "' (expected kLoop kInput kOutput kCustom)"));
    }
  } else if (attr == "metadata") {
    XTUNE_ASSIGN_OR_RETURN(absl::string_view value, cursor.ParseRawValue());
    a->metadata = std::string(value);
  } else if (attr == "backend_config") {
    XTUNE_ASSIGN_OR_RETURN(absl::string_view value, cursor.ParseRawValue());
    a->backend_config = std::string(value);
  }
  return absl::OkStatus();
}

}  // namespace xtune
