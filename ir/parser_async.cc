#include "ir/parser_async.h"

#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace xtune {

std::optional<AsyncOpName> ParseAsyncOpName(absl::string_view op_name) {
  AsyncOpName form;
  absl::string_view base = op_name;
  if (absl::ConsumeSuffix(&base, "-start")) {
    form.part = AsyncOpName::Part::kStart;
  } else if (absl::ConsumeSuffix(&base, "-update")) {
    form.part = AsyncOpName::Part::kUpdate;
  } else if (absl::ConsumeSuffix(&base, "-done")) {
    form.part = AsyncOpName::Part::kDone;
  } else {
    return std::nullopt;
  }
  if (base == "async") {
    form.wrapped = Opcode::kCall;
    form.result_index = 1;  // ((operands...), result, context...)
    return form;
  }
  std::optional<Opcode> op = OpcodeFromName(base);
  // Sends, receives and the async forms of async forms are not operations
  // xtune runs.
  if (!op.has_value() || *op == Opcode::kAfterAll) return std::nullopt;
  form.wrapped = *op;
  if (*op == Opcode::kAllReduce) {
    form.result_index = -1;  // all-reduce-start has the result's shape
  } else if (*op == Opcode::kCopy) {
    form.result_index = 0;   // (destination, source, context)
  } else {
    form.result_index = 1;   // (operands, result, context...)
  }
  return form;
}

absl::StatusOr<Shape> AsyncResultShape(const AsyncOpName& form,
                                       absl::string_view op_name,
                                       const Shape& start_shape) {
  if (form.result_index < 0) return start_shape;
  if (!start_shape.IsTuple() || start_shape.IsToken() ||
      static_cast<int>(start_shape.tuple_shapes().size()) <=
          form.result_index) {
    return absl::InvalidArgumentError(absl::StrCat(
        op_name, " has shape ", start_shape.ToString(false),
        " but its shape must be a tuple with the result at index ",
        form.result_index,
        form.result_index == 0 ? " (destination, source, context)"
                               : " ((operands), result, context...)"));
  }
  return start_shape.tuple_shapes()[form.result_index];
}

std::optional<std::string> HostTransferRefusal(absl::string_view op_name) {
  for (absl::string_view op :
       {"infeed", "outfeed", "send", "recv", "send-done", "recv-done"}) {
    if (op_name == op) {
      return absl::StrCat(
          "'", op_name,
          "' moves data between the host and the device while the module "
          "runs; xtune runs modules whose inputs are parameters and whose "
          "outputs are the ROOT, without host transfers (infeed, outfeed, "
          "send, recv)");
    }
  }
  return std::nullopt;
}

}  // namespace xtune
