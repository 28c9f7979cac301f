#include "eval/tensor.h"


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

}  // namespace xtune
