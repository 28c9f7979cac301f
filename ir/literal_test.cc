#include "ir/literal.h"

#include <cmath>

#include "gtest/gtest.h"
#include "ir/literal_parser.h"
#include "ir/text_cursor.h"

namespace xtune {
namespace {

TEST(LiteralTest, LogicalAccessThroughColumnMajorLayout) {
  Literal lit(Shape(DType::kF32, {2, 3}, {0, 1}));
  for (int i = 0; i < 6; ++i) lit.SetDouble(i, i);
  // Logical (r, c) = 3r + c lives at physical c*2 + r.
  const float* data = reinterpret_cast<const float*>(lit.bytes().data());
  EXPECT_EQ(data[0], 0);  // (0,0)
  EXPECT_EQ(data[1], 3);  // (1,0)
  EXPECT_EQ(data[2], 1);  // (0,1)
  EXPECT_EQ(data[5], 5);  // (1,2)
  Literal row_major = lit.Relayout({1, 0});
  const float* rm = reinterpret_cast<const float*>(row_major.bytes().data());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(rm[i], i);
}

TEST(LiteralTest, StoresRoundOrWrapToElementType) {
  Literal f16(Shape(DType::kF16, {1}));
  f16.SetDouble(0, 1.0 + 1.0 / 4096);  // below half an ulp of 1
  EXPECT_EQ(f16.GetDouble(0), 1.0);
  Literal s8(Shape(DType::kS8, {1}));
  s8.SetInt(0, 200);
  EXPECT_EQ(s8.GetInt(0), -56);
  Literal u32(Shape(DType::kU32, {1}));
  u32.SetInt(0, -1);
  EXPECT_EQ(u32.GetInt(0), 4294967295);
  Literal pred(Shape(DType::kPred, {1}));
  pred.SetDouble(0, 0.5);
  EXPECT_EQ(pred.GetInt(0), 1);
}

absl::StatusOr<Literal> ParseText(const std::string& text, const Shape& shape) {
  TextCursor cursor(text, "t");
  return ParseLiteral(cursor, shape, /*allow_scalar_fill=*/false);
}

// u64 keeps its bit pattern in GetInt/SetInt, and its value elsewhere.
TEST(LiteralTest, U64ValuesPastInt64Max) {
  absl::StatusOr<Literal> l = ParseText(
      "{18446744073709551615, 9223372036854775808, 0}",
      Shape(DType::kU64, {3}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetInt(0), -1);
  EXPECT_EQ(l->GetDouble(1), 9223372036854775808.0);
  EXPECT_EQ(l->ToString(), "{18446744073709551615, 9223372036854775808, 0}");
  Literal u(Shape(DType::kU64, {1}));
  u.SetDouble(0, 1e30);
  EXPECT_EQ(u.GetInt(0), -1);  // saturates at 2^64 - 1
  u.SetDouble(0, -3.0);
  EXPECT_EQ(u.GetInt(0), 0);
  EXPECT_FALSE(ParseText("{-1}", Shape(DType::kU64, {1})).ok());
  EXPECT_FALSE(
      ParseText("{18446744073709551616}", Shape(DType::kU64, {1})).ok());
}

TEST(LiteralTest, ToStringMatchesXlaFormat) {
  Literal scalar(Shape(DType::kF32, {}));
  scalar.SetDouble(0, 1.0);
  EXPECT_EQ(scalar.ToString(), "1");
  scalar.SetDouble(0, 0.1f);
  EXPECT_EQ(scalar.ToString(), "0.1");
  scalar.SetDouble(0, -INFINITY);
  EXPECT_EQ(scalar.ToString(), "-inf");
  scalar.SetDouble(0, 9.79795933f);
  EXPECT_EQ(scalar.ToString(), "9.79795933");

  Literal v(Shape(DType::kS32, {3}));
  for (int i = 0; i < 3; ++i) v.SetInt(i, i + 1);
  EXPECT_EQ(v.ToString(), "{1, 2, 3}");

  Literal m(Shape(DType::kF32, {2, 2}));
  for (int i = 0; i < 4; ++i) m.SetDouble(i, i + 1);
  EXPECT_EQ(m.ToString(), "{ { 1, 2 }, { 3, 4 } }");

  Literal p(Shape(DType::kPred, {2}));
  p.SetInt(1, 1);
  EXPECT_EQ(p.ToString(), "{0, 1}");
  Literal ps(Shape(DType::kPred, {}));
  EXPECT_EQ(ps.ToString(), "false");
}

TEST(LiteralTest, FormatFloatRoundTripsEveryType) {
  EXPECT_EQ(FormatFloat(0.1, DType::kF64), "0.1");
  EXPECT_EQ(FormatFloat(1.0 / 3.0, DType::kF64), "0.33333333333333331");
  EXPECT_EQ(FormatFloat(static_cast<float>(1.0 / 3.0), DType::kF32),
            "0.333333343");
  EXPECT_EQ(FormatFloat(std::nan(""), DType::kF32), "nan");
}

}  // namespace
}  // namespace xtune
