#include "ir/dot_precision.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "ir/parser.h"

namespace xtune {
namespace {

// Whether the one dot of a module whose dot line ends with `attrs` allows
// TF32, for operands of type `t`.
bool Allows(const std::string& t, const std::string& attrs) {
  std::string text = "HloModule m\nENTRY e {\n  a = " + t + "[4,8] parameter(0)\n  b = " +
                     t + "[8,2] parameter(1)\n  ROOT d = f32[4,2] dot(a, b), " +
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}" + attrs + "\n}\n";
  auto m = ParseModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return false;
  return DotAllowsTf32(*(*m)->entry()->root());
}

TEST(DotPrecisionTest, OnlyDefaultPrecisionF32DotsAllowTf32) {
  EXPECT_TRUE(Allows("f32", ""));
  EXPECT_TRUE(Allows("f32", ", operand_precision={default,default}"));
  EXPECT_TRUE(Allows("f32", ", operand_precision={DEFAULT, DEFAULT}"));
  EXPECT_FALSE(Allows("f32", ", operand_precision={highest,highest}"));
  EXPECT_FALSE(Allows("f32", ", operand_precision={default,high}"));
  EXPECT_FALSE(Allows("f32", ", algorithm=dot_f32_f32_f32"));
  EXPECT_FALSE(Allows("f32", ", algorithm=dot_tf32_tf32_f32"));  // named: kept exact
  EXPECT_FALSE(Allows("bf16", ""));
}

TEST(DotPrecisionTest, AnyDotAllowsTf32LooksInEveryComputation) {
  auto m = ParseModule(R"hlo(HloModule m
f {
  a = f32[2,2] parameter(0)
  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  p = f32[2,2] parameter(0)
  ROOT c = f32[2,2] call(p), to_apply=f
})hlo", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(AnyDotAllowsTf32(**m));
  auto n = ParseModule("HloModule n\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] "
                       "add(a, a)\n}\n", "t.hlo");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_FALSE(AnyDotAllowsTf32(**n));
}

TEST(DotPrecisionTest, RoundsToNearestTiesAwayAndKeepsSpecials) {
  const float ulp = std::ldexp(1.0f, -10);  // TF32's at 1
  EXPECT_EQ(RoundToTf32(1.0f + ulp / 4), 1.0f);
  EXPECT_EQ(RoundToTf32(1.0f + ulp / 2), 1.0f + ulp);  // a tie, away from zero
  EXPECT_EQ(RoundToTf32(-(1.0f + ulp / 2)), -(1.0f + ulp));
  EXPECT_EQ(RoundToTf32(1.0f + 3 * ulp / 4), 1.0f + ulp);
  EXPECT_EQ(RoundToTf32(3.0f), 3.0f);
  EXPECT_EQ(RoundToTf32(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(RoundToTf32(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(RoundToTf32(std::numeric_limits<float>::max()),
            std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace xtune
