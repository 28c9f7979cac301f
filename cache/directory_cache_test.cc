#include "cache/directory_cache.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "cache/cache_test_util.h"
#include "cache/store_chain.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

std::string FreshDir(const std::string& name) {
  // Made empty; some tests expect the cache to create it.
  std::string dir = xtune::testing::TestTempDir("dircache_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(DirectoryCacheTest, ModeNames) {
  EXPECT_THAT(ParseDirectoryCacheMode("update"),
              IsOkAndHolds(DirectoryCacheMode::kUpdate));
  EXPECT_THAT(ParseDirectoryCacheMode("AUTOTUNE_CACHE_MODE_READ"),
              IsOkAndHolds(DirectoryCacheMode::kRead));
  EXPECT_THAT(
      ParseDirectoryCacheMode("write"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("update")));
}

TEST(DirectoryCacheTest, FileNameIsBase64UrlOfSha256OfKeyText) {
  AutotuneKey key{"CPU: x", "{\n  y\n}", 1};
  std::string name = DirectoryCacheFileName(key);
  EXPECT_EQ(name.size(), 43u + 10u);  // 32 bytes -> 43 base64 chars
  std::array<uint8_t, 32> d = Sha256(key.ToString());
  EXPECT_EQ(name, Base64UrlUnpadded(absl::string_view(
                      reinterpret_cast<const char*>(d.data()), 32)) +
                      ".textproto");
  EXPECT_EQ(name.find_first_of("+/="), std::string::npos);
}

TEST(DirectoryCacheTest, UpdateWritesOneTextFilePerKeyAndReadsItBack) {
  std::string dir = FreshDir("update");
  ASSERT_OK_AND_ASSIGN(auto cache, DirectoryAutotuneCache::Open(
                                       dir, DirectoryCacheMode::kUpdate));
  AutotuneKey key{"CPU: x", "h", 1};
  EXPECT_FALSE(cache->Lookup(key)->has_value());
  ASSERT_THAT(cache->Insert(key, CpuGemmResult(128)), IsOk());
  ASSERT_OK_AND_ASSIGN(std::string text,
                       ReadFile(dir + "/" + DirectoryCacheFileName(key)));
  EXPECT_THAT(text, HasSubstr("kc: 128"));
  std::optional<CacheHit> hit = *cache->Lookup(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->tier, "directory");
  EXPECT_EQ(hit->result->cpu_gemm().kc(), 128);
  // Nothing is left in tmp/.
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp"));
}

// What the cost model is fit on: the files xtune wrote for one device and
// version; XLA's files (no key lines) and damaged ones are left out, and a
// chain merges its tiers (the upper tier's entry wins).
TEST(DirectoryCacheTest, ListsItsKeyedEntriesOfOneDeviceAndVersion) {
  std::string dir = FreshDir("list");
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<DirectoryAutotuneCache> cache,
                       DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kUpdate));
  ASSERT_THAT(cache->Insert({"CPU: x", "b", 1}, CpuGemmResult(16)), IsOk());
  ASSERT_THAT(cache->Insert({"CPU: x", "a", 1}, CpuGemmResult(8)), IsOk());
  ASSERT_THAT(cache->Insert({"CPU: y", "a", 1}, CpuGemmResult(4)), IsOk());
  ASSERT_THAT(cache->Insert({"CPU: x", "a", 2}, CpuGemmResult(2)), IsOk());
  ASSERT_THAT(WriteFileAtomically(dir + "/xla.textproto", "run_time { nanos: 5 }"), IsOk());
  ASSERT_THAT(WriteFileAtomically(dir + "/bad.textproto", "cpu_gemm { mc:"), IsOk());
  AutotuneCache::Entries listed = cache->ListEntries("CPU: x", 1);
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].first.hlo, "a");
  EXPECT_EQ(listed[0].second->cpu_gemm().kc(), 8);
  EXPECT_EQ(listed[1].first.hlo, "b");
  EXPECT_TRUE(DirectoryAutotuneCache::Open(dir + "/none", DirectoryCacheMode::kRead)
                  .value()
                  ->ListEntries("CPU: x", 1)
                  .empty());

  auto memory = std::make_shared<InMemoryAutotuneCache>();
  ASSERT_THAT(memory->Insert({"CPU: x", "a", 1}, CpuGemmResult(32)), IsOk());
  ASSERT_THAT(memory->Insert({"CPU: x", "c", 1}, CpuGemmResult(64)), IsOk());
  StoreChain chain;
  chain.AddTier("memory", memory, TierPolicy{});
  chain.AddTier("directory", cache, TierPolicy{});
  AutotuneCache::Entries merged = chain.ListEntries("CPU: x", 1);
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].second->cpu_gemm().kc(), 32);  // memory's "a"
  EXPECT_EQ(merged[1].first.hlo, "b");
  EXPECT_EQ(merged[2].first.hlo, "c");
}

TEST(DirectoryCacheTest, ReadModeNeverWrites) {
  std::string dir = FreshDir("read");
  ASSERT_THAT(CreateDirectories(dir), IsOk());
  ASSERT_OK_AND_ASSIGN(
      auto cache, DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kRead));
  ASSERT_THAT(cache->Insert({"d", "h", 1}, CpuGemmResult(1)), IsOk());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(DirectoryCacheTest, CorruptFileIsDataLossNamingIt) {
  std::string dir = FreshDir("corrupt");
  ASSERT_OK_AND_ASSIGN(auto cache, DirectoryAutotuneCache::Open(
                                       dir, DirectoryCacheMode::kUpdate));
  AutotuneKey key{"d", "h", 1};
  std::string path = dir + "/" + DirectoryCacheFileName(key);
  ASSERT_THAT(WriteFileAtomically(path, "cpu_gemm { mc:"), IsOk());
  EXPECT_THAT(cache->Lookup(key),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr(path)));
  // Rewritten once tuned.
  ASSERT_THAT(cache->Insert(key, CpuGemmResult(8)), IsOk());
  EXPECT_TRUE((*cache->Lookup(key)).has_value());
}

TEST(DirectoryCacheTest, ChainPromotesDirectoryHitsIntoMemory) {
  std::string dir = FreshDir("tiered");
  ASSERT_OK_AND_ASSIGN(
      auto d, DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kUpdate));
  AutotuneKey key{"d", "h", 1};
  ASSERT_THAT(d->Insert(key, CpuGemmResult(64)), IsOk());
  auto memory = std::make_shared<InMemoryAutotuneCache>();
  std::shared_ptr<DirectoryAutotuneCache> directory = std::move(d);
  StoreChain chain;
  chain.AddTier("memory", memory, TierPolicy());
  TierPolicy promote;
  promote.promote = true;
  promote.writes_required = false;
  chain.AddTier("directory", directory, promote);
  EXPECT_EQ((*chain.Lookup(key))->tier, "directory");
  EXPECT_EQ((*chain.Lookup(key))->tier, "memory");
  EXPECT_EQ(memory->Dump().results_size(), 1);
  AutotuneKey other{"d", "g", 1};
  ASSERT_THAT(chain.Insert(other, CpuGemmResult(32)), IsOk());
  EXPECT_TRUE(directory->Lookup(other)->has_value());
}

TEST(DirectoryCacheTest, ManyProcessesWritingOneDirectoryLoseNothing) {
  std::string dir = FreshDir("procs");
  constexpr int kProcs = 8, kKeys = 40;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto cache =
          DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kUpdate);
      if (!cache.ok()) _exit(1);
      // Every process writes its own keys and the shared ones.
      for (int k = 0; k < kKeys; ++k) {
        std::string hlo =
            k % 2 == 0 ? "shared" + std::to_string(k)
                       : "p" + std::to_string(p) + "_" + std::to_string(k);
        if (!(*cache)->Insert({"d", hlo, 1}, CpuGemmResult(100 + p)).ok())
          _exit(2);
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ASSERT_OK_AND_ASSIGN(
      auto cache, DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kRead));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files += e.is_regular_file();
  EXPECT_EQ(files, kKeys / 2 + kProcs * kKeys / 2);
  for (int p = 0; p < kProcs; ++p) {
    for (int k = 0; k < kKeys; ++k) {
      std::string hlo = k % 2 == 0
                            ? "shared" + std::to_string(k)
                            : "p" + std::to_string(p) + "_" + std::to_string(k);
      std::optional<CacheHit> hit = *cache->Lookup({"d", hlo, 1});
      ASSERT_TRUE(hit.has_value()) << hlo;
      if (k % 2 == 1) {
        EXPECT_EQ(hit->result->cpu_gemm().kc(), 100 + p);
      }
    }
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp"));
}

}  // namespace
}  // namespace xtune
