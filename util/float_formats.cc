#include "util/float_formats.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace xtune {
namespace {

// Rounds a finite or infinite double to a binary format with `mantissa_bits`
// explicit fraction bits and exponents in [min_exp, max_exp] (the exponent of
// the leading bit of normal numbers). Directly from double, so there is a
// single rounding (no f64 -> f32 -> f16 double rounding).
double RoundToFormat(double v, int mantissa_bits, int min_exp, int max_exp) {
  if (std::isnan(v) || std::isinf(v) || v == 0.0) return v;
  int e;
  std::frexp(v, &e);  // v = m * 2^e with 0.5 <= |m| < 1: leading bit 2^(e-1).
  int lead = e - 1;
  if (lead < min_exp) lead = min_exp;  // subnormal: fixed quantum
  double quantum = std::ldexp(1.0, lead - mantissa_bits);
  // v / quantum is exact (power-of-two scaling); nearbyint rounds half to
  // even in the default rounding mode.
  double r = std::nearbyint(v / quantum) * quantum;
  double max_finite =
      std::ldexp(2.0 - std::ldexp(1.0, -mantissa_bits), max_exp);
  if (std::fabs(r) > max_finite) {
    return std::copysign(std::numeric_limits<double>::infinity(), v);
  }
  if (r == 0.0) return std::copysign(0.0, v);
  return r;
}

}  // namespace

double RoundToF32(double v) { return static_cast<double>(static_cast<float>(v)); }

double RoundToF16(double v) { return RoundToFormat(v, 10, -14, 15); }

double RoundToBF16(double v) { return RoundToFormat(v, 7, -126, 127); }

uint16_t F16ToBits(double v) {
  if (std::isnan(v)) return std::signbit(v) ? 0xFE00 : 0x7E00;
  double r = RoundToF16(v);
  uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  double a = std::fabs(r);
  if (std::isinf(a)) return sign | 0x7C00;
  if (a == 0.0) return sign;
  int e;
  double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int lead = e - 1;
  if (lead < -14) {
    // Subnormal: a = frac * 2^-24.
    return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  }
  uint16_t exp_bits = static_cast<uint16_t>(lead + 15);
  uint16_t frac = static_cast<uint16_t>(std::ldexp(m * 2.0 - 1.0, 10));
  return sign | static_cast<uint16_t>(exp_bits << 10) | frac;
}

double F16FromBits(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exp_bits = (bits >> 10) & 0x1F;
  int frac = bits & 0x3FF;
  if (exp_bits == 0x1F) {
    return frac ? std::numeric_limits<double>::quiet_NaN() * sign
                : sign * std::numeric_limits<double>::infinity();
  }
  if (exp_bits == 0) return sign * std::ldexp(frac, -24);
  return sign * std::ldexp(1024 + frac, exp_bits - 25);
}

uint16_t BF16ToBits(double v) {
  if (std::isnan(v)) return std::signbit(v) ? 0xFFC0 : 0x7FC0;
  // After rounding to bf16 the value is exact in f32, so truncation of the
  // f32 bits is exact.
  float f = static_cast<float>(RoundToBF16(v));
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return static_cast<uint16_t>(u >> 16);
}

double BF16FromBits(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

double Fp8Max(const Fp8Format& f) {
  const int top = (1 << f.exponent_bits) - 1;  // the top exponent field
  const int m = (1 << f.mantissa_bits) - 1;
  int exp_field = top, mant = m;
  switch (f.kind) {
    case Fp8Format::Kind::kIeee: exp_field = top - 1; break;  // top: inf/NaN
    case Fp8Format::Kind::kFn: mant = m - 1; break;           // all ones: NaN
    case Fp8Format::Kind::kFnuz: break;                       // all finite
  }
  return std::ldexp(1.0 + std::ldexp(mant, -f.mantissa_bits),
                    exp_field - f.bias);
}

double RoundToFp8(double v, const Fp8Format& f) {
  const double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(), v);
  if (std::isnan(v)) return v;
  const bool has_inf = f.kind == Fp8Format::Kind::kIeee;
  if (std::isinf(v)) return has_inf ? v : nan;
  if (v == 0.0) {
    return f.kind == Fp8Format::Kind::kFnuz ? 0.0 : v;
  }
  int e;
  std::frexp(v, &e);
  int lead = e - 1;
  const int min_exp = 1 - f.bias;
  if (lead < min_exp) lead = min_exp;
  const double quantum = std::ldexp(1.0, lead - f.mantissa_bits);
  double r = std::nearbyint(v / quantum) * quantum;
  if (std::fabs(r) > Fp8Max(f)) {
    return has_inf ? std::copysign(std::numeric_limits<double>::infinity(), v)
                   : nan;
  }
  if (r == 0.0) return f.kind == Fp8Format::Kind::kFnuz ? 0.0 : std::copysign(0.0, v);
  return r;
}

uint8_t Fp8ToBits(double v, const Fp8Format& f) {
  const int top = (1 << f.exponent_bits) - 1;
  const double r = RoundToFp8(v, f);
  const uint8_t sign = std::signbit(r) ? 0x80 : 0;
  if (std::isnan(r)) {
    // ml_dtypes' codes: fnuz's one NaN; fn's all ones; IEEE's quiet NaN
    // (the top mantissa bit, as f16's NaN truncated). The sign is kept.
    switch (f.kind) {
      case Fp8Format::Kind::kFnuz: return 0x80;
      case Fp8Format::Kind::kFn: return sign | 0x7f;
      case Fp8Format::Kind::kIeee:
        return sign | static_cast<uint8_t>((top << f.mantissa_bits) |
                                           (1 << (f.mantissa_bits - 1)));
    }
  }
  const double a = std::fabs(r);
  if (std::isinf(a)) return sign | static_cast<uint8_t>(top << f.mantissa_bits);
  if (a == 0.0) return sign;
  int e;
  const double m = std::frexp(a, &e);
  const int lead = e - 1;
  if (lead < 1 - f.bias) {  // subnormal: a = frac * 2^(1 - bias - mbits)
    return sign |
           static_cast<uint8_t>(std::ldexp(a, f.bias - 1 + f.mantissa_bits));
  }
  const int exp_field = lead + f.bias;
  const int frac = static_cast<int>(std::ldexp(m * 2.0 - 1.0, f.mantissa_bits));
  return sign | static_cast<uint8_t>((exp_field << f.mantissa_bits) | frac);
}

double Fp8FromBits(uint8_t bits, const Fp8Format& f) {
  const int top = (1 << f.exponent_bits) - 1;
  const int mmask = (1 << f.mantissa_bits) - 1;
  const bool negative = (bits & 0x80) != 0;
  const int exp_field = (bits >> f.mantissa_bits) & top;
  const int mant = bits & mmask;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (f.kind) {
    case Fp8Format::Kind::kFnuz:
      if (bits == 0x80) return nan;
      break;
    case Fp8Format::Kind::kFn:
      if (exp_field == top && mant == mmask) return negative ? -nan : nan;
      break;
    case Fp8Format::Kind::kIeee:
      if (exp_field == top) {
        if (mant != 0) return negative ? -nan : nan;
        return negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
      }
      break;
  }
  double a = exp_field == 0
                 ? std::ldexp(mant, 1 - f.bias - f.mantissa_bits)
                 : std::ldexp(1.0 + std::ldexp(mant, -f.mantissa_bits),
                              exp_field - f.bias);
  return negative ? -a : a;
}

}  // namespace xtune
