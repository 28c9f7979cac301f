#include "cache/store_chain.h"

#include <chrono>

#include "cache/cache_test_util.h"
#include "cache/fake_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

const AutotuneKey kKey{"d", "h", 1};

struct Chain {
  std::shared_ptr<InMemoryAutotuneCache> memory =
      std::make_shared<InMemoryAutotuneCache>();
  std::shared_ptr<FakeStore> remote = std::make_shared<FakeStore>("remote");
  StoreChain chain;
  std::vector<std::string> warnings;

  explicit Chain(TierPolicy remote_policy) {
    chain.AddTier("memory", memory, TierPolicy());
    chain.AddTier("remote", remote, remote_policy);
    chain.set_warning_callback(
        [this](const std::string& w) { warnings.push_back(w); });
  }
};

TierPolicy BestEffortPromoting() {
  TierPolicy p;
  p.writes_required = false;
  p.promote = true;
  return p;
}

TEST(StoreChainTest, FirstTierWinsAndLowerHitsArePromoted) {
  Chain c(BestEffortPromoting());
  ASSERT_THAT(c.remote->Insert(kKey, CpuGemmResult(64)), IsOk());
  auto hit = c.chain.Lookup(kKey);
  ASSERT_THAT(hit, IsOk());
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->tier, "remote");
  EXPECT_EQ((*c.chain.Lookup(kKey))->tier, "memory");  // promoted
  EXPECT_EQ(c.remote->lookups(), 1);
  EXPECT_TRUE(c.warnings.empty());
}

TEST(StoreChainTest, WithoutPromotionLowerHitsStayBelow) {
  TierPolicy p = BestEffortPromoting();
  p.promote = false;
  Chain c(p);
  ASSERT_THAT(c.remote->Insert(kKey, CpuGemmResult(64)), IsOk());
  EXPECT_EQ((*c.chain.Lookup(kKey))->tier, "remote");
  EXPECT_EQ((*c.chain.Lookup(kKey))->tier, "remote");
  EXPECT_EQ(c.memory->size(), 0);
}

TEST(StoreChainTest, ATierErrorIsOneWarningAndAMiss) {
  Chain c(BestEffortPromoting());
  c.remote->FailNextLookups(
      {absl::UnavailableError("connection refused"),
       absl::DataLossError("entry damaged")});
  auto miss = c.chain.Lookup(kKey);
  ASSERT_THAT(miss, IsOk());
  EXPECT_FALSE(miss->has_value());
  EXPECT_FALSE(c.chain.Lookup(kKey)->has_value());
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_THAT(c.warnings[0], HasSubstr("tier 'remote' failed a lookup "
                                       "(connection refused); treated as a "
                                       "miss"));
  EXPECT_THAT(c.warnings[1], HasSubstr("entry damaged"));
  EXPECT_THAT(c.chain.lookup_errors(), ElementsAre(Pair("remote", 2)));
  EXPECT_EQ(c.chain.FailureSummary(), "remote: 2 lookup errors");
  // Once the tier answers again, its entries are found.
  ASSERT_THAT(c.remote->Insert(kKey, CpuGemmResult(8)), IsOk());
  EXPECT_TRUE(c.chain.Lookup(kKey)->has_value());
}

TEST(StoreChainTest, BestEffortWriteFailureIsCountedNotFatal) {
  Chain c(BestEffortPromoting());
  c.remote->FailAllInserts(absl::UnavailableError("read-only replica"));
  EXPECT_THAT(c.chain.Insert(kKey, CpuGemmResult(8)), IsOk());
  EXPECT_EQ(c.memory->size(), 1);
  EXPECT_THAT(c.chain.write_failures(), ElementsAre(Pair("remote", 1)));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_THAT(c.warnings[0], HasSubstr("could not store a result"));
  EXPECT_EQ(c.chain.FailureSummary(), "remote: 1 write failed");
}

TEST(StoreChainTest, RequiredWriteFailureFailsTheInsertAfterTheOthers) {
  TierPolicy required;  // writes required by default
  Chain c(required);
  c.remote->FailAllInserts(absl::PermissionDeniedError("no"));
  EXPECT_THAT(c.chain.Insert(kKey, CpuGemmResult(8)),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("tier 'remote': no")));
  EXPECT_EQ(c.memory->size(), 1);  // the other tiers were still written
}

TEST(StoreChainTest, ReadOnlyTierIsNeverWritten) {
  TierPolicy ro = BestEffortPromoting();
  ro.writable = false;
  Chain c(ro);
  ASSERT_THAT(c.chain.Insert(kKey, CpuGemmResult(8)), IsOk());
  EXPECT_EQ(c.remote->size(), 0);
  EXPECT_EQ(c.memory->size(), 1);
}

TEST(StoreChainTest, AStallingTierTimesOutIntoAMiss) {
  TierPolicy p = BestEffortPromoting();
  p.timeout = absl::Milliseconds(100);
  Chain c(p);
  ASSERT_THAT(c.remote->Insert(kKey, CpuGemmResult(8)), IsOk());
  c.remote->set_latency(absl::Seconds(3));
  auto start = std::chrono::steady_clock::now();
  auto miss = c.chain.Lookup(kKey);
  double waited = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  ASSERT_THAT(miss, IsOk());
  EXPECT_FALSE(miss->has_value());
  EXPECT_LT(waited, 2.0);
  // One warning: the timeout, what it waited, and for how long the tier
  // is left alone.
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_THAT(c.warnings[0], HasSubstr("timed out (no answer within 100ms); not using it "
                                       "for the next 1m"));
  // Down for a while: the next calls do not wait for it again.
  start = std::chrono::steady_clock::now();
  EXPECT_FALSE(c.chain.Lookup(kKey)->has_value());
  EXPECT_THAT(c.chain.Insert({"d", "g", 1}, CpuGemmResult(8)), IsOk());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count(),
            0.5);
  EXPECT_EQ(c.memory->size(), 1);
  EXPECT_THAT(c.chain.write_failures(), ElementsAre(Pair("remote", 1)));
}

}  // namespace
}  // namespace xtune
