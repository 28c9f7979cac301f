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

// Known values of the 8-bit formats, as ml_dtypes (XLA's) defines them.
TEST(FloatFormatsTest, Fp8KnownValues) {
  struct Known {
    const Fp8Format* f;
    double max;
    uint8_t max_bits, one_bits;
    double min_subnormal;
  };
  const Known known[] = {
      {&kF8E4M3FN, 448, 0x7e, 0x38, 0x1p-9},
      {&kF8E5M2, 57344, 0x7b, 0x3c, 0x1p-16},
      {&kF8E4M3FNUZ, 240, 0x7f, 0x40, 0x1p-10},
      {&kF8E5M2FNUZ, 57344, 0x7f, 0x40, 0x1p-17},
      {&kF8E4M3B11FNUZ, 30, 0x7f, 0x58, 0x1p-13},
  };
  for (const Known& k : known) {
    SCOPED_TRACE(k.max);
    EXPECT_EQ(Fp8Max(*k.f), k.max);
    EXPECT_EQ(Fp8ToBits(k.max, *k.f), k.max_bits);
    EXPECT_EQ(Fp8ToBits(1.0, *k.f), k.one_bits);
    EXPECT_EQ(Fp8FromBits(0x01, *k.f), k.min_subnormal);
    EXPECT_EQ(Fp8FromBits(k.one_bits, *k.f), 1.0);
    // Half the smallest subnormal is a tie: to even, zero.
    EXPECT_EQ(RoundToFp8(k.min_subnormal / 2, *k.f), 0.0);
    EXPECT_EQ(RoundToFp8(k.min_subnormal * 0.75, *k.f), k.min_subnormal);
  }
  // Overflow: infinity where the format has one, NaN where it has none.
  EXPECT_TRUE(std::isnan(RoundToFp8(1000, kF8E4M3FN)));
  EXPECT_EQ(Fp8ToBits(1000, kF8E4M3FN), 0x7f);
  // NaN codes as ml_dtypes writes them, signed where the format allows.
  EXPECT_EQ(Fp8ToBits(-1000, kF8E4M3FN), 0xff);
  EXPECT_EQ(Fp8ToBits(-NAN, kF8E4M3FN), 0xff);
  EXPECT_EQ(Fp8ToBits(NAN, kF8E5M2), 0x7e);
  EXPECT_EQ(Fp8ToBits(-NAN, kF8E5M2), 0xfe);
  EXPECT_EQ(Fp8ToBits(-NAN, kF8E5M2FNUZ), 0x80);
  EXPECT_TRUE(std::signbit(Fp8FromBits(0xff, kF8E4M3FN)));
  EXPECT_EQ(RoundToFp8(464, kF8E4M3FN), 448);  // the tie rounds to even 448
  EXPECT_TRUE(std::isnan(RoundToFp8(465, kF8E4M3FN)));
  EXPECT_TRUE(std::isinf(RoundToFp8(1e6, kF8E5M2)));
  EXPECT_EQ(Fp8ToBits(-1e6, kF8E5M2), 0xfc);
  EXPECT_TRUE(std::isnan(RoundToFp8(INFINITY, kF8E4M3FN)));
  EXPECT_EQ(Fp8ToBits(INFINITY, kF8E4M3FNUZ), 0x80);
  EXPECT_TRUE(std::isnan(RoundToFp8(300, kF8E4M3FNUZ)));
  // -0: kept where it exists, +0 in the fnuz formats (0x80 is their NaN).
  EXPECT_EQ(Fp8ToBits(-0.0, kF8E4M3FN), 0x80);
  EXPECT_EQ(Fp8ToBits(-0.0, kF8E4M3FNUZ), 0x00);
  EXPECT_TRUE(std::isnan(Fp8FromBits(0x80, kF8E5M2FNUZ)));
  // 3 mantissa bits: 1.0625 is a tie between 1 and 1.125, to even 1;
  // 1.1875 to even 1.25.
  EXPECT_EQ(RoundToFp8(1.0625, kF8E4M3FN), 1.0);
  EXPECT_EQ(RoundToFp8(1.1875, kF8E4M3FN), 1.25);
}

// Every code that is not a NaN decodes and encodes back to itself.
TEST(FloatFormatsTest, AllFp8BitPatternsRoundTrip) {
  for (const Fp8Format* f :
       {&kF8E4M3FN, &kF8E5M2, &kF8E4M3FNUZ, &kF8E5M2FNUZ, &kF8E4M3B11FNUZ}) {
    int nans = 0;
    for (int c = 0; c < 256; ++c) {
      double v = Fp8FromBits(static_cast<uint8_t>(c), *f);
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
      EXPECT_EQ(Fp8ToBits(v, *f), c) << "code " << c << " value " << v;
    }
    const int want = f->kind == Fp8Format::Kind::kFnuz ? 1
                     : f->kind == Fp8Format::Kind::kFn ? 2
                                                       : 6;  // e5m2
    EXPECT_EQ(nans, want) << f->bias;
  }
}

}  // namespace
}  // namespace xtune
