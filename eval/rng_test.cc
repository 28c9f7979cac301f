// The generators against Random123's known-answer vectors (kat_vectors:
// threefry2x32_20, philox4x32_10), and rng-bit-generator's layout rules.
#include "eval/rng.h"

#include "gtest/gtest.h"
#include "ir/parser.h"
#include "eval/evaluator.h"

namespace xtune {
namespace {

TEST(RngTest, ThreeFry2x32KnownAnswers) {
  EXPECT_EQ(ThreeFry2x32({0, 0}, {0, 0}),
            (std::array<uint32_t, 2>{0x6b200159u, 0x99ba4efeu}));
  EXPECT_EQ(ThreeFry2x32({0xffffffffu, 0xffffffffu},
                         {0xffffffffu, 0xffffffffu}),
            (std::array<uint32_t, 2>{0x1cb996fcu, 0xbb002be7u}));
}

TEST(RngTest, Philox4x32KnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
                                     0x9b00dbd8u}));
  EXPECT_EQ(Philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                       {0xffffffffu, 0xffffffffu}),
            (std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u,
                                     0x6d5451fdu}));
}

// The counter advances by the blocks used: ThreeFry's 32-bit generator by
// the halved shape (u32[3,5] halves its largest dimension: 3 x 3 = 9);
// Philox by 128-bit blocks with a carry into the high word of a u64[3]
// state.
TEST(RngTest, StatesAdvanceAsXlas) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(HloModule m
ENTRY e {
  s2 = u64[2] parameter(0)
  s3 = u64[3] parameter(1)
  tf = (u64[2], u32[3,5]) rng-bit-generator(s2), algorithm=rng_three_fry
  ph = (u64[3], u32[6]) rng-bit-generator(s3), algorithm=rng_philox
  a = u64[2] get-tuple-element(tf), index=0
  b = u64[3] get-tuple-element(ph), index=0
  ROOT r = (u64[2], u64[3]) tuple(a, b)
})", "rng.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  Literal s2(Shape(DType::kU64, {2})), s3(Shape(DType::kU64, {3}));
  s2.SetInt(0, 7);
  s2.SetInt(1, 100);
  s3.SetInt(0, 5);
  s3.SetInt(1, -1);  // 2^64 - 1: two blocks carry into the high word
  s3.SetInt(2, -1);
  absl::StatusOr<Literal> r = Evaluate(**m, {s2, s3});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->elements()[0].GetInt(1), 109);
  EXPECT_EQ(r->elements()[1].GetInt(0), 5);
  EXPECT_EQ(r->elements()[1].GetInt(1), 1);
  EXPECT_EQ(r->elements()[1].GetInt(2), 0);
  EXPECT_FALSE(ParseModule(R"(HloModule m
ENTRY e {
  s = u64[3] parameter(0)
  ROOT t = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry
})", "bad.hlo").ok());
}

}  // namespace
}  // namespace xtune
