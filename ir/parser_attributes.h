// Which attributes each opcode takes: the ones the parser interprets and
// the ones an instruction cannot do without. Internal to the parser.
#ifndef XTUNE_IR_PARSER_ATTRIBUTES_H_
#define XTUNE_IR_PARSER_ATTRIBUTES_H_

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/instruction.h"
#include "ir/text_cursor.h"

namespace xtune {

// Whether the parser interprets attribute `attr` on opcode `op`; anything
// else is kept verbatim as a RawAttribute.
bool AttributeApplies(absl::string_view attr, Opcode op);

// Whether `attr` names called computations (calls=, to_apply=, ...).
bool IsCalleeAttribute(absl::string_view attr);

// Reads the value of attribute `attr` (the cursor after its '=') into
// `inst`'s attributes: interpreted when AttributeApplies, else kept raw.
// Not for callee attributes (the parser resolves those). InvalidArgument
// with the position on a bad value.
absl::Status ParseValueAttribute(const std::string& attr, Instruction* inst,
                                 TextCursor& cursor);

// InvalidArgument at `pos` (the instruction's start in `cursor`'s text) when
// `inst` lacks an attribute its opcode needs; `seen` holds the attribute
// names the instruction was written with.
absl::Status CheckRequiredAttributes(
    const Instruction& inst, const absl::flat_hash_set<std::string>& seen,
    size_t pos, const TextCursor& cursor);

}  // namespace xtune

#endif  // XTUNE_IR_PARSER_ATTRIBUTES_H_
