// The indexing family against values worked out by hand from XLA's
// semantics (ir/indexing.h): clamped starts, scatter windows that do not fit
// dropped whole, repeated scatter indices combined in update order.
#include "eval/indexing.h"

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

Literal Lit(DType t, std::vector<int64_t> dims, const std::vector<double>& v) {
  Literal lit(Shape(t, std::move(dims)));
  for (size_t i = 0; i < v.size(); ++i) lit.SetDouble(i, v[i]);
  return lit;
}

Literal Scalar(int64_t v) { return Lit(DType::kS32, {}, {double(v)}); }

// 0, 1, 2, ... n-1 as f32 of `dims`.
Literal Iota(std::vector<int64_t> dims) {
  Literal lit(Shape(DType::kF32, dims));
  for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetDouble(i, i);
  return lit;
}

std::vector<double> Eval(const std::string& text, std::vector<Literal> args) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  EXPECT_THAT(m, IsOk());
  if (!m.ok()) return {};
  absl::StatusOr<Literal> r = Evaluate(**m, args);
  EXPECT_THAT(r, IsOk());
  std::vector<double> v;
  if (r.ok()) {
    for (int64_t i = 0; i < r->element_count(); ++i) v.push_back(r->GetDouble(i));
  }
  return v;
}

constexpr char kDynamicSlice[] = R"hlo(HloModule m
ENTRY e {
  x = f32[5] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2}
})hlo";

// "The start index is clamped to [0, dim - size]": -3 reads from 0, 4 and
// 100 read the last two elements.
TEST(IndexingTest, DynamicSliceClampsItsStart) {
  EXPECT_THAT(Eval(kDynamicSlice, {Iota({5}), Scalar(1)}), ElementsAre(1, 2));
  EXPECT_THAT(Eval(kDynamicSlice, {Iota({5}), Scalar(-3)}), ElementsAre(0, 1));
  EXPECT_THAT(Eval(kDynamicSlice, {Iota({5}), Scalar(4)}), ElementsAre(3, 4));
  EXPECT_THAT(Eval(kDynamicSlice, {Iota({5}), Scalar(100)}), ElementsAre(3, 4));
}

TEST(IndexingTest, DynamicUpdateSliceClampsItsStart) {
  constexpr char kText[] = R"hlo(HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  u = f32[1,2] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT d = f32[2,3] dynamic-update-slice(x, u, i, j)
})hlo";
  Literal u = Lit(DType::kF32, {1, 2}, {-1, -2});
  // (5, 7) clamps to (1, 1): the last row's last two elements.
  EXPECT_THAT(Eval(kText, {Iota({2, 3}), u, Scalar(5), Scalar(7)}),
              ElementsAre(0, 1, 2, 3, -1, -2));
  // (-1, -1) clamps to (0, 0).
  EXPECT_THAT(Eval(kText, {Iota({2, 3}), u, Scalar(-1), Scalar(-1)}),
              ElementsAre(-1, -2, 2, 3, 4, 5));
}

// Embedding rows; out-of-range ids clamp to the first or last row.
TEST(IndexingTest, GatherClampsEachStartIndex) {
  constexpr char kText[] = R"hlo(HloModule m
ENTRY e {
  t = f32[3,2] parameter(0)
  ids = s32[4] parameter(1)
  ROOT g = f32[4,2] gather(t, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
})hlo";
  EXPECT_THAT(Eval(kText, {Iota({3, 2}), Lit(DType::kS32, {4}, {2, 0, -5, 9})}),
              ElementsAre(4, 5, 0, 1, 0, 1, 4, 5));
}

// Two-component index vectors in dimension 0 (not the last), windows of
// 2x2 clamped into a 3x3 operand.
TEST(IndexingTest, GatherWithIndexVectorFirst) {
  constexpr char kText[] = R"hlo(HloModule m
ENTRY e {
  x = f32[3,3] parameter(0)
  idx = s32[2,2] parameter(1)
  ROOT g = f32[2,2,2] gather(x, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={1,0}, index_vector_dim=0, slice_sizes={2,2}
})hlo";
  // Column k of idx is one index vector (start of dim 1, start of dim 0):
  // k=0: (1, 0) -> rows 0-1, cols 1-2; k=1: (5, 1) -> cols clamp to 1,
  // rows 1-2.
  EXPECT_THAT(
      Eval(kText, {Iota({3, 3}), Lit(DType::kS32, {2, 2}, {1, 5, 0, 1})}),
      ElementsAre(1, 2, 4, 5, 4, 5, 7, 8));
}

TEST(IndexingTest, GatherWithBatchingDimensions) {
  constexpr char kText[] = R"hlo(HloModule m
ENTRY e {
  x = f32[2,3,2] parameter(0)
  idx = s32[2,1] parameter(1)
  ROOT g = f32[2,2] gather(x, idx), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1,2}
})hlo";
  // Batch 0 takes row 2 of x[0] (4, 5); batch 1 takes row 0 of x[1] (6, 7).
  EXPECT_THAT(Eval(kText, {Iota({2, 3, 2}), Lit(DType::kS32, {2, 1}, {2, 0})}),
              ElementsAre(4, 5, 6, 7));
}

constexpr char kScatterAdd[] = R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[6] parameter(0)
  idx = s32[3,1] parameter(1)
  u = f32[3,2] parameter(2)
  ROOT s = f32[6] scatter(x, idx, u), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})hlo";

// "A window that does not fit is dropped whole, nothing is clamped":
// start 5 with a window of 2 would cover 5..6 of a 6-element operand, so
// neither element changes; start -1 likewise.
TEST(IndexingTest, ScatterDropsWindowsThatDoNotFit) {
  Literal u = Lit(DType::kF32, {3, 2}, {10, 20, 100, 200, 1000, 2000});
  EXPECT_THAT(Eval(kScatterAdd, {Lit(DType::kF32, {6}, {0, 0, 0, 0, 0, 0}),
                                Lit(DType::kS32, {3, 1}, {5, -1, 4}), u}),
              ElementsAre(0, 0, 0, 0, 1000, 2000));
  // Overlapping windows at 1 and 2 add up.
  EXPECT_THAT(Eval(kScatterAdd, {Lit(DType::kF32, {6}, {0, 0, 0, 0, 0, 0}),
                                Lit(DType::kS32, {3, 1}, {1, 2, 9}), u}),
              ElementsAre(0, 10, 120, 200, 0, 0));
}

// Repeated indices combine in update order: with a to_apply that returns
// the update, the last update to an element wins.
TEST(IndexingTest, ScatterAppliesUpdatesInOrder) {
  constexpr char kText[] = R"hlo(HloModule m
take {
  old = f32[] parameter(0)
  ROOT new = f32[] parameter(1)
}
ENTRY e {
  x = f32[4] parameter(0)
  idx = s32[3] parameter(1)
  u = f32[3] parameter(2)
  ROOT s = f32[4] scatter(x, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=take
})hlo";
  EXPECT_THAT(Eval(kText, {Lit(DType::kF32, {4}, {-1, -1, -1, -1}),
                          Lit(DType::kS32, {3}, {2, 0, 2}),
                          Lit(DType::kF32, {3}, {7, 8, 9})}),
              ElementsAre(8, -1, 9, -1));
}

// A non-commutative combiner (subtract) applied in order: x - u0 - u1.
TEST(IndexingTest, ScatterWithAGeneralCombinerAndTwoOperands) {
  constexpr char kText[] = R"hlo(HloModule m
both {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  s = f32[] subtract(a, c)
  m = s32[] maximum(b, d)
  ROOT t = (f32[], s32[]) tuple(s, m)
}
ENTRY e {
  x = f32[2] parameter(0)
  y = s32[2] parameter(1)
  idx = s32[2] parameter(2)
  u = f32[2] parameter(3)
  v = s32[2] parameter(4)
  ROOT s = (f32[2], s32[2]) scatter(x, y, idx, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=both
})hlo";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(kText, "t.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<Literal> r = Evaluate(
      **m, {Lit(DType::kF32, {2}, {10, 20}), Lit(DType::kS32, {2}, {0, 5}),
            Lit(DType::kS32, {2}, {1, 1}), Lit(DType::kF32, {2}, {1, 2}),
            Lit(DType::kS32, {2}, {3, 9})});
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->elements().size(), 2u);
  EXPECT_EQ(r->elements()[0].GetDouble(0), 10);
  EXPECT_EQ(r->elements()[0].GetDouble(1), 17);
  EXPECT_EQ(r->elements()[1].GetDouble(0), 0);
  EXPECT_EQ(r->elements()[1].GetDouble(1), 9);
}

TEST(IndexingTest, ShapeErrorsNameTheProblem) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  t = f32[3,2] parameter(0)
  ids = s32[4] parameter(1)
  ROOT g = f32[4,2] gather(t, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,2}
})hlo",
                                                          "t.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("slice_sizes[0] must be 0 or 1")));
  m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[5] parameter(0)
  i = f32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2}
})hlo",
                  "t.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("start indices must be integers")));
  m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[5] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i)
})hlo",
                  "t.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("needs the attribute 'dynamic_slice_sizes'")));
}

}  // namespace
}  // namespace xtune
