// Parsers of the pieces of HLO text that need only a TextCursor: shapes
// (with layouts; tiling suffixes parsed and ignored), slice and padding
// attributes.
#ifndef XTUNE_IR_TEXT_PARSERS_H_
#define XTUNE_IR_TEXT_PARSERS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ir/instruction.h"
#include "ir/text_cursor.h"

namespace xtune {

// "f32[2,3]{1,0}", "f32[]", "(f32[2], s32[])". A missing layout is the
// default one; the result is validated. InvalidArgument with the position.
absl::StatusOr<Shape> ParseShapeText(TextCursor& cursor, int depth = 0);

// "{[0:2], [1:5:2]}".
absl::Status ParseSliceText(TextCursor& cursor,
                            std::vector<SliceDimension>* out);

// low_high[_interior] per dimension, joined by 'x': "0_0x1_-1_2".
absl::Status ParsePaddingText(TextCursor& cursor,
                              std::vector<PaddingDimension>* out);

}  // namespace xtune

#endif  // XTUNE_IR_TEXT_PARSERS_H_
