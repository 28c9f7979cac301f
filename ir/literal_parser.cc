#include "ir/literal_parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

class LiteralReader {
 public:
  LiteralReader(TextCursor& cursor, Literal& literal)
      : cursor_(cursor), literal_(literal) {}

  absl::Status ReadArray() {
    const Shape& shape = literal_.shape();
    if (shape.rank() == 0) return ReadElement();
    return ReadDim(0);
  }

 private:
  absl::Status ReadDim(int64_t dim) {
    const std::vector<int64_t>& dims = literal_.shape().dims();
    XTUNE_RETURN_IF_ERROR(cursor_.Expect('{', "to start an array literal"));
    for (int64_t k = 0; k < dims[dim]; ++k) {
      if (k > 0) {
        XTUNE_RETURN_IF_ERROR(cursor_.Expect(
            ',', absl::StrCat("between elements: dimension ", dim, " has ",
                              dims[dim], " elements")));
      }
      if (dim + 1 == static_cast<int64_t>(dims.size())) {
        XTUNE_RETURN_IF_ERROR(ReadElement());
      } else {
        XTUNE_RETURN_IF_ERROR(ReadDim(dim + 1));
      }
    }
    return cursor_.Expect(
        '}', absl::StrCat("to end dimension ", dim, " of ",
                          literal_.shape().ToString(false), " after ",
                          dims[dim], " elements"));
  }

  absl::Status ReadElement() {
    cursor_.SkipSpace();
    size_t pos = cursor_.pos();
    std::string token(cursor_.ParseNumberToken());
    if (token.empty()) return cursor_.ErrorAt(pos, "expected a number");
    // XLA prints NaNs with a payload as nan(0x...): accept and drop it.
    if ((token == "nan" || token == "-nan") && cursor_.PeekRaw() == '(') {
      XTUNE_ASSIGN_OR_RETURN(absl::string_view payload, cursor_.ParseRawValue());
      (void)payload;
    }
    DType t = literal_.shape().dtype();
    int64_t index = next_++;
    if (t == DType::kPred) {
      if (token == "true" || token == "1") {
        literal_.SetInt(index, 1);
      } else if (token == "false" || token == "0") {
        literal_.SetInt(index, 0);
      } else {
        return cursor_.ErrorAt(pos, absl::StrCat("expected true or false, "
                                                 "found '", token, "'"));
      }
      return absl::OkStatus();
    }
    if (IsFloat(t)) {
      double v;
      if (token == "inf" || token == "+inf") {
        v = std::numeric_limits<double>::infinity();
      } else if (token == "-inf") {
        v = -std::numeric_limits<double>::infinity();
      } else if (token == "nan" || token == "+nan") {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (token == "-nan") {
        v = -std::numeric_limits<double>::quiet_NaN();
      } else {
        char* end = nullptr;
        v = std::strtod(token.c_str(), &end);
        if (end != token.c_str() + token.size() || token == "." ||
            !(std::isdigit(static_cast<unsigned char>(token.back())) ||
              token.back() == '.')) {
          return cursor_.ErrorAt(
              pos, absl::StrCat("bad floating-point number '", token, "'"));
        }
      }
      literal_.SetDouble(index, v);
      return absl::OkStatus();
    }
    // Integers: exact, range-checked against the element type.
    char* end = nullptr;
    errno = 0;
    long long v;
    if (t == DType::kU64 && !token.empty() && token[0] != '-') {
      // u64 values above INT64_MAX: kept as their bit pattern.
      v = static_cast<long long>(std::strtoull(token.c_str(), &end, 10));
    } else {
      v = std::strtoll(token.c_str(), &end, 10);
    }
    if (end != token.c_str() + token.size() || errno == ERANGE) {
      // u32 values above INT32_MAX still fit in strtoll; anything else is bad.
      return cursor_.ErrorAt(pos,
                             absl::StrCat("bad integer '", token, "' for ",
                                          DTypeName(t)));
    }
    int64_t lo, hi;
    switch (t) {
      case DType::kS8: lo = -128; hi = 127; break;
      case DType::kS32: lo = INT32_MIN; hi = INT32_MAX; break;
      case DType::kU8: lo = 0; hi = 255; break;
      case DType::kS16: lo = INT16_MIN; hi = INT16_MAX; break;
      case DType::kU16: lo = 0; hi = UINT16_MAX; break;
      case DType::kU32: lo = 0; hi = UINT32_MAX; break;
      case DType::kU64: lo = INT64_MIN; hi = INT64_MAX; break;
      default: lo = INT64_MIN; hi = INT64_MAX; break;
    }
    if (v < lo || v > hi || (t == DType::kU64 && token[0] == '-' && v != 0)) {
      return cursor_.ErrorAt(pos, absl::StrCat("integer ", token,
                                               " out of range for ",
                                               DTypeName(t)));
    }
    literal_.SetInt(index, v);
    return absl::OkStatus();
  }

  TextCursor& cursor_;
  Literal& literal_;
  int64_t next_ = 0;
};

absl::StatusOr<Literal> ParseLiteralImpl(TextCursor& cursor, const Shape& shape,
                                         bool allow_scalar_fill, int depth) {
  if (depth > 32) return cursor.Error("literal nested too deeply");
  if (shape.IsTuple()) {
    XTUNE_RETURN_IF_ERROR(cursor.Expect('(', "to start a tuple literal"));
    std::vector<Literal> elements;
    for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
      if (i > 0) XTUNE_RETURN_IF_ERROR(cursor.Expect(',', "in tuple literal"));
      XTUNE_ASSIGN_OR_RETURN(
          Literal e,
          ParseLiteralImpl(cursor, shape.tuple_shapes()[i], allow_scalar_fill,
                           depth + 1));
      elements.push_back(std::move(e));
    }
    XTUNE_RETURN_IF_ERROR(cursor.Expect(')', "to end a tuple literal"));
    return Literal::Tuple(std::move(elements));
  }
  if (cursor.TryConsume("{...}")) {
    return cursor.Error(
        "constant value is elided as {...}; dump the module with large "
        "constants printed (XLA: print_large_constants), or run it with "
        "--fill_elided_constants (deterministic values)");
  }
  if (allow_scalar_fill && shape.rank() > 0 && cursor.Peek() != '{') {
    Literal scalar(Shape(shape.dtype(), {}));
    LiteralReader reader(cursor, scalar);
    XTUNE_RETURN_IF_ERROR(reader.ReadArray());
    Literal filled(shape);
    for (int64_t i = 0; i < filled.element_count(); ++i) {
      if (IsFloat(shape.dtype())) {
        filled.SetDouble(i, scalar.GetDouble(0));
      } else {
        filled.SetInt(i, scalar.GetInt(0));
      }
    }
    return filled;
  }
  // Each element takes at least one character: refuse shapes the text cannot
  // hold before allocating them.
  size_t remaining = cursor.text().size() - cursor.pos();
  if (shape.ElementCount() > static_cast<int64_t>(remaining)) {
    return cursor.Error(absl::StrCat("constant of shape ", shape.ToString(),
                                     " has more elements than the text holds"));
  }
  Literal literal(shape);
  LiteralReader reader(cursor, literal);
  XTUNE_RETURN_IF_ERROR(reader.ReadArray());
  return literal;
}

}  // namespace

absl::StatusOr<Literal> ParseLiteral(TextCursor& cursor, const Shape& shape,
                                     bool allow_scalar_fill) {
  return ParseLiteralImpl(cursor, shape, allow_scalar_fill, 0);
}

}  // namespace xtune
