#include "ir/shape.h"

#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(ShapeTest, DefaultLayoutIsRowMajor) {
  Shape s(DType::kF32, {2, 3, 4});
  EXPECT_EQ(s.minor_to_major(), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(s.ToString(), "f32[2,3,4]{2,1,0}");
  EXPECT_EQ(s.ToString(false), "f32[2,3,4]");
  EXPECT_EQ(s.PhysicalStrides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(s.ElementCount(), 24);
  EXPECT_EQ(s.ByteSize(), 96);
}

TEST(ShapeTest, ColumnMajorStrides) {
  Shape s(DType::kF16, {2, 3}, {0, 1});
  EXPECT_EQ(s.PhysicalStrides(), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(s.HasDefaultLayout());
  EXPECT_EQ(s.ToString(), "f16[2,3]{0,1}");
}

TEST(ShapeTest, ScalarsAndTuples) {
  Shape scalar(DType::kS32, {});
  EXPECT_EQ(scalar.ToString(), "s32[]");
  Shape t = Shape::Tuple({scalar, Shape(DType::kPred, {4})});
  EXPECT_EQ(t.ToString(), "(s32[], pred[4]{0})");
  EXPECT_TRUE(t.IsTuple());
}

TEST(ShapeTest, CompatibleIgnoresLayout) {
  Shape a(DType::kF32, {2, 3}, {0, 1});
  Shape b(DType::kF32, {2, 3});
  EXPECT_TRUE(a.Compatible(b));
  EXPECT_NE(a, b);
  EXPECT_FALSE(a.Compatible(Shape(DType::kF32, {3, 2})));
  EXPECT_FALSE(a.Compatible(Shape(DType::kF16, {2, 3})));
}

TEST(ShapeTest, ValidateRejectsBadLayouts) {
  EXPECT_THAT(Shape(DType::kF32, {2, 3}, {0, 0}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Shape(DType::kF32, {2, 3}, {0}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Shape(DType::kF32, {-1}).Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Shape(DType::kF32, {2, 3}, {0, 1}).Validate(), IsOk());
}

}  // namespace
}  // namespace xtune
