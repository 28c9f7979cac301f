#include "eval/tensor.h"

#include "util/float_formats.h"

namespace xtune {

Tensor::Tensor(const Shape& s) : shape(s) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) tuple.emplace_back(e);
  } else if (IsFloat(s.dtype())) {
    f.assign(s.ElementCount(), 0.0);
  } else {
    i.assign(s.ElementCount(), 0);
  }
}

Tensor FromLiteral(const Literal& literal) {
  if (literal.IsTuple()) {
    Tensor t;
    t.shape = literal.shape();
    for (const Literal& e : literal.elements()) t.tuple.push_back(FromLiteral(e));
    return t;
  }
  Tensor t(literal.shape());
  int64_t n = t.size();
  if (t.is_float()) {
    for (int64_t k = 0; k < n; ++k) t.f[k] = literal.GetDouble(k);
  } else {
    for (int64_t k = 0; k < n; ++k) t.i[k] = literal.GetInt(k);
  }
  return t;
}

Literal ToLiteral(const Tensor& t, const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (size_t k = 0; k < t.tuple.size(); ++k) {
      elements.push_back(ToLiteral(t.tuple[k], shape.tuple_shapes()[k]));
    }
    return Literal::Tuple(std::move(elements));
  }
  Literal literal(shape);
  int64_t n = t.size();
  if (t.is_float()) {
    for (int64_t k = 0; k < n; ++k) literal.SetDouble(k, t.f[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) literal.SetInt(k, t.i[k]);
  }
  return literal;
}

double RoundToType(double v, DType t) {
  switch (t) {
    case DType::kF16:
      return RoundToF16(v);
    case DType::kBF16:
      return RoundToBF16(v);
    case DType::kF32:
      return RoundToF32(v);
    default:
      return v;
  }
}

int64_t WrapToType(int64_t v, DType t) {
  switch (t) {
    case DType::kPred:
      return v != 0 ? 1 : 0;
    case DType::kS8:
      return static_cast<int8_t>(v);
    case DType::kS32:
      return static_cast<int32_t>(v);
    case DType::kU8:
      return static_cast<uint8_t>(v);
    case DType::kU32:
      return static_cast<uint32_t>(v);
    default:
      return v;
  }
}

}  // namespace xtune
