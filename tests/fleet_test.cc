// The fleet cache end to end: `xtune` processes sharing a Redis server the
// test starts on a free loopback port (cache/redis_test_server.h): one
// tuning shared by processes with empty local caches, sharded tuning by
// concurrent processes (each key tuned once, the same configs everywhere),
// a lease holder that died, and a paused server mid-compile.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cache/autotune_cache.h"
#include "cache/redis_shards.h"
#include "cache/redis_test_server.h"
#include "cache/results_file.h"
#include "codegen/cuda/nvrtc_or_skip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::IsOk;
using ::xtune::testing::RedisTestServer;

// 25 fusions, 24 unique.
std::string Module() { return std::string(XTUNE_SOURCE_DIR) + "/tests/data/all_ops.hlo"; }

// The number before `what` in an autotuning summary ("12 tuned").
int CountOf(const std::string& output, const std::string& what) {
  size_t at = output.find(" " + what);
  if (at == std::string::npos) return -1;
  size_t start = output.rfind(' ', at - 1);
  int n = -1;
  if (!absl::SimpleAtoi(output.substr(start + 1, at - start - 1), &n)) return -1;
  return n;
}

// The keys matching `pattern` on the server.
int KeysOf(const RedisTestServer& server, const std::string& pattern) {
  absl::StatusOr<std::string> keys = server.Command({"KEYS", pattern});
  if (!keys.ok() || keys->empty()) return 0;
  return static_cast<int>(std::count(keys->begin(), keys->end(), '\n')) + 1;
}
int Entries(const RedisTestServer& server) { return KeysOf(server, "xtune:autotune:v1:*"); }
int Leases(const RedisTestServer& server) { return KeysOf(server, "xtune:lease:v1:*"); }

class FleetTest : public CliTest {
 protected:
  // The module tuned here without a remote, its entries dumped to `path`.
  absl::StatusOr<xla::AutotuneResults> TunedHere(const std::string& path) {
    Result r = RunXtune("compile " + Module() + " --backend=cpu --xla_gpu_dump_autotune_results_to=" +
                        path);
    if (r.exit_code != 0) return absl::InternalError(r.output);
    return ReadAutotuneResults(path);
  }
};

TEST_F(FleetTest, ProcessesWithEmptyLocalCachesShareOneTuning) {
  XTUNE_START_REDIS_OR_SKIP(server);
  const std::string remote = " --backend=cpu --xtune_autotune_cache_remote=" + server.url();
  Result first = RunXtune("compile " + Module() + remote);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(CountOf(first.output, "tuned,"), 24) << first.output;
  const std::string dump = dir_ + "/second.textproto";
  Result second = RunXtune("compile " + Module() + remote +
                           " --xla_gpu_dump_autotune_results_to=" + dump);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_THAT(second.output, HasSubstr("24 from the cache (redis 24), 0 tuned"));
  EXPECT_THAT(second.output, HasSubstr("dumped 24 entries"));  // read-through
  EXPECT_THAT(second.output, Not(HasSubstr("warning")));
  // The remote's keys: 24 entries, no lease left behind.
  EXPECT_EQ(Entries(server), 24);
  EXPECT_EQ(Leases(server), 0);
}

TEST_F(FleetTest, ConcurrentProcessesTuneEachKeyOnceAndAgree) {
  XTUNE_START_REDIS_OR_SKIP(server);
  const int kProcesses = 3;
  std::vector<std::thread> threads;
  std::vector<Result> results(kProcesses);
  for (int p = 0; p < kProcesses; ++p) {
    threads.emplace_back([&, p] {
      results[p] = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                            server.url() + " --xla_gpu_dump_autotune_results_to=" + dir_ +
                            "/p" + std::to_string(p) + ".textproto");
    });
  }
  for (std::thread& t : threads) t.join();
  int tuned = 0;
  for (const Result& r : results) {
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("; sharded: "));
    tuned += CountOf(r.output, "tuned,");
  }
  EXPECT_EQ(tuned, 24);  // each key once, in all
  for (int p = 1; p < kProcesses; ++p) {
    Result diff = RunXtune("cache diff " + dir_ + "/p0.textproto " + dir_ + "/p" +
                           std::to_string(p) + ".textproto");
    EXPECT_THAT(diff.output, HasSubstr("0 added, 0 removed, 0 changed config")) << diff.output;
  }
}

TEST_F(FleetTest, ADeadHoldersKeysAreTakenOverWhenItsLeasesExpire) {
  XTUNE_START_REDIS_OR_SKIP(server);
  // The keys of the module, from a local run.
  absl::StatusOr<xla::AutotuneResults> results = TunedHere(dir_ + "/local.textproto");
  ASSERT_THAT(results, IsOk());
  ASSERT_EQ(results->results_size(), 24);
  // A process that took five leases and died: they expire in 1.5 s.
  for (int i = 0; i < 5; ++i) {
    AutotuneKey key = KeyOfEntry(results->results(i), 0);
    ASSERT_THAT(server.Command({"SET", RedisTuningShards::LeaseName(key), "dead-host:1:1", "PX",
                                "1500"}),
                IsOk());
  }
  auto start = std::chrono::steady_clock::now();
  Result r = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                      server.url() + " --xtune_shard_autotuning_lease_ms=1000");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("sharded: 0 from other processes, 5 taken over"));
  EXPECT_EQ(CountOf(r.output, "tuned,"), 24);
  EXPECT_GE(seconds, 1.0);  // it waited for the leases
  EXPECT_EQ(Entries(server), 24);
  EXPECT_EQ(Leases(server), 0);  // the dead one's expired, this one's released
}

TEST_F(FleetTest, AWaitThatRunsOutTunesTheRestHere) {
  XTUNE_START_REDIS_OR_SKIP(server);
  absl::StatusOr<xla::AutotuneResults> results = TunedHere(dir_ + "/local.textproto");
  ASSERT_THAT(results, IsOk());
  // Leases held for a minute by a process that never publishes.
  for (int i = 0; i < 3; ++i) {
    AutotuneKey key = KeyOfEntry(results->results(i), 0);
    ASSERT_THAT(server.Command({"SET", RedisTuningShards::LeaseName(key), "slow-host:1:1", "PX",
                                "60000"}),
                IsOk());
  }
  Result r = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                      server.url() + " --xtune_shard_autotuning_wait_ms=500");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 taken over, 3 tuned after the wait"));
  EXPECT_EQ(CountOf(r.output, "tuned,"), 24);
}

TEST_F(FleetTest, APausedServerMidCompileCostsAWarningAndTheDumpIsComplete) {
  XTUNE_START_REDIS_OR_SKIP(server);
  server.Pause();
  const std::string dump = dir_ + "/dump.textproto";
  auto start = std::chrono::steady_clock::now();
  Result r = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                      server.url() + " --xtune_autotune_cache_remote_timeout_ms=300" +
                      " --xla_gpu_dump_autotune_results_to=" + dump);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  server.Resume();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("autotune cache tier 'redis' timed out"));
  EXPECT_THAT(r.output, HasSubstr("dumped 24 entries"));
  EXPECT_EQ(CountOf(r.output, "tuned,"), 24);
  EXPECT_LT(seconds, 30.0);
}

TEST_F(FleetTest, BadRemoteFlagsAreUserErrors) {
  Result url = RunXtune("compile " + Module() + " --xtune_autotune_cache_remote=http://x");
  EXPECT_EQ(url.exit_code, 1);
  EXPECT_THAT(url.output, HasSubstr("unknown scheme"));
  Result secret = RunXtune("compile " + Module() +
                           " --xtune_autotune_cache_remote=redis://:pw@127.0.0.1:1");
  EXPECT_EQ(secret.exit_code, 1);
  EXPECT_THAT(secret.output, HasSubstr("XTUNE_REDIS_PASSWORD"));
  Result timeout = RunXtune("compile " + Module() + " --xtune_autotune_cache_remote_timeout_ms=0");
  EXPECT_EQ(timeout.exit_code, 1);
  // A server nobody runs: one warning, the compile goes on.
  absl::StatusOr<int> port = ::xtune::testing::FreeLoopbackPort();
  ASSERT_THAT(port, IsOk());
  Result down = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                         absl::StrCat("redis://127.0.0.1:", *port));
  EXPECT_EQ(down.exit_code, 0) << down.output;
  EXPECT_THAT(down.output, HasSubstr("Connection refused"));
}

// The cache tools take a redis:// URL where they take a file: a team seeds
// the fleet cache from a checked-in file (XLA's entries included), a
// deviceless compile uses it, prune says what it removes, and the cache
// comes back into a file for hermetic tests.
TEST_F(FleetTest, CacheToolsSpeakRedis) {
  XTUNE_NVRTC_OR_SKIP();
  XTUNE_START_REDIS_OR_SKIP(server);
  const std::string url = server.url();
  const std::string xla = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/xla_conv_entries.textproto";
  Result seed = RunXtune("cache convert " + xla + " " + url);
  ASSERT_EQ(seed.exit_code, 0) << seed.output;
  EXPECT_THAT(seed.output, HasSubstr("wrote 3 entries to " + url + " (added to the remote cache"));
  Result stats = RunXtune("cache stats " + url);
  EXPECT_THAT(stats.output, HasSubstr(url + ": 3 entries"));
  Result show = RunXtune("cache show " + url + " --limit=1");
  EXPECT_THAT(show.output, HasSubstr("conv {algorithm: 1 tensor_ops_enabled: true}"));
  Result same = RunXtune("cache diff " + xla + " " + url);
  EXPECT_EQ(same.exit_code, 0) << same.output;
  // XLA's conv entry, as a deviceless compile finds it on the server.
  Result compiled = RunXtune("compile " + std::string(XTUNE_SOURCE_DIR) +
                             "/tests/xla_compat/h200/conv/conv_bias_relu.default.hlo"
                             " --backend=cuda --xtune_gpu_target=h200 --xtune_autotune_cache_remote=" +
                             url);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("1 from the cache (redis 1)"));
  EXPECT_THAT(compiled.output, HasSubstr("cuda_cudnn:algorithm=1,tensor_ops=1"));
  Result explain = RunXtune("cache explain " + std::string(XTUNE_SOURCE_DIR) +
                            "/tests/xla_compat/h200/conv/conv_bias_relu.default.hlo --cache=" + url +
                            " --backend=cuda --xtune_gpu_target=h200");
  EXPECT_THAT(explain.output, HasSubstr("hit"));
  // A CPU compile adds its entries; pruning the CPU device removes them,
  // saying so, and keeps XLA's.
  ASSERT_EQ(RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" + url)
                .exit_code,
            0);
  EXPECT_EQ(Entries(server), 27);
  Result pruned = RunXtune("cache prune " + url + " --out=" + url + " --device=CUDA");
  ASSERT_EQ(pruned.exit_code, 0) << pruned.output;
  EXPECT_THAT(pruned.output, HasSubstr("kept 3 entries, removed 24; rewrote " + url + " in place"));
  EXPECT_THAT(pruned.output, HasSubstr("removed (by device and version):"));
  EXPECT_EQ(Entries(server), 3);
  Result everything = RunXtune("cache prune " + url + " --out=" + url + " --device=nothing");
  EXPECT_EQ(everything.exit_code, 1);
  EXPECT_THAT(everything.output, HasSubstr("refusing to write"));
  EXPECT_EQ(Entries(server), 3);
  // Back into a file.
  const std::string back = dir_ + "/back.textproto";
  ASSERT_EQ(RunXtune("cache convert " + url + " " + back).exit_code, 0);
  Result diff = RunXtune("cache diff " + xla + " " + back);
  EXPECT_EQ(diff.exit_code, 0) << diff.output;
  // A server that is not there is a clear error, exit 1.
  absl::StatusOr<int> port = ::xtune::testing::FreeLoopbackPort();
  ASSERT_THAT(port, IsOk());
  Result down = RunXtune("cache stats " + absl::StrCat("redis://127.0.0.1:", *port));
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_THAT(down.output, HasSubstr("cannot read the remote cache"));
}

// Device-match seeding through the fleet cache: entries another CPU of the
// same instruction set wrote seed this machine's tuning, and the entries
// written here say which device they were seeded from.
TEST_F(FleetTest, DeviceMatchSeedsFromAnotherMachineOfTheSameArchitecture) {
  XTUNE_START_REDIS_OR_SKIP(server);
  const std::string local = dir_ + "/local.textproto";
  absl::StatusOr<xla::AutotuneResults> results = TunedHere(local);
  ASSERT_THAT(results, IsOk());
  ASSERT_EQ(results->results_size(), 24);
  const std::string here = results->results(0).device();
  const size_t isa = here.find(", ISA: ");
  ASSERT_NE(isa, std::string::npos) << here;
  const std::string other = "CPU: Another Machine" + here.substr(isa, here.find(',', isa + 2) - isa) +
                            ", Threads: 96, L2: 2048 KiB, L3: 256 MiB";
  for (auto& e : *results->mutable_results()) e.set_device(other);
  ASSERT_THAT(WriteAutotuneResults(local, *results), IsOk());
  ASSERT_EQ(RunXtune("cache convert " + local + " " + server.url()).exit_code, 0);
  const std::string dump = dir_ + "/seeded.textproto";
  Result r = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                      server.url() + " --xtune_autotune_device_match=arch"
                      " --xla_gpu_dump_autotune_results_to=" + dump);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const int settled = CountOf(r.output, "settled,");
  const int full = CountOf(r.output, "tuned in full");
  EXPECT_EQ(settled + full, 24) << r.output;
  EXPECT_GT(settled, 0) << r.output;
  absl::StatusOr<xla::AutotuneResults> dumped = ReadAutotuneResults(dump);
  ASSERT_THAT(dumped, IsOk());
  int recorded = 0;
  for (const auto& e : dumped->results()) {
    recorded += e.result().xtune_provenance().seeded_from_device() == other;
  }
  EXPECT_EQ(recorded, settled);
  // Exact matching (the default) does not seed.
  Result exact = RunXtune("compile " + Module() + " --backend=cpu --xtune_autotune_device_match=exact"
                          " --xtune_autotune_cache_remote=" + server.url(0) + " --xla_gpu_autotune_level=1");
  EXPECT_THAT(exact.output, Not(HasSubstr("seeded from other devices")));
  Result bad = RunXtune("compile " + Module() + " --xtune_autotune_device_match=near");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("exact, arch or any"));
}

// A real holder killed with SIGKILL while the other process compiles: the
// survivor finishes with every fusion, the server ends with every entry,
// and no lease outlives its expiry. (Whether the kill lands mid-tuning
// depends on timing; ADeadHoldersKeys... covers the takeover itself.)
TEST_F(FleetTest, AHolderKilledMidCompileLosesNothing) {
  XTUNE_START_REDIS_OR_SKIP(server);
  const std::string args = "compile " + Module() + " --backend=cpu --xtune_autotune_cache_remote=" +
                           server.url() + " --xtune_shard_autotuning_lease_ms=500";
  const pid_t victim = fork();
  if (victim == 0) {
    const std::string cmd = std::string("exec ") + XTUNE_BINARY + " " + args + " > /dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::thread killer([victim] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    kill(victim, SIGKILL);
  });
  const std::string dump = dir_ + "/survivor.textproto";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Result survivor = RunXtune(args + " --xla_gpu_dump_autotune_results_to=" + dump);
  killer.join();
  int status = 0;
  waitpid(victim, &status, 0);
  ASSERT_EQ(survivor.exit_code, 0) << survivor.output;
  EXPECT_THAT(survivor.output, HasSubstr("dumped 24 entries"));
  EXPECT_EQ(Entries(server), 24);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(Leases(server), 0);
}

}  // namespace
}  // namespace xtune
