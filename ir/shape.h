// Shapes: an element type with dimensions and a layout, or a tuple of shapes.
//
// The layout is XLA's `minor_to_major` list: layout {1,0} on f32[2,3] is
// row-major (dimension 1 varies fastest in memory), {0,1} column-major. A
// shape built without a layout gets the default (row-major) one. Value type;
// thread-compatible.
#ifndef XTUNE_IR_SHAPE_H_
#define XTUNE_IR_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/dtype.h"

namespace xtune {

class Shape {
 public:
  Shape() = default;
  // An array shape with the default row-major layout.
  Shape(DType type, std::vector<int64_t> dims);
  // An array shape with an explicit layout (not validated: see Validate()).
  Shape(DType type, std::vector<int64_t> dims,
        std::vector<int64_t> minor_to_major);
  static Shape Tuple(std::vector<Shape> elements);
  // XLA's `token[]`: it orders side effects and holds no data. xtune runs
  // no side-effecting operation, so a token is carried as an empty tuple;
  // it only prints as "token[]" (Compatible() and == see an empty tuple).
  static Shape Token();

  DType dtype() const { return dtype_; }
  bool IsTuple() const { return dtype_ == DType::kTuple; }
  bool IsArray() const { return !IsTuple(); }
  bool IsToken() const { return token_; }

  // Array shapes only.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t dim(int64_t i) const { return dims_[i]; }
  const std::vector<int64_t>& minor_to_major() const { return layout_; }
  int64_t ElementCount() const;
  int64_t ByteSize() const { return ElementCount() * DTypeByteSize(dtype_); }
  bool HasDefaultLayout() const;

  // Tuple shapes only.
  const std::vector<Shape>& tuple_shapes() const { return tuple_; }

  void set_dtype(DType t) { dtype_ = t; }
  void set_minor_to_major(std::vector<int64_t> m2m) { layout_ = std::move(m2m); }
  void SetDefaultLayout();

  // Checks dimensions are non-negative and the layout is a permutation of
  // 0..rank-1. InvalidArgument otherwise.
  absl::Status Validate() const;

  // HLO text: "f32[2,3]{1,0}", scalars "f32[]", tuples "(f32[2]{0}, s32[])".
  std::string ToString(bool print_layout = true) const;

  // Same element type and dimensions (and recursively for tuples); layouts
  // are ignored.
  bool Compatible(const Shape& other) const;
  // Compatible and the same layouts.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

  // Physical stride, in elements, of each logical dimension under this
  // shape's layout.
  std::vector<int64_t> PhysicalStrides() const;

 private:
  DType dtype_ = DType::kF32;
  std::vector<int64_t> dims_;
  std::vector<int64_t> layout_;  // minor_to_major
  std::vector<Shape> tuple_;
  bool token_ = false;
};

// Row-major logical strides of `dims` (last dimension stride 1).
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// The default minor_to_major layout for a rank: {rank-1, ..., 1, 0}.
std::vector<int64_t> DefaultLayout(int64_t rank);

}  // namespace xtune

#endif  // XTUNE_IR_SHAPE_H_
