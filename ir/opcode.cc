#include "ir/opcode.h"

namespace xtune {
namespace {

enum class OpKind { kUnary, kBinary, kOther };

struct OpcodeInfo {
  Opcode op;
  absl::string_view name;
  OpKind kind;
};

constexpr OpcodeInfo kOpcodes[] = {
#define XTUNE_OPCODE_INFO(enum_name, text, kind) \
  {Opcode::enum_name, text, OpKind::kind},
    XTUNE_OPCODE_LIST(XTUNE_OPCODE_INFO)
#undef XTUNE_OPCODE_INFO
};

const OpcodeInfo& Info(Opcode op) { return kOpcodes[static_cast<int>(op)]; }

}  // namespace

absl::string_view OpcodeName(Opcode op) { return Info(op).name; }

std::optional<Opcode> OpcodeFromName(absl::string_view name) {
  for (const OpcodeInfo& info : kOpcodes) {
    if (info.name == name) return info.op;
  }
  return std::nullopt;
}

bool IsUnaryElementwise(Opcode op) { return Info(op).kind == OpKind::kUnary; }

bool IsBinaryElementwise(Opcode op) { return Info(op).kind == OpKind::kBinary; }

bool IsElementwise(Opcode op) {
  return IsUnaryElementwise(op) || IsBinaryElementwise(op) ||
         op == Opcode::kSelect || op == Opcode::kClamp ||
         op == Opcode::kCompare;
}

}  // namespace xtune
