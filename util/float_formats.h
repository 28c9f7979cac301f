// Conversions between double and the narrow float formats xtune computes
// with: f32, f16 (IEEE binary16), bf16 (bfloat16) and the 8-bit formats of
// ml_dtypes that XLA parses (f8e4m3fn, f8e5m2, f8e4m3fnuz, f8e5m2fnuz,
// f8e4m3b11fnuz).
//
// All rounding is round-to-nearest-even, with subnormals and NaN preserved
// (as a quiet NaN). Overflow goes to infinity in formats that have one and
// to NaN in those that do not (XLA's and ml_dtypes' non-saturating
// conversion: f8e4m3fn(1000) is NaN). Pure functions; thread-safe.
#ifndef XTUNE_UTIL_FLOAT_FORMATS_H_
#define XTUNE_UTIL_FLOAT_FORMATS_H_

#include <cstdint>

namespace xtune {

// Rounds `v` to the nearest value representable in the format; the result is
// returned as a double holding that value exactly.
double RoundToF32(double v);
double RoundToF16(double v);
double RoundToBF16(double v);

// Bit encodings. The *ToBits functions round first (RNE).
uint16_t F16ToBits(double v);
double F16FromBits(uint16_t bits);
uint16_t BF16ToBits(double v);
double BF16FromBits(uint16_t bits);

// An 8-bit float format: sign, exponent and mantissa bits, the exponent
// bias, and which codes are special.
struct Fp8Format {
  enum class Kind {
    kIeee,  // infinities at the top exponent with mantissa 0, NaNs above
    kFn,    // no infinities; NaN is the top exponent with mantissa all ones
    kFnuz,  // no infinities, no -0: NaN is 0x80 (the negative zero's code)
  };
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Kind kind;
};
inline constexpr Fp8Format kF8E4M3FN{4, 3, 7, Fp8Format::Kind::kFn};
inline constexpr Fp8Format kF8E5M2{5, 2, 15, Fp8Format::Kind::kIeee};
inline constexpr Fp8Format kF8E4M3FNUZ{4, 3, 8, Fp8Format::Kind::kFnuz};
inline constexpr Fp8Format kF8E5M2FNUZ{5, 2, 16, Fp8Format::Kind::kFnuz};
inline constexpr Fp8Format kF8E4M3B11FNUZ{4, 3, 11, Fp8Format::Kind::kFnuz};

// The largest finite value of the format (448 for f8e4m3fn).
double Fp8Max(const Fp8Format& f);
double RoundToFp8(double v, const Fp8Format& f);
uint8_t Fp8ToBits(double v, const Fp8Format& f);  // rounds first (RNE)
double Fp8FromBits(uint8_t bits, const Fp8Format& f);

}  // namespace xtune

#endif  // XTUNE_UTIL_FLOAT_FORMATS_H_
