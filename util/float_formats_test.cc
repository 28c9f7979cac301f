#include "util/float_formats.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace xtune {
namespace {

TEST(FloatFormatsTest, F16KnownValues) {
  EXPECT_EQ(F16ToBits(1.0), 0x3C00);
  EXPECT_EQ(F16ToBits(-2.0), 0xC000);
  EXPECT_EQ(F16ToBits(65504.0), 0x7BFF);           // max finite
  EXPECT_EQ(F16ToBits(65520.0), 0x7C00);           // rounds to inf
  EXPECT_EQ(F16ToBits(std::ldexp(1.0, -24)), 0x0001);  // min subnormal
  EXPECT_EQ(F16ToBits(std::ldexp(1.0, -25)), 0x0000);  // tie to even: 0
  EXPECT_EQ(F16ToBits(std::ldexp(3.0, -25)), 0x0002);  // tie to even: 2
  EXPECT_EQ(F16FromBits(0x3555), 0.333251953125);
  EXPECT_TRUE(std::isnan(F16FromBits(F16ToBits(std::nan("")))));
}

TEST(FloatFormatsTest, F16RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(RoundToF16(1.0 + std::ldexp(1.0, -11)), 1.0);
  // 1 + 3*2^-11 is halfway between 1+2^-10 and 1+2^-9: ties to 1+2^-9.
  EXPECT_EQ(RoundToF16(1.0 + 3 * std::ldexp(1.0, -11)),
            1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(RoundToF16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -20)),
            1.0 + std::ldexp(1.0, -10));
}

TEST(FloatFormatsTest, BF16RoundsToNearestEven) {
  EXPECT_EQ(BF16ToBits(1.0), 0x3F80);
  EXPECT_EQ(RoundToBF16(1.0 + std::ldexp(1.0, -8)), 1.0);  // tie -> even
  EXPECT_EQ(RoundToBF16(1.0 + 3 * std::ldexp(1.0, -8)),
            1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(BF16FromBits(0x4049), 3.140625);
  EXPECT_TRUE(std::isinf(RoundToBF16(3.4e38 * 1.01)));
}

TEST(FloatFormatsTest, AllF16BitPatternsRoundTrip) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double v = F16FromBits(static_cast<uint16_t>(bits));
    if (std::isnan(v)) continue;
    EXPECT_EQ(F16ToBits(v), bits) << bits;
  }
}

TEST(FloatFormatsTest, F16MatchesFloatToHalfViaF32ForF32Inputs) {
  // For values exactly representable in f32, rounding f32 -> f16 directly
  // must agree with a bit-level reference implementation.
  auto reference = [](float f) -> uint16_t {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    x &= 0x7FFFFFFF;
    if (x >= 0x47800000) return sign | 0x7C00;  // overflow (no NaN here)
    if (x < 0x38800000) {                        // subnormal or zero
      float a;
      std::memcpy(&a, &x, 4);
      return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
    }
    uint32_t mant = x & 0x7FFFFF;
    uint32_t exp = (x >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
    return sign | static_cast<uint16_t>(h);
  };
  uint32_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    uint32_t bits = (state & 0x807FFFFF) | ((100 + (state >> 24) % 50) << 23);
    float f;
    std::memcpy(&f, &bits, 4);
    EXPECT_EQ(F16ToBits(f), reference(f)) << f;
  }
}

}  // namespace
}  // namespace xtune
