#include "ir/parser_attributes.h"

#include <vector>

#include "absl/strings/str_cat.h"

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
  if (attr == "condition" || attr == "body") return op == Opcode::kWhile;
  if (attr == "true_computation" || attr == "false_computation" ||
      attr == "branch_computations") {
    return op == Opcode::kConditional;
  }
  if (attr == "to_apply") {
    return op == Opcode::kReduce || op == Opcode::kCall ||
           op == Opcode::kAllReduce || op == Opcode::kScatter ||
           op == Opcode::kReduceScatter || op == Opcode::kSort ||
           op == Opcode::kMap;
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


}  // namespace xtune
