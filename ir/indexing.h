// XLA's indexing semantics, written once: dynamic-slice, dynamic-update-slice,
// gather and scatter. The evaluator, the fusion rules and every backend's
// emitter call these helpers, so the subtle rules below hold everywhere:
//
//  - Start indices are clamped so the whole slice fits in the operand:
//    start' = clamp(start, 0, dim - slice_size) (dynamic-slice,
//    dynamic-update-slice, gather). A negative start reads from 0; a start
//    past the end reads the last slice_size elements.
//  - Scatter skips an update window that does not fit entirely in the
//    operand: for any operand dimension d, start[d] < 0 or
//    start[d] + window_size[d] > dim[d] drops the whole window (XLA's
//    evaluator and its GPU emitter do the same). Nothing is clamped.
//  - Scatter applies its updates in row-major order of the update tensor
//    (scatter dimensions outer, window dimensions inner), so repeated indices
//    combine in a fixed order on every backend.
//
// A plan precomputes, per dimension, where a coordinate comes from, so a
// caller maps an output (or update) index to an operand index without
// re-deriving the dimension numbers.
#ifndef XTUNE_IR_INDEXING_H_
#define XTUNE_IR_INDEXING_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/instruction.h"

namespace xtune {

// XLA's clamp of a slice start: the slice [start, start + size) must fit in
// [0, dim).
inline int64_t ClampSliceStart(int64_t start, int64_t dim_size,
                               int64_t slice_size) {
  return std::min(std::max<int64_t>(start, 0), dim_size - slice_size);
}

// XLA's scatter bound: a window of `size` elements starting at `start` is
// applied only when it fits entirely in [0, dim).
inline bool ScatterWindowFits(int64_t start, int64_t dim_size, int64_t size) {
  return start >= 0 && start <= dim_size - size;
}

// Where each coordinate of an operand index comes from.
struct OperandDimSource {
  // The component of the start-index vector giving this dimension's start,
  // or -1 (start 0).
  int64_t start_component = -1;
  // For batching dimensions: the indices dimension whose coordinate is this
  // dimension's index, or -1.
  int64_t batch_indices_dim = -1;
  // The output (gather) or update (scatter) dimension giving the offset
  // within the slice / window, or -1 (offset 0: collapsed or inserted).
  int64_t window_dim = -1;
  // Gather: the slice size along this dimension. Scatter: the window size
  // (1 where there is no window dimension).
  int64_t size = 1;
};

struct IndexingPlan {
  // For each dimension of the start-indices tensor: the output (gather) or
  // update (scatter) dimension whose coordinate indexes it, or -1 for
  // index_vector_dim.
  std::vector<int64_t> indices_dim_source;
  // index_vector_dim; equal to the indices' rank when the index vector is
  // implicit (every start is a scalar).
  int64_t index_vector_dim = 0;
  std::vector<OperandDimSource> operand;  // one per operand dimension
};

// The plan of a verified gather: output index -> operand index, with
// operand[d] = ClampSliceStart(start[d], dim, size) + offset, where start
// comes from the indices at (output batch coordinates, component).
IndexingPlan MakeGatherPlan(const Instruction& gather);

// The plan of a verified scatter: update index -> operand index, with
// operand[d] = start[d] + window offset; the window is dropped when any
// start[d] < 0 or start[d] + size > dim[d] (ScatterWindowFits).
IndexingPlan MakeScatterPlan(const Instruction& scatter);

// Maps `index` (an output index for gather, an update index for scatter)
// through `plan`: fills `indices_position` (the position of component 0 in
// the indices tensor; the caller sets index_vector_dim to each component)
// — a helper for evaluators that walk every element.
void IndicesPosition(const IndexingPlan& plan,
                     const std::vector<int64_t>& index,
                     std::vector<int64_t>* indices_position);

}  // namespace xtune

#endif  // XTUNE_IR_INDEXING_H_
