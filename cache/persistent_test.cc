#include "cache/persistent.h"

#include <unistd.h>

#include <filesystem>

#include "cache/cache_test_util.h"
#include "cache/results_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"

namespace xtune {
namespace {

using ::xtune::testing::IsOk;

class PersistentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = xtune::testing::TestTempDir("persistent_test");
    std::filesystem::create_directories(dir_ + "/sub");
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);
  }
  void TearDown() override { std::filesystem::current_path(old_cwd_); }
  std::string dir_;
  std::filesystem::path old_cwd_;
};

// "a.pb" and "./a.pb" are one file: one session, not two whose dumps
// overwrite each other.
TEST_F(PersistentTest, SessionKeysOfOneFileAreEqual) {
  PersistentCacheOptions a, b, c, d;
  a.dump_to = "a.pb";
  b.dump_to = "./a.pb";
  c.dump_to = dir_ + "/sub/../a.pb";
  d.dump_to = "a.pb";
  d.dump_merge = true;
  absl::StatusOr<std::string> ka = SessionKey(a), kb = SessionKey(b),
                              kc = SessionKey(c), kd = SessionKey(d);
  ASSERT_THAT(ka, IsOk());
  EXPECT_EQ(*ka, *kb);
  EXPECT_EQ(*ka, *kc);
  EXPECT_NE(*ka, *kd);  // another option: another session
  PersistentCacheOptions e = a;
  e.per_fusion_dir = "dir";
  EXPECT_NE(*ka, *SessionKey(e));
  e.per_fusion_mode = DirectoryCacheMode::kRead;
  EXPECT_NE(*SessionKey(e), [&] {
    PersistentCacheOptions f = a;
    f.per_fusion_dir = "./dir";
    return *SessionKey(f);
  }());
}

// A dump that replaces a file holding entries this session lacks says how
// many it dropped; dumping its own file again drops nothing.
TEST_F(PersistentTest, DumpReportsDroppedEntries) {
  xla::AutotuneResults other;
  other.set_version(3);
  AddEntry(&other, "dev", "someone else's fusion", CpuLoopResult(1, 64, 5), 1);
  ASSERT_THAT(WriteAutotuneResults("c.textproto", other), IsOk());
  PersistentCacheOptions o;
  o.dump_to = "c.textproto";
  absl::StatusOr<std::unique_ptr<AutotuneCacheSession>> s =
      AutotuneCacheSession::Open(o, 1);
  ASSERT_THAT(s, IsOk());
  ASSERT_THAT((*s)->memory().Insert({"dev", "mine", 1}, CpuLoopResult(2, 64, 7)),
              IsOk());
  absl::StatusOr<AutotuneCacheSession::DumpReport> r = (*s)->Dump();
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->written, 1);
  EXPECT_EQ(r->dropped, 1);
  std::vector<std::string> w = (*s)->Warnings("dev", *r);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0], ::testing::HasSubstr("--xtune_dump_autotune_results_merge"));
  r = (*s)->Dump();
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->dropped, 0);
}

}  // namespace
}  // namespace xtune
