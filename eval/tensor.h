// Tensor: the evaluator's working value — an array in *logical* row-major
// order, floats held as double (already rounded to their element type),
// integers and pred as int64 (already wrapped to their width), or a tuple.
//
// Layouts matter only at the edges: FromLiteral/ToLiteral map between the
// physical order of a Literal and this logical order, and bitcast goes
// through a Literal so it reinterprets physical memory exactly.
#ifndef XTUNE_EVAL_TENSOR_H_
#define XTUNE_EVAL_TENSOR_H_

#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "ir/shape.h"

namespace xtune {

struct Tensor {
  Shape shape;               // dims and dtype; layout as produced
  std::vector<double> f;     // float element types
  std::vector<int64_t> i;    // integer element types and pred
  std::vector<Tensor> tuple;

  Tensor() = default;
  // Zero-filled tensor of an array shape.
  explicit Tensor(const Shape& s);

  bool is_float() const { return IsFloat(shape.dtype()); }
  int64_t size() const { return shape.ElementCount(); }
  // Element `k` as double / int64 whatever the storage.
  double GetDouble(int64_t k) const {
    return is_float() ? f[k] : static_cast<double>(i[k]);
  }
};

Tensor FromLiteral(const Literal& literal);
// Builds a Literal of `shape` (which gives the layout) from `t`.
Literal ToLiteral(const Tensor& t, const Shape& shape);

// Element-type rounding and wrapping, shared with Literal.
inline double RoundToType(double v, DType t) { return RoundToDType(v, t); }
inline int64_t WrapToType(int64_t v, DType t) { return WrapToDType(v, t); }

}  // namespace xtune

#endif  // XTUNE_EVAL_TENSOR_H_
