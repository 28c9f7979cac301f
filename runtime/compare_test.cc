#include "runtime/compare.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_THAT(m, IsOk());
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(CompareTest, XlasRuleWithTheDefaultTolerances) {
  Literal a(Shape(DType::kF32, {3}));
  Literal b(Shape(DType::kF32, {3}));
  for (int i = 0; i < 3; ++i) {
    a.SetDouble(i, 10.0 * i);
    b.SetDouble(i, 10.0 * i);
  }
  EXPECT_THAT(CompareLiterals(a, b, "same"), IsOk());
  b.SetDouble(2, 20.02);  // 0.02 / 21.02 ~ 9.5e-4
  EXPECT_THAT(CompareLiterals(a, b, "close"), IsOk());
  b.SetDouble(2, 20.05);
  EXPECT_THAT(CompareLiterals(a, b, "far"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("far")));
}

// The emulator's tolerance grows with the longest sum: the GPU adds its
// terms in another order (the tensor cores inside an mma).
TEST(CompareTest, EmulatorToleranceGrowsWithTheLongestSum) {
  std::unique_ptr<Module> m = Parse(R"hlo(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[8,4096] parameter(0)
  b = f32[4096,16] parameter(1)
  d = f32[8,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[8] reduce(d, z), dimensions={1}, to_apply=add
  ROOT n = f32[8] negate(r)
})hlo");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LongestSum(*m->entry()), 4096);
  EXPECT_NEAR(EmulatorMatchTolerance(*m->entry()).f32_tolerance,
              1e-5 + 16.0 * 4096 * std::ldexp(1.0, -24), 1e-12);
  std::unique_ptr<Module> conv = Parse(R"hlo(HloModule c
ENTRY e {
  x = f32[1,8,8,12] parameter(0)
  k = f32[3,3,4,6] parameter(1)
  ROOT c = f32[1,8,8,6] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3
})hlo");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(LongestSum(*conv->entry()), 3 * 3 * 4);
  std::unique_ptr<Module> pointwise = Parse(R"hlo(HloModule p
ENTRY e {
  x = f32[64] parameter(0)
  ROOT t = f32[64] tanh(x)
})hlo");
  ASSERT_NE(pointwise, nullptr);
  EXPECT_EQ(LongestSum(*pointwise->entry()), 1);
  const double pointwise_tol = EmulatorMatchTolerance(*pointwise->entry()).f32_tolerance;
  EXPECT_LT(pointwise_tol, 1.1e-5);
  EXPECT_GT(EmulatorMatchTolerance(*m->entry()).f32_tolerance, 300 * pointwise_tol);
}

}  // namespace
}  // namespace xtune
