// Collectives as one replica runs them (ir/collectives.h), with values
// worked out from XLA's semantics: a group of one participant gathers,
// scatters and reduces its own data; collective-permute gives zeros to a
// target no one sends to.
#include "ir/collectives.h"

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::vector<double> Eval(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  EXPECT_THAT(m, IsOk());
  if (!m.ok()) return {};
  Literal x(Shape(DType::kF32, {3}));
  for (int i = 0; i < 3; ++i) x.SetDouble(i, i + 1);
  absl::StatusOr<Literal> r = Evaluate(**m, {x});
  EXPECT_THAT(r, IsOk());
  std::vector<double> v;
  if (r.ok()) {
    for (int64_t i = 0; i < r->element_count(); ++i) v.push_back(r->GetDouble(i));
  }
  return v;
}

std::string Module1(const std::string& root) {
  return R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3] parameter(0)
  )hlo" + root + "\n}";
}

TEST(CollectivesTest, GroupsOfOneReturnTheOperand) {
  EXPECT_THAT(Eval(Module1("ROOT r = f32[3] all-gather(x), channel_id=1, "
                           "replica_groups={{0}}, dimensions={0}")),
              ElementsAre(1, 2, 3));
  EXPECT_THAT(Eval(Module1("ROOT r = f32[3] reduce-scatter(x), "
                           "replica_groups={}, dimensions={0}, to_apply=add")),
              ElementsAre(1, 2, 3));
  EXPECT_THAT(Eval(Module1("ROOT r = f32[3] all-to-all(x), dimensions={0}")),
              ElementsAre(1, 2, 3));
  EXPECT_THAT(Eval(Module1("ROOT r = f32[3] all-reduce(x), to_apply=add")),
              ElementsAre(1, 2, 3));
}

TEST(CollectivesTest, PermuteZeroesATargetWithoutASource) {
  EXPECT_THAT(Eval(Module1("ROOT r = f32[3] collective-permute(x), "
                           "source_target_pairs={{1,0},{0, 0}}")),
              ElementsAre(1, 2, 3));
  // Replica 0 sends to 1 and receives from 1, which does not exist here.
  EXPECT_THAT(Eval(Module1("ROOT r = f32[3] collective-permute(x), "
                           "source_target_pairs={{0,1},{1,0}}")),
              ElementsAre(0, 0, 0));
}

TEST(CollectivesTest, IdsAreZero) {
  EXPECT_THAT(Eval(Module1(R"hlo(r = u32[] replica-id()
  p = u32[] partition-id()
  s = u32[] add(r, p)
  f = f32[] convert(s)
  b = f32[3] broadcast(f), dimensions={}
  ROOT o = f32[3] add(x, b))hlo")),
              ElementsAre(1, 2, 3));
}

TEST(CollectivesTest, AShapeOfSeveralParticipantsIsRefusedWithTheReason) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(
      Module1("ROOT r = f32[6] all-gather(x), replica_groups={{0,1}}, "
              "dimensions={0}"),
      "t.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kUnimplemented,
                          HasSubstr("exchanges data between several devices")));
  EXPECT_THAT(m.status().message(), HasSubstr("t.hlo:"));
}

TEST(CollectivesTest, TheInPlaceCollectivePermuteIsRefusedByName) {
  // From XLA's hlo_parser_test: the four-operand form with slice_sizes.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  input = f32[16]{0} parameter(0)
  output = f32[16]{0} parameter(1)
  c0 = s32[] constant(0)
  t = (s32[]) tuple(c0)
  cps = (f32[16]{0}, f32[16]{0}, u32[], u32[]) collective-permute-start(input, output, t, t), source_target_pairs={{0,1},{1,0}}, slice_sizes={{4}}
  ROOT d = f32[16]{0} collective-permute-done(cps)
})hlo", "t.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kUnimplemented,
                          HasSubstr("in-place form of collective-permute")));
  EXPECT_THAT(m.status().message(), HasSubstr("t.hlo:7:"));
}

TEST(CollectivesTest, WarnsForAModuleBuiltForSeveralReplicas) {
  auto one = ParseModule("HloModule m, replica_count=1\nENTRY e {\n"
                         "  ROOT x = f32[3] parameter(0)\n}", "t.hlo");
  ASSERT_THAT(one, IsOk());
  EXPECT_THAT(ReplicaWarning(**one), IsEmpty());
  auto many = ParseModule(
      "HloModule m, replica_count=2, num_partitions=4\nENTRY e {\n"
      "  ROOT x = f32[3] parameter(0)\n}", "t.hlo");
  ASSERT_THAT(many, IsOk());
  EXPECT_THAT(ReplicaWarning(**many), HasSubstr("replica_count=2"));
  EXPECT_THAT(ReplicaWarning(**many), HasSubstr("num_partitions=4"));
}

TEST(CollectivesTest, BroadcastOfAScalarMayOmitDimensions) {
  EXPECT_THAT(Eval(Module1(R"hlo(c = f32[] constant(2)
  b = f32[3] broadcast(c)
  ROOT o = f32[3] multiply(x, b))hlo")),
              ElementsAre(2, 4, 6));
}

}  // namespace
}  // namespace xtune
