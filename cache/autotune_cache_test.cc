#include "cache/autotune_cache.h"

#include "cache/cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

xla::AutotuneResult Loop(int64_t unroll) {
  return CpuLoopResult(unroll, 1024, 5000);
}

TEST(AutotuneCacheTest, LookupInsertAndKeyText) {
  InMemoryAutotuneCache cache;
  AutotuneKey a{"CPU: x", "{\n  b\n}", 1};
  EXPECT_FALSE(cache.Lookup(a)->has_value());
  ASSERT_THAT(cache.Insert(a, Loop(2)), IsOk());
  std::optional<CacheHit> hit = *cache.Lookup(a);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->tier, "memory");
  EXPECT_EQ(hit->result->cpu_streaming().unroll(), 2);
  // Another version is another key.
  EXPECT_FALSE(cache.Lookup({"CPU: x", "{\n  b\n}", 2})->has_value());
  EXPECT_EQ(a.ToString(), "<key model='CPU: x', hlo='{\n  b\n}', version=1>");
}

TEST(AutotuneCacheTest, KeyTextReadsBack) {
  // The HLO may hold the separators' quotes and commas.
  AutotuneKey a{"NVIDIA H200, DNN version: 9.1", "{\n  s = u8[3] constant({39, 44})\n  x = f32[] custom-call(), custom_call_target=\"', version=7\"\n}", 4};
  std::optional<AutotuneKey> b = AutotuneKey::FromString(a.ToString());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, a);
  EXPECT_FALSE(AutotuneKey::FromString("gemm_fusion").has_value());
  EXPECT_FALSE(AutotuneKey::FromString("<key model='x', hlo='y', version=z>").has_value());
  EXPECT_FALSE(AutotuneKey::FromString("<key model='x', version=1>").has_value());
}

TEST(AutotuneCacheTest, DumpIsSortedByDeviceThenHlo) {
  InMemoryAutotuneCache cache;
  ASSERT_THAT(cache.Insert({"B", "a", 1}, Loop(1)), IsOk());
  ASSERT_THAT(cache.Insert({"A", "z", 1}, Loop(2)), IsOk());
  ASSERT_THAT(cache.Insert({"A", "b", 1}, Loop(3)), IsOk());
  xla::AutotuneResults d = cache.Dump();
  EXPECT_EQ(d.version(), 3);
  ASSERT_EQ(d.results_size(), 3);
  EXPECT_EQ(d.results(0).hlo(), "b");
  EXPECT_EQ(d.results(1).hlo(), "z");
  EXPECT_EQ(d.results(2).device(), "B");
  EXPECT_EQ(d.results(2).version(), 1);
}

TEST(AutotuneCacheTest, LoadReadsVersionZeroAsCurrentAndTracksUse) {
  xla::AutotuneResults rs;
  rs.set_version(3);
  AddEntry(&rs, "CPU: here", "h1", Loop(1));
  AddEntry(&rs, "CPU: here", "h2", Loop(2), 7);
  AddEntry(&rs, "CUDA: 9.0", "h1", Loop(3));
  InMemoryAutotuneCache cache;
  ASSERT_THAT(cache.Load(rs, "f.textproto", 7), IsOkAndHolds(3));
  EXPECT_TRUE(cache.Lookup({"CPU: here", "h1", 7})->has_value());
  EXPECT_EQ(cache.LoadedForOtherDevices("CPU: here"), 1);
  std::vector<AutotuneKey> unused = cache.UnusedLoaded();
  ASSERT_EQ(unused.size(), 2u);
  EXPECT_EQ(cache.UnusedLoadedCount(), 2);
  EXPECT_EQ(unused[0].hlo, "h2");
  EXPECT_EQ(unused[1].device, "CUDA: 9.0");
  // A dump writes entries as they were loaded: no version stays none (an
  // XLA entry is not stamped with xtune's codegen version); new ones carry
  // their key's.
  ASSERT_THAT(cache.Insert({"CPU: here", "h3", 7}, Loop(4)), IsOk());
  xla::AutotuneResults dumped = cache.Dump();
  ASSERT_EQ(dumped.results_size(), 4);
  for (const auto& e : dumped.results()) {
    EXPECT_EQ(e.version(), e.hlo() == "h1" ? 0 : 7) << e.ShortDebugString();
  }
}

TEST(AutotuneCacheTest, DuplicateKeySameResultIsAccepted) {
  xla::AutotuneResults rs;
  rs.set_version(3);
  AddEntry(&rs, "d", "h", Loop(1));
  AddEntry(&rs, "d", "h", Loop(1), 1);  // version 0 == current == 1
  InMemoryAutotuneCache cache;
  EXPECT_THAT(cache.Load(rs, "f", 1), IsOkAndHolds(1));
  // Loading the same file again adds nothing and is fine.
  EXPECT_THAT(cache.Load(rs, "f", 1), IsOkAndHolds(0));
}

TEST(AutotuneCacheTest, DuplicateKeyDifferentResultIsAnErrorAndLoadsNothing) {
  xla::AutotuneResults rs;
  rs.set_version(3);
  AddEntry(&rs, "d", "other", Loop(9));
  AddEntry(&rs, "d", "h", Loop(1));
  AddEntry(&rs, "d", "h", Loop(2));
  InMemoryAutotuneCache cache;
  EXPECT_THAT(cache.Load(rs, "cache.pb", 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("cache.pb"), HasSubstr("entry 3"),
                             HasSubstr("hlo='h'"), HasSubstr("different"))));
  EXPECT_EQ(cache.size(), 0);
}

TEST(AutotuneCacheTest, ConflictWithAnEarlierLoadIsAnError) {
  InMemoryAutotuneCache cache;
  xla::AutotuneResults a, b;
  a.set_version(3);
  b.set_version(3);
  AddEntry(&a, "d", "h", Loop(1));
  AddEntry(&b, "d", "h", Loop(2));
  ASSERT_THAT(cache.Load(a, "a", 1), IsOk());
  EXPECT_THAT(cache.Load(b, "b", 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ((*cache.Lookup({"d", "h", 1}))->result->cpu_streaming().unroll(), 1);
}

TEST(AutotuneCacheTest, InvalidConfigIsAnErrorNamingTheKey) {
  xla::AutotuneResults rs;
  rs.set_version(3);
  xla::AutotuneResult bad;
  auto* t = bad.mutable_triton();
  t->set_block_m(16);
  t->set_block_n(16);
  t->set_block_k(0);
  t->set_split_k(1);
  t->set_num_stages(1);
  t->set_num_warps(4);
  t->set_num_ctas(1);
  AddEntry(&rs, "d", "h", Loop(1));
  AddEntry(&rs, "d", "g", bad);
  InMemoryAutotuneCache cache;
  EXPECT_THAT(cache.Load(rs, "x.textproto", 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("x.textproto"), HasSubstr("block_k"),
                             HasSubstr("hlo='g'"))));
  EXPECT_EQ(cache.size(), 0);
}

}  // namespace
}  // namespace xtune
