// Helpers shared by the shape inference files (one file per operation
// family: shape_inference.cc, shape_inference_indexing.cc). Internal to ir/.
#ifndef XTUNE_IR_SHAPE_INFERENCE_INTERNAL_H_
#define XTUNE_IR_SHAPE_INFERENCE_INTERNAL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/computation.h"
#include "ir/instruction.h"

namespace xtune {

// Dimension numbers must be distinct and in [0, rank).
absl::Status CheckDims(const std::vector<int64_t>& dims, int64_t rank,
                       absl::string_view what);

// Checks `c` takes `params` scalars of the given types and returns a scalar
// (or tuple of scalars) of `results`; `role` names the caller in errors.
absl::Status CheckScalarComputation(const Computation* c,
                                    const std::vector<DType>& params,
                                    const std::vector<DType>& results,
                                    absl::string_view role);

// Indexing (shape_inference_indexing.cc).
// Unimplemented for operand_precision PACKED_NIBBLE (each s8 two 4-bit
// values, XLA's conv or dot of the low and of the high nibbles, summed).
absl::Status RefusePackedNibbles(const Instruction& inst);

absl::StatusOr<Shape> InferDynamicSlice(const Instruction& inst);
absl::StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& inst);
absl::StatusOr<Shape> InferGather(const Instruction& inst);
absl::StatusOr<Shape> InferScatter(const Instruction& inst);

// Collectives on one replica (shape_inference_collectives.cc); all-reduce
// after its operands are checked to be arrays.
absl::StatusOr<Shape> InferCollective(const Instruction& inst);
absl::StatusOr<Shape> InferAllReduce(const Instruction& inst);

// Convolution, reduce-window and select-and-scatter
// (shape_inference_window.cc).
absl::StatusOr<Shape> InferWindowed(const Instruction& inst);
// XLA's cuDNN convolution custom-calls (ir/conv_call.h).
bool IsConvCall(const Instruction& inst);
absl::StatusOr<Shape> InferConvCall(const Instruction& inst);

// Sorting (shape_inference_sort.cc).
absl::StatusOr<Shape> InferSort(const Instruction& inst);
absl::StatusOr<Shape> InferTopK(const Instruction& inst);

// Control flow (shape_inference_control.cc).
absl::StatusOr<Shape> InferWhile(const Instruction& inst);
absl::StatusOr<Shape> InferConditional(const Instruction& inst);
absl::StatusOr<Shape> InferOptimizationBarrier(const Instruction& inst);
absl::StatusOr<Shape> InferMap(const Instruction& inst);

}  // namespace xtune

#endif  // XTUNE_IR_SHAPE_INFERENCE_INTERNAL_H_
