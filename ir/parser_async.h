// How the parser reads XLA's asynchronous forms, and the operations that
// move data between host and device, which xtune refuses.
//
// XLA splits an operation into a start, optional updates and a done:
// `all-reduce-start`/`-done`, `all-gather-start`/`-done`,
// `collective-permute-start`/`-done`, `copy-start`/`-done`, the generic
// `async-start`/`-update`/`-done` (`calls=` a computation), and the sugar
// `<opcode>-start`/`-update`/`-done` that XLA's printer writes for any
// wrapped opcode (`reduce-scatter-start`, ...). xtune runs them
// synchronously: the start becomes the operation itself (a `call` for
// `async-start`), with the result's shape; the updates and the done name
// that same value.
#ifndef XTUNE_IR_PARSER_ASYNC_H_
#define XTUNE_IR_PARSER_ASYNC_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace xtune {

struct AsyncOpName {
  enum class Part { kStart, kUpdate, kDone };
  Part part;
  // The operation run synchronously: kCall for the generic async-start.
  Opcode wrapped;
  // Where the result sits in the start's tuple shape; -1 when the start's
  // shape is the result itself (all-reduce-start).
  int result_index;
};

// The async form `op_name` spells ("all-gather-start", "async-done", ...);
// nullopt when it is none (or wraps an opcode xtune does not know).
std::optional<AsyncOpName> ParseAsyncOpName(absl::string_view op_name);

// The synchronous result's shape within the start's declared shape;
// InvalidArgument naming `op_name` when the shape has no such element.
absl::StatusOr<Shape> AsyncResultShape(const AsyncOpName& form,
                                       absl::string_view op_name,
                                       const Shape& start_shape);

// Why xtune refuses `op_name` when it moves data between host and device
// during execution (infeed, outfeed, send, recv and their dones); nullopt
// for any other name.
std::optional<std::string> HostTransferRefusal(absl::string_view op_name);

}  // namespace xtune

#endif  // XTUNE_IR_PARSER_ASYNC_H_
