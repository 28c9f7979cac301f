// Parses the value of a `constant(...)` instruction: a scalar ("1", "-inf",
// "true"), nested braces for arrays in logical row-major order ("{1, 2}",
// "{ {1, 2}, {3, 4} }"), or a parenthesised tuple.
#ifndef XTUNE_IR_LITERAL_PARSER_H_
#define XTUNE_IR_LITERAL_PARSER_H_

#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/text_cursor.h"

namespace xtune {

// Reads a literal of `shape` at the cursor. With `allow_scalar_fill`, a
// single value for an array shape fills every element (cache keys print an
// all-ones array as "1"). Errors: InvalidArgument with the position (wrong
// element count, bad number, elided "{...}" constant).
absl::StatusOr<Literal> ParseLiteral(TextCursor& cursor, const Shape& shape,
                                     bool allow_scalar_fill = false);

}  // namespace xtune

#endif  // XTUNE_IR_LITERAL_PARSER_H_
