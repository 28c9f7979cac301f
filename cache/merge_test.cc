#include "cache/merge.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "cache/cache_test_util.h"
#include "cache/results_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

void Add(xla::AutotuneResults* rs, const std::string& hlo, int64_t nanos,
         int64_t tuned_at = 0, int64_t unroll = 1) {
  rs->set_version(3);
  xla::AutotuneResult r = CpuLoopResult(unroll, 64, nanos);
  if (tuned_at)
    r.mutable_xtune_provenance()->set_tuned_at_unix_seconds(tuned_at);
  AddEntry(rs, "d", hlo, std::move(r), 1);
}

TEST(MergeTest, UnionSortedAndIdenticalCounted) {
  xla::AutotuneResults a, b;
  Add(&a, "z", 10);
  Add(&a, "m", 10);
  Add(&b, "m", 10);
  Add(&b, "b", 10);
  MergeStats stats;
  ASSERT_THAT(MergeResults(&a, b, "b", ConflictPolicy::kError, 1, &stats),
              IsOk());
  ASSERT_EQ(a.results_size(), 3);
  EXPECT_EQ(a.results(0).hlo(), "b");
  EXPECT_EQ(a.results(2).hlo(), "z");
  EXPECT_EQ(stats.added, 1);
  EXPECT_EQ(stats.identical, 1);
}

TEST(MergeTest, Policies) {
  xla::AutotuneResults base, in;
  Add(&base, "k", 500, /*tuned_at=*/200, 1);
  Add(&in, "k", 900, /*tuned_at=*/300, 2);
  xla::AutotuneResults x = base;
  EXPECT_THAT(MergeResults(&x, in, "in.pb", ConflictPolicy::kError, 1, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("in.pb"),
                             HasSubstr("a different config for fusion"),
                             HasSubstr("unroll: 2"))));
  EXPECT_EQ(x.results(0).result().cpu_streaming().unroll(), 1);  // unchanged
  x = base;
  ASSERT_THAT(MergeResults(&x, in, "in", ConflictPolicy::kFaster, 1, nullptr),
              IsOk());
  EXPECT_EQ(x.results(0).result().cpu_streaming().unroll(), 1);
  x = base;
  ASSERT_THAT(MergeResults(&x, in, "in", ConflictPolicy::kNewer, 1, nullptr),
              IsOk());
  EXPECT_EQ(x.results(0).result().cpu_streaming().unroll(), 2);
  EXPECT_THAT(ParseConflictPolicy("newest"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// Two dumps that tuned one fusion to the same config with different times
// (two test shards) merge under every policy: the faster time is kept.
TEST(MergeTest, SameConfigWithAnotherTimeIsNotAConflict) {
  for (ConflictPolicy policy : {ConflictPolicy::kError, ConflictPolicy::kFaster,
                                ConflictPolicy::kNewer}) {
    xla::AutotuneResults base, in;
    Add(&base, "k", 900, /*tuned_at=*/200, 1);
    Add(&in, "k", 500, /*tuned_at=*/100, 1);
    MergeStats stats;
    ASSERT_THAT(MergeResults(&base, in, "in", policy, 1, &stats), IsOk());
    ASSERT_EQ(base.results_size(), 1);
    EXPECT_EQ(base.results(0).result().run_time().nanos(), 500);
    EXPECT_EQ(stats.same_config, 1);
  }
}

TEST(MergeTest, VersionZeroIsTheCurrentVersion) {
  xla::AutotuneResults a, b;
  Add(&a, "k", 10);
  Add(&b, "k", 10);
  b.mutable_results(0)->set_version(0);
  MergeStats stats;
  ASSERT_THAT(MergeResults(&a, b, "b", ConflictPolicy::kError, 1, &stats),
              IsOk());
  EXPECT_EQ(a.results_size(), 1);
  EXPECT_EQ(stats.identical, 1);
}

TEST(MergeTest, CorruptTargetIsLeftAlone) {
  std::string path = ::testing::TempDir() + "/merge_corrupt_" +
                     std::to_string(getpid()) + ".pb";
  ASSERT_THAT(WriteFileAtomically(path, "\x0a\xff garbage"), IsOk());
  xla::AutotuneResults mine;
  Add(&mine, "k", 1);
  EXPECT_THAT(
      MergeIntoFile(path, mine, 1, nullptr),
      StatusIs(absl::StatusCode::kDataLoss, HasSubstr("left as it is")));
  EXPECT_THAT(ReadFile(path), IsOkAndHolds(std::string("\x0a\xff garbage")));
}

// Eight processes merge their dumps into one file at once: every entry
// ends up in it and the file always parses.
TEST(MergeTest, ConcurrentMergeDumpsLoseNothing) {
  for (const char* ext : {".textproto", ".pb"}) {
    std::string path =
        ::testing::TempDir() + "/merge_conc_" + std::to_string(getpid()) + ext;
    std::filesystem::remove(path);
    constexpr int kProcs = 8, kRounds = 5;
    std::vector<pid_t> pids;
    for (int p = 0; p < kProcs; ++p) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        for (int r = 0; r < kRounds; ++r) {
          xla::AutotuneResults mine;
          Add(&mine, "shared", 7);
          Add(&mine, "p" + std::to_string(p) + "r" + std::to_string(r),
              100 + p);
          if (!MergeIntoFile(path, mine, 1, nullptr).ok()) _exit(1);
          // A reader between writers sees a whole file.
          if (!ReadAutotuneResults(path).ok()) _exit(2);
        }
        _exit(0);
      }
      pids.push_back(pid);
    }
    for (pid_t pid : pids) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ext;
    }
    absl::StatusOr<xla::AutotuneResults> all = ReadAutotuneResults(path);
    ASSERT_THAT(all, IsOk());
    EXPECT_EQ(all->results_size(), 1 + kProcs * kRounds) << ext;
  }
}

}  // namespace
}  // namespace xtune
