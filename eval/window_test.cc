// The windowed operations and XLA's cuDNN convolution calls in the
// evaluator: hand-computed cases, identities that hold for any input (a
// reversed kernel, the adjoints of a convolution), and the text forms
// reading back. JAX checks the same operations against XLA:CPU
// (tests/jax/models.py: resnet_block, grouped_convs).
#include "eval/window.h"

#include <string>

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "util/rng.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::vector<Literal> RunText(const std::string& text, const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  EXPECT_THAT(m, IsOk());
  if (!m.ok()) return {};
  absl::StatusOr<Literal> r = Evaluate(**m, args, {});
  EXPECT_THAT(r, IsOk());
  if (!r.ok()) return {};
  std::vector<Literal> out;
  if (!r->IsTuple()) {
    out.push_back(std::move(*r));
  } else {
    out = std::move(r->elements());
  }
  return out;
}

// Values in [-1, 1) from `seed`.
Literal RandomLiteral(const Shape& shape, uint64_t seed) {
  Literal lit(shape);
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetDouble(i, 2 * rng.NextDouble() - 1);
  return lit;
}

std::vector<double> Values(const Literal& lit) {
  std::vector<double> v;
  for (int64_t i = 0; i < lit.element_count(); ++i) v.push_back(lit.GetDouble(i));
  return v;
}

Literal FromValues(DType t, std::vector<int64_t> dims, const std::vector<double>& v) {
  Literal lit(Shape(t, std::move(dims)));
  for (size_t i = 0; i < v.size(); ++i) lit.SetDouble(static_cast<int64_t>(i), v[i]);
  return lit;
}

double Dot(const Literal& a, const Literal& b) {
  double s = 0;
  for (int64_t i = 0; i < a.element_count(); ++i) s += a.GetDouble(i) * b.GetDouble(i);
  return s;
}

TEST(WindowTest, ReduceWindowSumWithPaddingAndBaseDilation) {
  // x = [1 2 3]; dilated: 1 _ 2 _ 3; padded 1 each side; windows of 2 at
  // stride 2: [0 1] [_ 2] [_ 3] -> 1, 2, 3 (holes and padding skipped).
  std::vector<Literal> r = RunText(R"(HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT w = f32[3] reduce-window(x, z), window={size=2 stride=2 pad=1_0 lhs_dilate=2}, to_apply=add
})", {FromValues(DType::kF32, {3}, {1, 2, 3})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(Values(r[0]), (std::vector<double>{1, 2, 3}));
}

TEST(WindowTest, SelectAndScatterSendsEachWindowsSourceToItsMaximum) {
  // Windows of 2 at stride 1 over [1 5 2 4]: maxima at 1, 1, 3.
  std::vector<Literal> r = RunText(R"(HloModule m
ge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=GE }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[4] parameter(0)
  s = f32[3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4] select-and-scatter(x, s, z), window={size=2}, select=ge, scatter=add
})", {FromValues(DType::kF32, {4}, {1, 5, 2, 4}), FromValues(DType::kF32, {3}, {10, 20, 30})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(Values(r[0]), (std::vector<double>{0, 30, 0, 30}));
}

TEST(WindowTest, RhsReversalIsAConvolutionWithTheKernelReversed) {
  const std::string conv = R"(HloModule m
ENTRY e {
  x = f32[2,7,6,3] parameter(0)
  w = f32[3,2,3,4] parameter(1)
  ROOT c = f32[2,4,3,4] convolution(x, w), window={size=3x2 stride=2x2 pad=1_1x0_1 rhs_dilate=1x2 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f
})";
  std::string reversed = conv;
  reversed.replace(reversed.find(" rhs_reversal=1x1"), 17, "");
  reversed.replace(reversed.find("convolution(x, w)"), 17, "convolution(x, r)");
  reversed.replace(reversed.find("  ROOT"), 0, "  r = f32[3,2,3,4] reverse(w), dimensions={0,1}\n");
  std::vector<Literal> args;
  args.push_back(RandomLiteral(Shape(DType::kF32, {2, 7, 6, 3}), 1));
  args.push_back(RandomLiteral(Shape(DType::kF32, {3, 2, 3, 4}), 2));
  std::vector<Literal> a = RunText(conv, args), b = RunText(reversed, args);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(Values(a[0]), Values(b[0]));
}

// <conv(x, w), dy> = <x, backward_input(dy, w)> = <w, backward_filter(x, dy)>
// for XLA's cuDNN calls of one forward convolution with feature groups,
// stride, dilation and uneven padding.
TEST(WindowTest, CudnnBackwardCallsAreTheForwardConvolutionsAdjoints) {
  const std::string attrs =
      "window={size=3x2 stride=2x1 pad=1_2x0_1 rhs_dilate=1x2}, dim_labels=bf01_o01i->bf01, "
      "feature_group_count=2";
  const std::string module = R"(HloModule m
ENTRY e {
  x = f32[2,4,9,5] parameter(0)
  w = f32[6,3,2,2] parameter(1)
  dy = f32[2,6,5,4] parameter(2)
  y = (f32[2,6,5,4], u8[0]) custom-call(x, w), )" + attrs + R"(, custom_call_target="__cudnn$convForward"
  dx = (f32[2,4,9,5], u8[0]) custom-call(dy, w), )" + attrs + R"(, custom_call_target="__cudnn$convBackwardInput"
  dw = (f32[6,3,2,2], u8[16]) custom-call(x, dy), )" + attrs + R"(, custom_call_target="__cudnn$convBackwardFilter"
  y0 = f32[2,6,5,4] get-tuple-element(y), index=0
  dx0 = f32[2,4,9,5] get-tuple-element(dx), index=0
  dw0 = f32[6,3,2,2] get-tuple-element(dw), index=0
  ROOT t = (f32[2,6,5,4], f32[2,4,9,5], f32[6,3,2,2]) tuple(y0, dx0, dw0)
})";
  std::vector<Literal> args;
  args.push_back(RandomLiteral(Shape(DType::kF32, {2, 4, 9, 5}), 3));
  args.push_back(RandomLiteral(Shape(DType::kF32, {6, 3, 2, 2}), 4));
  args.push_back(RandomLiteral(Shape(DType::kF32, {2, 6, 5, 4}), 5));
  std::vector<Literal> r = RunText(module, args);
  ASSERT_EQ(r.size(), 3u);
  const double forward = Dot(r[0], args[2]);
  EXPECT_NEAR(Dot(args[0], r[1]), forward, 1e-3 * std::abs(forward) + 1e-3);
  EXPECT_NEAR(Dot(args[1], r[2]), forward, 1e-3 * std::abs(forward) + 1e-3);
}

TEST(WindowTest, TextFormsReadBackAndBadOnesAreNamed) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[1,5,5,2] parameter(0)
  w = f32[1,2,3,3] parameter(1)
  ROOT c = f32[1,3,11,2] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x2_2 lhs_dilate=1x2 rhs_dilate=1x1 rhs_reversal=0x1}, dim_labels=b01f_io01->b01f, feature_group_count=2
})";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  ASSERT_THAT(m, IsOk());
  const std::string printed = ToString(**m);
  EXPECT_THAT(printed, HasSubstr("window={size=3x3 stride=2x1 pad=1_1x2_2 lhs_dilate=1x2 "
                                 "rhs_reversal=0x1}, dim_labels=b01f_io01->b01f, "
                                 "feature_group_count=2"));
  absl::StatusOr<std::unique_ptr<Module>> again = ParseModule(printed, "again.hlo");
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(ToString(**again), printed);
  auto error = [&](const std::string& from, const std::string& to) {
    std::string bad = text;
    bad.replace(bad.find(from), from.size(), to);
    return ParseModule(bad, "bad.hlo").status();
  };
  EXPECT_THAT(error("b01f_io01->b01f", "b01f_io01->b0f1x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dim_labels")));
  EXPECT_THAT(error("b01f_io01->b01f", "b01f_ii01->b01f"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("twice")));
  EXPECT_THAT(error("stride=2x1", "stride=2x1x1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 dimensions")));
  EXPECT_THAT(error("lhs_dilate=1x2", "lhs_dilate=1x9223372036854775807"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
  EXPECT_THAT(error("b01f_io01->b01f", "b91f_io01->b01f"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("digits 0 to 1")));
  EXPECT_THAT(error("size=3x3", "sise=3x3"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("size= must come first")));
  EXPECT_THAT(error("f32[1,3,11,2] conv", "f32[1,3,10,2] conv"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(error("feature_group_count=2", "feature_group_count=3"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("feature_group_count")));
}

}  // namespace
}  // namespace xtune
