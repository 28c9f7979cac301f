// Literal: a concrete value of a shape (an array, or a tuple of literals).
//
// Array data is stored in physical order, as the shape's layout says, so a
// bitcast can reinterpret the bytes exactly as a device would. Accessors take
// *logical* row-major linear indices and map them through the layout.
// f16/bf16 are stored as their 16-bit encodings, pred as one byte 0/1.
// Value type; thread-compatible.
#ifndef XTUNE_IR_LITERAL_H_
#define XTUNE_IR_LITERAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/shape.h"

namespace xtune {

class Literal {
 public:
  Literal() = default;
  // A zero-filled literal of `shape` (tuples get zero-filled elements).
  explicit Literal(const Shape& shape);
  static Literal Tuple(std::vector<Literal> elements);

  const Shape& shape() const { return shape_; }
  bool IsTuple() const { return shape_.IsTuple(); }
  int64_t element_count() const { return shape_.ElementCount(); }

  // Array literals: element at logical row-major index `i`, converted to
  // double (floats, pred, integers) or int64 (integers, pred; floats are
  // truncated toward zero).
  double GetDouble(int64_t i) const;
  int64_t GetInt(int64_t i) const;
  // Stores `v` converted to the element type: floats round to nearest even,
  // integers wrap (two's complement), pred is v != 0.
  void SetDouble(int64_t i, double v);
  void SetInt(int64_t i, int64_t v);

  // Raw physical bytes of an array literal.
  std::vector<uint8_t>& bytes() { return bytes_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  // Tuple literals.
  const std::vector<Literal>& elements() const { return elements_; }
  std::vector<Literal>& elements() { return elements_; }

  // Physical element index of logical row-major index `i`.
  int64_t PhysicalIndex(int64_t i) const;

  // The same values under another layout of the same dimensions.
  Literal Relayout(const std::vector<int64_t>& minor_to_major) const;

  // HLO text of the value without the shape: "1", "{1, 2}", "{ {1, 2}, {3,
  // 4} }", "(1, {2, 3})" for tuples. Floats print in the shortest form that
  // reads back to the same value of the element type.
  std::string ToString() const;

  // Same shape (layout included) and the same bytes.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

 private:
  Shape shape_;
  std::vector<int64_t> physical_strides_;  // per logical dimension
  std::vector<uint8_t> bytes_;
  std::vector<Literal> elements_;
};

// Formats a value of a float element type in the shortest decimal form that
// rounds back to it: "1", "0.5", "-inf", "nan", "1e-08".
std::string FormatFloat(double v, DType type);

}  // namespace xtune

#endif  // XTUNE_IR_LITERAL_H_
