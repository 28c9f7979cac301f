#include "ir/literal.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "util/float_formats.h"

namespace xtune {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

std::string FormatFloat(double v, DType type) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // XLA's RoundTripFpToString: f32 tries 6 significant digits, then 9;
  // f64 15, then 17; f16 always 5 and bf16 always 4 (their max_digits10).
  int first = 6, fallback = 9;
  switch (type) {
    case DType::kF64:
      first = 15;
      fallback = 17;
      break;
    case DType::kF16:
      first = fallback = 5;
      break;
    case DType::kBF16:
      first = fallback = 4;
      break;
    default:
      if (IsFp8(type)) first = fallback = 3;  // at most 4 significant bits
      break;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", first, v);
  if (RoundToDType(std::strtod(buf, nullptr), type) != v) {
    std::snprintf(buf, sizeof(buf), "%.*g", fallback, v);
  }
  return buf;
}

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) elements_.emplace_back(s);
    return;
  }
  physical_strides_ = shape.PhysicalStrides();
  bytes_.assign(static_cast<size_t>(shape.ByteSize()), 0);
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal lit;
  lit.shape_ = Shape::Tuple(std::move(shapes));
  lit.elements_ = std::move(elements);
  return lit;
}

int64_t Literal::PhysicalIndex(int64_t i) const {
  int64_t physical = 0;
  const std::vector<int64_t>& dims = shape_.dims();
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    int64_t idx = i % dims[d];
    i /= dims[d];
    physical += idx * physical_strides_[d];
  }
  return physical;
}

double Literal::GetDouble(int64_t i) const {
  const uint8_t* p =
      bytes_.data() + PhysicalIndex(i) * DTypeByteSize(shape_.dtype());
  switch (shape_.dtype()) {
    case DType::kPred:
      return *p ? 1.0 : 0.0;
    case DType::kS8:
      return Load<int8_t>(p);
    case DType::kS32:
      return Load<int32_t>(p);
    case DType::kS64:
      return static_cast<double>(Load<int64_t>(p));
    case DType::kU8:
      return Load<uint8_t>(p);
    case DType::kS16:
      return Load<int16_t>(p);
    case DType::kU16:
      return Load<uint16_t>(p);
    case DType::kU32:
      return Load<uint32_t>(p);
    case DType::kU64:
      return static_cast<double>(Load<uint64_t>(p));
    case DType::kF16:
      return F16FromBits(Load<uint16_t>(p));
    case DType::kBF16:
      return BF16FromBits(Load<uint16_t>(p));
    case DType::kF32:
      return Load<float>(p);
    case DType::kF64:
      return Load<double>(p);
    case DType::kTuple:
      break;
    default:
      if (std::optional<Fp8Format> f = Fp8FormatOf(shape_.dtype())) {
        return Fp8FromBits(*p, *f);
      }
      break;
  }
  return 0;
}

int64_t Literal::GetInt(int64_t i) const {
  const uint8_t* p =
      bytes_.data() + PhysicalIndex(i) * DTypeByteSize(shape_.dtype());
  switch (shape_.dtype()) {
    case DType::kPred:
      return *p ? 1 : 0;
    case DType::kS8:
      return Load<int8_t>(p);
    case DType::kS32:
      return Load<int32_t>(p);
    case DType::kS64:
      return Load<int64_t>(p);
    case DType::kU8:
      return Load<uint8_t>(p);
    case DType::kS16:
      return Load<int16_t>(p);
    case DType::kU16:
      return Load<uint16_t>(p);
    case DType::kU32:
      return Load<uint32_t>(p);
    case DType::kU64:  // the bit pattern
      return static_cast<int64_t>(Load<uint64_t>(p));
    default: {
      double v = GetDouble(i);
      if (std::isnan(v)) return 0;
      if (v >= 9.2e18) return INT64_MAX;
      if (v <= -9.2e18) return INT64_MIN;
      return static_cast<int64_t>(v);
    }
  }
}

void Literal::SetDouble(int64_t i, double v) {
  uint8_t* p = bytes_.data() + PhysicalIndex(i) * DTypeByteSize(shape_.dtype());
  switch (shape_.dtype()) {
    case DType::kF16:
      Store<uint16_t>(p, F16ToBits(v));
      return;
    case DType::kBF16:
      Store<uint16_t>(p, BF16ToBits(v));
      return;
    case DType::kF32:
      Store<float>(p, static_cast<float>(v));
      return;
    case DType::kF8E4M3FN:
    case DType::kF8E5M2:
    case DType::kF8E4M3FNUZ:
    case DType::kF8E5M2FNUZ:
    case DType::kF8E4M3B11FNUZ:
      *p = Fp8ToBits(v, *Fp8FormatOf(shape_.dtype()));
      return;
    case DType::kF64:
      Store<double>(p, v);
      return;
    case DType::kPred:
      *p = v != 0.0 ? 1 : 0;
      return;
    case DType::kU64:
      // Truncate toward zero, saturating at 0 and 2^64 - 1; NaN gives 0.
      Store<uint64_t>(p, !(v > 0) ? 0
                         : v >= 18446744073709551616.0
                             ? ~uint64_t{0}
                             : static_cast<uint64_t>(v));
      return;
    default: {
      // Integers: truncate toward zero, then wrap.
      int64_t iv = 0;
      if (!std::isnan(v)) {
        if (v >= 9.2e18) {
          iv = INT64_MAX;
        } else if (v <= -9.2e18) {
          iv = INT64_MIN;
        } else {
          iv = static_cast<int64_t>(v);
        }
      }
      SetInt(i, iv);
      return;
    }
  }
}

void Literal::SetInt(int64_t i, int64_t v) {
  uint8_t* p = bytes_.data() + PhysicalIndex(i) * DTypeByteSize(shape_.dtype());
  switch (shape_.dtype()) {
    case DType::kPred:
      *p = v != 0 ? 1 : 0;
      return;
    case DType::kS8:
      Store<int8_t>(p, static_cast<int8_t>(v));
      return;
    case DType::kS32:
      Store<int32_t>(p, static_cast<int32_t>(v));
      return;
    case DType::kS64:
      Store<int64_t>(p, v);
      return;
    case DType::kU8:
      Store<uint8_t>(p, static_cast<uint8_t>(v));
      return;
    case DType::kS16:
      Store<int16_t>(p, static_cast<int16_t>(v));
      return;
    case DType::kU16:
      Store<uint16_t>(p, static_cast<uint16_t>(v));
      return;
    case DType::kU32:
      Store<uint32_t>(p, static_cast<uint32_t>(v));
      return;
    case DType::kU64:
      Store<uint64_t>(p, static_cast<uint64_t>(v));
      return;
    default:
      SetDouble(i, static_cast<double>(v));
      return;
  }
}

Literal Literal::Relayout(const std::vector<int64_t>& minor_to_major) const {
  Shape shape(shape_.dtype(), shape_.dims(), minor_to_major);
  Literal out(shape);
  int64_t n = element_count();
  int64_t size = DTypeByteSize(shape_.dtype());
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.bytes_.data() + out.PhysicalIndex(i) * size,
                bytes_.data() + PhysicalIndex(i) * size, size);
  }
  return out;
}

std::string Literal::ToString() const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i > 0) out += ", ";
      out += elements_[i].ToString();
    }
    return out + ")";
  }
  DType t = shape_.dtype();
  const std::vector<int64_t>& dims = shape_.dims();
  auto element = [&](int64_t i) -> std::string {
    // XLA writes pred scalars as true/false and pred arrays as 1/0.
    if (t == DType::kPred) {
      return dims.empty() ? (GetInt(i) ? "true" : "false")
                          : (GetInt(i) ? "1" : "0");
    }
    if (IsFloat(t)) return FormatFloat(GetDouble(i), t);
    if (t == DType::kU32) return absl::StrCat(static_cast<uint32_t>(GetInt(i)));
    if (t == DType::kU64) return absl::StrCat(static_cast<uint64_t>(GetInt(i)));
    return absl::StrCat(GetInt(i));
  };
  if (dims.empty()) return element(0);
  // As XLA: rank 1 is "{1, 2}"; higher ranks "{ { 1, 2 }, { 3, 4 } }", where
  // a brace gets inner spaces when it holds more than one element.
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::string out;
  bool rank1 = dims.size() == 1;
  auto emit = [&](auto&& self, int64_t dim, int64_t base) -> void {
    bool innermost = dim + 1 == static_cast<int64_t>(dims.size());
    bool spaced = !rank1 && (!innermost || dims[dim] > 1);
    out += spaced ? "{ " : "{";
    for (int64_t k = 0; k < dims[dim]; ++k) {
      if (k > 0) out += ", ";
      if (innermost) {
        out += element(base + k);
      } else {
        self(self, dim + 1, base + k * strides[dim]);
      }
    }
    out += spaced ? " }" : "}";
  };
  emit(emit, 0, 0);
  return out;
}

bool Literal::operator==(const Literal& other) const {
  if (shape_ != other.shape_) return false;
  if (IsTuple()) return elements_ == other.elements_;
  return bytes_ == other.bytes_;
}

}  // namespace xtune
