#include "eval/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "util/float_formats.h"

namespace xtune {
namespace {

// Unary float op computed in T (float for f16/bf16/f32, double for f64).
template <typename T>
bool UnaryFloatIn(Opcode op, T x, T* out) {
  switch (op) {
    case Opcode::kNegate: *out = -x; return true;
    case Opcode::kAbs: *out = std::fabs(x); return true;
    case Opcode::kSign:
      *out = std::isnan(x) ? x : x == 0 ? x : (x > 0 ? T(1) : T(-1));
      return true;
    case Opcode::kExp: *out = std::exp(x); return true;
    case Opcode::kExpm1: *out = std::expm1(x); return true;
    case Opcode::kLog: *out = std::log(x); return true;
    case Opcode::kLog1p: *out = std::log1p(x); return true;
    case Opcode::kTanh: *out = std::tanh(x); return true;
    case Opcode::kTan: *out = std::tan(x); return true;
    case Opcode::kLogistic: *out = T(1) / (T(1) + std::exp(-x)); return true;
    case Opcode::kSqrt: *out = std::sqrt(x); return true;
    case Opcode::kRsqrt: *out = T(1) / std::sqrt(x); return true;
    case Opcode::kCbrt: *out = std::cbrt(x); return true;
    case Opcode::kFloor: *out = std::floor(x); return true;
    case Opcode::kCeil: *out = std::ceil(x); return true;
    case Opcode::kRoundNearestEven: *out = std::nearbyint(x); return true;
    case Opcode::kRoundNearestAfz: *out = std::round(x); return true;
    case Opcode::kCos: *out = std::cos(x); return true;
    case Opcode::kSin: *out = std::sin(x); return true;
    case Opcode::kErf: *out = std::erf(x); return true;
    case Opcode::kCopy: *out = x; return true;
    default: return false;
  }
}

template <typename T>
T BinaryFloatIn(Opcode op, T a, T b) {
  switch (op) {
    case Opcode::kAdd: return a + b;
    case Opcode::kSubtract: return a - b;
    case Opcode::kMultiply: return a * b;
    case Opcode::kDivide: return a / b;
    case Opcode::kRemainder: return std::fmod(a, b);
    case Opcode::kMaximum:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN()
                                            : (a > b ? a : b);
    case Opcode::kMinimum:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN()
                                            : (a < b ? a : b);
    case Opcode::kPower: return std::pow(a, b);
    case Opcode::kAtan2: return std::atan2(a, b);
    default: return std::numeric_limits<T>::quiet_NaN();
  }
}

uint64_t UnsignedBits(int64_t v, DType t) {
  switch (t) {
    case DType::kS8:
    case DType::kU8:
      return static_cast<uint8_t>(v);
    case DType::kS16:
    case DType::kU16:
      return static_cast<uint16_t>(v);
    case DType::kS32:
    case DType::kU32:
      return static_cast<uint32_t>(v);
    default:
      return static_cast<uint64_t>(v);
  }
}

int BitWidth(DType t) { return static_cast<int>(DTypeByteSize(t) * 8); }

int64_t MinValue(DType t) {
  switch (t) {
    case DType::kS8: return INT8_MIN;
    case DType::kS16: return INT16_MIN;
    case DType::kS32: return INT32_MIN;
    case DType::kS64: return INT64_MIN;
    default: return 0;
  }
}

int64_t MaxValue(DType t) {
  switch (t) {
    case DType::kS8: return INT8_MAX;
    case DType::kS32: return INT32_MAX;
    case DType::kS64: return INT64_MAX;
    case DType::kU8: return UINT8_MAX;
    case DType::kS16: return INT16_MAX;
    case DType::kU16: return UINT16_MAX;
    case DType::kU32: return UINT32_MAX;
    case DType::kPred: return 1;
    default: return 0;
  }
}

int64_t FloatToInt(double v, DType t) {
  if (t == DType::kPred) return v != 0.0 ? 1 : 0;
  if (t == DType::kU64) {
    // u64 is carried as its bit pattern; saturate at 0 and 2^64 - 1.
    if (!(v > 0)) return 0;
    if (v >= 18446744073709551616.0) return -1;
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  }
  if (std::isnan(v)) return 0;
  double lo = static_cast<double>(MinValue(t));
  double hi = static_cast<double>(MaxValue(t));
  if (v <= lo) return MinValue(t);
  if (v >= hi) return MaxValue(t);
  return static_cast<int64_t>(v);  // truncates toward zero
}

double IntToFloat(int64_t v, DType src, DType dst) {
  if (src == DType::kU64) {
    uint64_t u = static_cast<uint64_t>(v);
    if (dst == DType::kF64) return static_cast<double>(u);
    return RoundToType(static_cast<double>(static_cast<float>(u)), dst);
  }
  if (dst == DType::kF64) return static_cast<double>(v);
  // As XLA (Eigen's half and bfloat16 convert from integers through float):
  // round to f32 first, then to the narrower type.
  return RoundToType(static_cast<double>(static_cast<float>(v)), dst);
}


template <typename T>
bool Compare(ComparisonDirection d, T a, T b) {
  switch (d) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kGe: return a >= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kLt: return a < b;
  }
  return false;
}

}  // namespace

int64_t TotalOrderKey(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  // Negative values: flip the magnitude bits so larger magnitudes order
  // lower; -0.0 becomes -1, just below +0.0 (0).
  return bits < 0 ? bits ^ INT64_MAX : bits;
}

double BinaryFloat(Opcode op, double a, double b, DType t) {
  if (t == DType::kF64) return BinaryFloatIn<double>(op, a, b);
  return RoundToType(BinaryFloatIn<float>(op, static_cast<float>(a),
                                          static_cast<float>(b)),
                     t);
}

int64_t BinaryInt(Opcode op, int64_t a, int64_t b, DType t) {
  if (t == DType::kPred) {
    switch (op) {
      case Opcode::kAnd:
      case Opcode::kMinimum:
        return a & b;
      case Opcode::kOr:
      case Opcode::kMaximum:
        return a | b;
      case Opcode::kXor:
        return a ^ b;
      default:
        return 0;
    }
  }
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if (t == DType::kU64) {
    // Bit patterns of values up to 2^64 - 1: order and divide unsigned.
    switch (op) {
      case Opcode::kDivide:
        return ub == 0 ? -1 : static_cast<int64_t>(ua / ub);
      case Opcode::kRemainder:
        return ub == 0 ? a : static_cast<int64_t>(ua % ub);
      case Opcode::kMaximum: return ua > ub ? a : b;
      case Opcode::kMinimum: return ua < ub ? a : b;
      case Opcode::kShiftRightArithmetic:
        return ub >= 64 ? 0 : static_cast<int64_t>(ua >> ub);
      default:
        break;
    }
  }
  int64_t r = 0;
  switch (op) {
    case Opcode::kAdd: r = static_cast<int64_t>(ua + ub); break;
    case Opcode::kSubtract: r = static_cast<int64_t>(ua - ub); break;
    case Opcode::kMultiply: r = static_cast<int64_t>(ua * ub); break;
    case Opcode::kDivide:
      if (b == 0) return IsUnsigned(t) ? MaxValue(t) : -1;
      if (a == MinValue(t) && b == -1 && !IsUnsigned(t)) return a;
      r = a / b;
      break;
    case Opcode::kRemainder:
      if (b == 0) return a;
      if (a == MinValue(t) && b == -1 && !IsUnsigned(t)) return 0;
      r = a % b;
      break;
    case Opcode::kMaximum: r = a > b ? a : b; break;
    case Opcode::kMinimum: r = a < b ? a : b; break;
    case Opcode::kAnd: r = a & b; break;
    case Opcode::kOr: r = a | b; break;
    case Opcode::kXor: r = a ^ b; break;
    case Opcode::kPower: {
      // As XLA: a negative exponent gives 1 for base 1 and 0 otherwise.
      if (b < 0 && t != DType::kU64) return a == 1 ? 1 : 0;
      uint64_t base = ua, result = 1;
      for (uint64_t e = ub; e != 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      r = static_cast<int64_t>(result);
      break;
    }
    case Opcode::kShiftLeft:
      if (ub >= static_cast<uint64_t>(BitWidth(t))) return 0;
      r = static_cast<int64_t>(ua << ub);
      break;
    case Opcode::kShiftRightLogical:
      if (ub >= static_cast<uint64_t>(BitWidth(t))) return 0;
      r = static_cast<int64_t>(UnsignedBits(a, t) >> ub);
      break;
    case Opcode::kShiftRightArithmetic: {
      uint64_t width = BitWidth(t);
      if (IsUnsigned(t)) {
        // Unsigned values have no sign bit to extend: as logical.
        if (ub >= width) return 0;
        r = a >> ub;
      } else {
        r = a >> (ub >= width ? width - 1 : ub);
      }
      break;
    }
    default: return 0;
  }
  return WrapToType(r, t);
}

namespace {

// XLA's reduce-precision on the bits of a float of `nbits` bits with
// `se` exponent and `sm` mantissa bits, to `de` and `dm`
// (codegen/prelude/xt_scalar.h has the kernels' copy, xt_rp_bits).
uint64_t ReducePrecisionBits(uint64_t x, int nbits, int se, int sm, int de,
                             int dm) {
  const uint64_t all = nbits == 64 ? ~0ull : (1ull << nbits) - 1;
  const uint64_t sign = 1ull << (nbits - 1);
  const uint64_t exp_mask = ((1ull << se) - 1) << sm;
  const bool nan = (x & (sign - 1)) > exp_mask;
  uint64_t r = x;
  if (dm < sm) {
    const uint64_t last = 1ull << (sm - dm);
    const uint64_t bias = (last >> 1) - 1 + ((r & last) >> (sm - dm));
    r = ((r + bias) & ~(last - 1)) & all;
  }
  if (de < se) {
    const uint64_t bias = (1ull << (se - 1)) - 1;
    const uint64_t reduced = (1ull << (de - 1)) - 1;
    const uint64_t e = r & exp_mask;
    const uint64_t zero = r & sign;
    if (e > ((bias + reduced) << sm)) r = zero | exp_mask;
    if (e <= ((bias - reduced) << sm)) r = zero;
  }
  if (nan) r = dm > 0 ? x : exp_mask;
  return r;
}

}  // namespace

double ReducePrecision(double v, DType t, int exponent_bits,
                       int mantissa_bits) {
  switch (t) {
    case DType::kF64: {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      bits = ReducePrecisionBits(bits, 64, 11, 52, exponent_bits,
                                 mantissa_bits);
      std::memcpy(&v, &bits, 8);
      return v;
    }
    case DType::kF16:
      return F16FromBits(static_cast<uint16_t>(ReducePrecisionBits(
          F16ToBits(v), 16, 5, 10, exponent_bits, mantissa_bits)));
    case DType::kBF16:
      return BF16FromBits(static_cast<uint16_t>(ReducePrecisionBits(
          BF16ToBits(v), 16, 8, 7, exponent_bits, mantissa_bits)));
    default: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      bits = static_cast<uint32_t>(ReducePrecisionBits(
          bits, 32, 8, 23, exponent_bits, mantissa_bits));
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
}

absl::StatusOr<Tensor> EvalUnary(Opcode op, const Tensor& x, DType out) {
  Shape out_shape(out, x.shape.dims());
  Tensor r(out_shape);
  int64_t n = x.size();
  DType in = x.shape.dtype();
  if (op == Opcode::kConvert) {
    for (int64_t k = 0; k < n; ++k) {
      if (IsFloat(out)) {
        r.f[k] = x.is_float() ? RoundToType(x.f[k], out)
                              : IntToFloat(x.i[k], in, out);
      } else {
        r.i[k] = x.is_float() ? FloatToInt(x.f[k], out)
                              : WrapToType(out == DType::kPred
                                               ? (x.i[k] != 0)
                                               : x.i[k],
                                           out);
      }
    }
    return r;
  }
  if (op == Opcode::kIsFinite) {
    for (int64_t k = 0; k < n; ++k) r.i[k] = std::isfinite(x.f[k]) ? 1 : 0;
    return r;
  }
  if (x.is_float()) {
    for (int64_t k = 0; k < n; ++k) {
      bool ok;
      if (in == DType::kF64) {
        double v = 0;
        ok = UnaryFloatIn<double>(op, x.f[k], &v);
        r.f[k] = v;
      } else {
        float v = 0;
        ok = UnaryFloatIn<float>(op, static_cast<float>(x.f[k]), &v);
        r.f[k] = RoundToType(v, in);
      }
      if (!ok) {
        return absl::UnimplementedError(
            absl::StrCat(OpcodeName(op), " is not defined on ", DTypeName(in)));
      }
    }
    return r;
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = x.i[k];
    uint64_t u = static_cast<uint64_t>(v);
    switch (op) {
      case Opcode::kNot:
        r.i[k] = in == DType::kPred ? !v : WrapToType(~v, in);
        break;
      case Opcode::kNegate:
        r.i[k] = WrapToType(static_cast<int64_t>(0 - u), in);
        break;
      case Opcode::kAbs:
        r.i[k] = IsUnsigned(in) ? v
                                : WrapToType(v < 0 ? static_cast<int64_t>(0 - u)
                                                   : v,
                                             in);
        break;
      case Opcode::kSign:
        r.i[k] = IsUnsigned(in) ? (v != 0) : (v > 0 ? 1 : (v < 0 ? -1 : 0));
        break;
      case Opcode::kPopcnt:
      case Opcode::kClz: {
        const int width = BitWidth(in);
        uint64_t bits = UnsignedBits(v, in);
        int count = 0;
        if (op == Opcode::kPopcnt) {
          for (; bits != 0; bits &= bits - 1) ++count;
        } else {
          while (count < width && !(bits >> (width - 1 - count) & 1)) ++count;
        }
        r.i[k] = count;
        break;
      }
      case Opcode::kCopy:
        r.i[k] = v;
        break;
      default:
        return absl::UnimplementedError(
            absl::StrCat(OpcodeName(op), " is not defined on ", DTypeName(in)));
    }
  }
  return r;
}

absl::StatusOr<Tensor> EvalBinary(Opcode op, const Tensor& a, const Tensor& b) {
  Tensor r(Shape(a.shape.dtype(), a.shape.dims()));
  int64_t n = a.size();
  DType t = a.shape.dtype();
  if (a.is_float()) {
    bool bitwise = op == Opcode::kAnd || op == Opcode::kOr ||
                   op == Opcode::kXor || op == Opcode::kShiftLeft ||
                   op == Opcode::kShiftRightLogical ||
                   op == Opcode::kShiftRightArithmetic;
    if (bitwise) {
      return absl::UnimplementedError(
          absl::StrCat(OpcodeName(op), " is not defined on ", DTypeName(t)));
    }
    if (t == DType::kF64) {
      for (int64_t k = 0; k < n; ++k) {
        r.f[k] = BinaryFloatIn<double>(op, a.f[k], b.f[k]);
      }
    } else {
      for (int64_t k = 0; k < n; ++k) {
        r.f[k] = RoundToType(BinaryFloatIn<float>(op, static_cast<float>(a.f[k]),
                                                  static_cast<float>(b.f[k])),
                             t);
      }
    }
    return r;
  }
  if (op == Opcode::kAtan2) {
    return absl::UnimplementedError("atan2 is not defined on integers");
  }
  for (int64_t k = 0; k < n; ++k) r.i[k] = BinaryInt(op, a.i[k], b.i[k], t);
  return r;
}

Tensor EvalCompare(ComparisonDirection direction, const std::string& type,
                   const Tensor& a, const Tensor& b) {
  Tensor r(Shape(DType::kPred, a.shape.dims()));
  int64_t n = a.size();
  if (a.is_float()) {
    bool total = type == "TOTALORDER";
    for (int64_t k = 0; k < n; ++k) {
      r.i[k] = total ? Compare(direction, TotalOrderKey(a.f[k]),
                               TotalOrderKey(b.f[k]))
                     : Compare(direction, a.f[k], b.f[k]);
    }
  } else if (a.shape.dtype() == DType::kU64) {
    for (int64_t k = 0; k < n; ++k) {
      r.i[k] = Compare(direction, static_cast<uint64_t>(a.i[k]),
                       static_cast<uint64_t>(b.i[k]));
    }
  } else {
    for (int64_t k = 0; k < n; ++k) {
      r.i[k] = Compare(direction, a.i[k], b.i[k]);
    }
  }
  return r;
}

Tensor EvalSelect(const Tensor& pred, const Tensor& on_true,
                  const Tensor& on_false) {
  Tensor r(Shape(on_true.shape.dtype(), on_true.shape.dims()));
  int64_t n = on_true.size();
  bool scalar = pred.shape.rank() == 0;
  for (int64_t k = 0; k < n; ++k) {
    bool p = pred.i[scalar ? 0 : k] != 0;
    if (r.is_float()) {
      r.f[k] = p ? on_true.f[k] : on_false.f[k];
    } else {
      r.i[k] = p ? on_true.i[k] : on_false.i[k];
    }
  }
  return r;
}

Tensor EvalClamp(const Tensor& lo, const Tensor& x, const Tensor& hi) {
  Tensor r(Shape(x.shape.dtype(), x.shape.dims()));
  int64_t n = x.size();
  bool lo_scalar = lo.shape.rank() == 0, hi_scalar = hi.shape.rank() == 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t l = lo_scalar ? 0 : k, h = hi_scalar ? 0 : k;
    if (r.is_float()) {
      // min(max(x, lo), hi) with NaN-propagating max and min, as XLA and
      // StableHLO define clamp: a NaN anywhere gives NaN.
      double v = x.f[k], a = lo.f[l], b = hi.f[h];
      r.f[k] = std::isnan(v) || std::isnan(a) || std::isnan(b)
                   ? std::numeric_limits<double>::quiet_NaN()
                   : std::min(std::max(v, a), b);
    } else if (r.shape.dtype() == DType::kU64) {
      r.i[k] = static_cast<int64_t>(std::min(
          std::max(static_cast<uint64_t>(x.i[k]),
                   static_cast<uint64_t>(lo.i[l])),
          static_cast<uint64_t>(hi.i[h])));
    } else {
      r.i[k] = std::min(std::max(x.i[k], lo.i[l]), hi.i[h]);
    }
  }
  return r;
}

Tensor EvalBitcastConvert(const Tensor& x, const Shape& out) {
  // Serialise logical elements little-endian, reinterpret, read back. The
  // extra or removed dimension of a width change is the most minor one.
  Literal in_lit = ToLiteral(x, Shape(x.shape.dtype(), x.shape.dims()));
  Literal out_lit(Shape(out.dtype(), out.dims()));
  std::memcpy(out_lit.bytes().data(), in_lit.bytes().data(),
              std::min(in_lit.bytes().size(), out_lit.bytes().size()));
  return FromLiteral(out_lit);
}

}  // namespace xtune
