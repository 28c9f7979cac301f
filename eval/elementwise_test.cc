#include "eval/elementwise.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace xtune {
namespace {

TEST(ElementwiseTest, IntegerDivisionEdgeCases) {
  EXPECT_EQ(BinaryInt(Opcode::kDivide, 5, 0, DType::kS32), -1);
  EXPECT_EQ(BinaryInt(Opcode::kDivide, 5, 0, DType::kU32), 4294967295);
  EXPECT_EQ(BinaryInt(Opcode::kDivide, INT64_MIN, -1, DType::kS64), INT64_MIN);
  EXPECT_EQ(BinaryInt(Opcode::kRemainder, 5, 0, DType::kS8), 5);
  EXPECT_EQ(BinaryInt(Opcode::kRemainder, -128, -1, DType::kS8), 0);
  EXPECT_EQ(BinaryInt(Opcode::kRemainder, -7, 2, DType::kS32), -1);
}

TEST(ElementwiseTest, IntegerWrapAndPower) {
  EXPECT_EQ(BinaryInt(Opcode::kAdd, 127, 1, DType::kS8), -128);
  EXPECT_EQ(BinaryInt(Opcode::kMultiply, 65536, 65536, DType::kS32), 0);
  EXPECT_EQ(BinaryInt(Opcode::kPower, 3, 4, DType::kS32), 81);
  EXPECT_EQ(BinaryInt(Opcode::kPower, 2, -1, DType::kS32), 0);
  EXPECT_EQ(BinaryInt(Opcode::kPower, -1, -3, DType::kS32), 0);
  EXPECT_EQ(BinaryInt(Opcode::kPower, 1, -3, DType::kS32), 1);
  EXPECT_EQ(BinaryInt(Opcode::kShiftRightLogical, -1, 28, DType::kS32), 15);
  EXPECT_EQ(BinaryInt(Opcode::kShiftRightArithmetic, -16, 2, DType::kS32), -4);
  EXPECT_EQ(BinaryInt(Opcode::kShiftLeft, 1, 40, DType::kS32), 0);
}

// u64 is carried as int64_t bit patterns; these are the operations where
// that would go wrong, worked out on the unsigned values.
TEST(ElementwiseTest, U64OrdersDividesAndShiftsUnsigned) {
  const int64_t big = static_cast<int64_t>(0x8000000000000000ull);  // 2^63
  const int64_t max = -1;                                            // 2^64-1
  EXPECT_EQ(BinaryInt(Opcode::kDivide, max, 3, DType::kU64),
            static_cast<int64_t>(6148914691236517205ull));
  EXPECT_EQ(BinaryInt(Opcode::kDivide, 5, 0, DType::kU64), max);
  EXPECT_EQ(BinaryInt(Opcode::kRemainder, max, 10, DType::kU64), 5);
  EXPECT_EQ(BinaryInt(Opcode::kRemainder, big, 0, DType::kU64), big);
  EXPECT_EQ(BinaryInt(Opcode::kMaximum, big, 1, DType::kU64), big);
  EXPECT_EQ(BinaryInt(Opcode::kMinimum, big, 1, DType::kU64), 1);
  EXPECT_EQ(BinaryInt(Opcode::kShiftRightArithmetic, big, 62, DType::kU64), 2);
  EXPECT_EQ(BinaryInt(Opcode::kShiftRightLogical, max, 60, DType::kU64), 15);
  EXPECT_EQ(BinaryInt(Opcode::kAdd, max, 2, DType::kU64), 1);
}

TEST(ElementwiseTest, FloatMaxMinPropagateNaN) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(BinaryFloat(Opcode::kMaximum, nan, 1, DType::kF32)));
  EXPECT_TRUE(std::isnan(BinaryFloat(Opcode::kMinimum, 1, nan, DType::kF64)));
  EXPECT_EQ(BinaryFloat(Opcode::kMaximum, -1, 2, DType::kBF16), 2);
}

TEST(ElementwiseTest, F32ArithmeticRoundsLikeFloat) {
  float a = 0.1f, b = 0.2f;
  EXPECT_EQ(BinaryFloat(Opcode::kAdd, a, b, DType::kF32),
            static_cast<double>(a + b));
  EXPECT_NE(BinaryFloat(Opcode::kAdd, 0.1, 0.2, DType::kF64),
            static_cast<double>(a + b));
}

}  // namespace
}  // namespace xtune
