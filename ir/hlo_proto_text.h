// XLA's binary modules: the HloModuleProto and HloProto files that
// `--xla_dump_hlo_as_proto` writes (`*.hlo.pb`, an HloProto holding the
// module) and that tools save (`*.pb`), read with protobuf against
// ir/hlo_proto/xla_hlo.proto (XLA's field numbers, the part xtune reads)
// and turned into HLO text, which the parser then reads like any module:
// one reader for both forms, so a binary module and its text dump give the
// same module, canonical text and cache keys.
//
// What the text holds: every computation (callees first, as the proto
// orders them; ENTRY marked), each instruction's name, shape with layout,
// opcode, operands, called computations (under the attribute XLA's text
// uses for the opcode) and the attributes of the proto that XLA prints:
// literals, dimensions, slices, padding, dot and gather/scatter dimension
// numbers, comparison direction and type, precision config, custom-call
// target and API version, backend_config, fusion kind, windows and
// convolution dimension labels, collective groups and channel ids, rng
// algorithm, metadata (op_type, op_name, source). Sharding and frontend
// attributes (no meaning on one device) are left out.
//
// Thread-safe (no shared state).
#ifndef XTUNE_IR_HLO_PROTO_TEXT_H_
#define XTUNE_IR_HLO_PROTO_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune {

// Whether `data` (a file's first bytes, or all of it) is a binary protobuf
// rather than HLO text: it holds a NUL byte or another byte no HLO text
// holds, or `path` ends in ".pb".
bool LooksLikeHloProto(absl::string_view data, absl::string_view path);

// The HLO text of the module in `data`, an HloProto or an HloModuleProto.
// Errors name `source`: DataLoss (not either message, truncated, or no
// computations), InvalidArgument (operand or computation ids that name
// nothing, an element type with no HLO name).
absl::StatusOr<std::string> HloProtoToText(absl::string_view data,
                                           absl::string_view source);

}  // namespace xtune

#endif  // XTUNE_IR_HLO_PROTO_TEXT_H_
