// Conversions between double and the narrow IEEE-style float formats xtune
// computes with: f32, f16 (IEEE binary16) and bf16 (bfloat16).
//
// All rounding is round-to-nearest-even, with subnormals, overflow to
// infinity and NaN preserved (as a quiet NaN). Pure functions; thread-safe.
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

}  // namespace xtune

#endif  // XTUNE_UTIL_FLOAT_FORMATS_H_
