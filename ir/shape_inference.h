// Shape inference: the result shape an instruction must have, given its
// operands' shapes and its attributes. Layouts are not inferred (the result
// gets the default layout); callers compare with Shape::Compatible.
#ifndef XTUNE_IR_SHAPE_INFERENCE_H_
#define XTUNE_IR_SHAPE_INFERENCE_H_

#include "absl/status/statusor.h"
#include "ir/instruction.h"

namespace xtune {

// Returns the inferred shape of `inst`, or InvalidArgument explaining what is
// inconsistent (without the location: the verifier adds it). For opcodes
// whose result dimensions are not determined by their operands (parameter,
// constant, iota, broadcast, reshape, bitcast, convert, dot's element type),
// the declared shape supplies the missing part and only consistency is
// checked.
absl::StatusOr<Shape> InferShape(const Instruction& inst);

}  // namespace xtune

#endif  // XTUNE_IR_SHAPE_INFERENCE_H_
