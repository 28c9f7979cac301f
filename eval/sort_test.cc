// sort and topk against values worked out by hand from XLA's semantics:
// equal keys keep their order (the stable order), topk puts NaN above +inf
// and -NaN below -inf and breaks ties to the lower index, and a comparator
// that is not a strict weak order still gives a permutation.
#include "eval/sort.h"

#include <cmath>

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using ::xtune::testing::IsOk;

Literal F32(const std::vector<double>& v) {
  Literal lit(Shape(DType::kF32, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) lit.SetDouble(i, v[i]);
  return lit;
}

std::vector<std::vector<double>> Eval(const std::string& text,
                                      std::vector<Literal> args) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  EXPECT_THAT(m, IsOk());
  if (!m.ok()) return {};
  absl::StatusOr<Literal> r = Evaluate(**m, args);
  EXPECT_THAT(r, IsOk());
  std::vector<std::vector<double>> out;
  if (!r.ok()) return out;
  auto flat = [](const Literal& l) {
    std::vector<double> v;
    for (int64_t i = 0; i < l.element_count(); ++i) v.push_back(l.GetDouble(i));
    return v;
  };
  if (r->IsTuple()) {
    for (const Literal& e : r->elements()) out.push_back(flat(e));
  } else {
    out.push_back(flat(*r));
  }
  return out;
}

// Sorts (key, position) by the key's integer part only: 1.5 and 1.2 are
// equal keys and keep their order.
constexpr char kStable[] = R"hlo(HloModule m
by_floor {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  fa = f32[] floor(a)
  fb = f32[] floor(b)
  ROOT lt = pred[] compare(fa, fb), direction=LT
}
ENTRY e {
  x = f32[6] parameter(0)
  i = s32[6] iota(), iota_dimension=0
  ROOT s = (f32[6], s32[6]) sort(x, i), dimensions={0}, to_apply=by_floor
})hlo";

TEST(SortTest, EqualKeysKeepTheirOrder) {
  auto r = Eval(kStable, {F32({1.5, 0.7, 1.2, 0.1, 2.0, 1.9})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_THAT(r[0], ElementsAre(0.7f, 0.1f, 1.5, 1.2f, 1.9f, 2.0));
  EXPECT_THAT(r[1], ElementsAre(1, 3, 0, 2, 5, 4));
}

constexpr char kTopK[] = R"hlo(HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  ROOT t = (f32[3], s32[3]) topk(x), k=3, largest=true
})hlo";

TEST(SortTest, TopKOrdersNaNAboveInfinityAndTiesByIndex) {
  const double nan = std::nan("");
  auto r = Eval(kTopK, {F32({1, -nan, INFINITY, nan, 1, 5})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(std::isnan(r[0][0]));
  EXPECT_EQ(r[0][1], INFINITY);
  EXPECT_EQ(r[0][2], 5);
  EXPECT_THAT(r[1], ElementsAre(3, 2, 5));
  // Smallest: -NaN first, then the two 1s in index order.
  auto low = Eval(R"hlo(HloModule m
ENTRY e {
  x = f32[6] parameter(0)
  ROOT t = (f32[3], s32[3]) topk(x), k=3, largest=false
})hlo",
                  {F32({1, -nan, INFINITY, nan, 1, 5})});
  ASSERT_EQ(low.size(), 2u);
  EXPECT_THAT(low[1], ElementsAre(1, 0, 4));
}

TEST(SortTest, AComparatorThatIsNoOrderStillGivesAPermutation) {
  // "Always before": not a strict weak order. XLA leaves the result
  // unspecified; it must still be the operand's elements, each once.
  auto r = Eval(R"hlo(HloModule m
always {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT t = pred[] constant(true)
}
ENTRY e {
  x = f32[5] parameter(0)
  ROOT s = f32[5] sort(x), dimensions={0}, to_apply=always
})hlo",
                {F32({4, 3, 2, 1, 0})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_THAT(r[0], UnorderedElementsAre(0, 1, 2, 3, 4));
}

TEST(SortTest, StableSortOrderMergesRuns) {
  std::vector<int> keys = {3, 1, 2, 1, 3, 0, 2};
  auto order = StableSortOrder(
      keys.size(), [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
        return keys[a] < keys[b];
      });
  ASSERT_THAT(order, IsOk());
  EXPECT_THAT(*order, ElementsAre(5, 1, 3, 2, 6, 0, 4));
}

}  // namespace
}  // namespace xtune
