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

}  // namespace xtune
