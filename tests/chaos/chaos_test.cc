// Crash chaos: a writer process killed with SIGKILL at random instants
// while it writes, over and over, for each persistent write path: the
// results dump, the merge-dump of parallel test runs, the per-fusion
// directory, the cubin cache, the CPU kernel cache and the remote (Redis)
// tier. After every kill: what is stored parses, holds the old or the new
// complete content, loses no entry it held, and the next writer removes the
// killed writer's temporary files. $XTUNE_CHAOS_KILLS kills per path (default 200; the
// figures of docs/reliability.md use 1000). Each test prints its figures.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cache/autotune_cache.h"
#include "cache/cache_test_util.h"
#include "cache/directory_cache.h"
#include "cache/merge.h"
#include "cache/redis_store.h"
#include "cache/redis_test_server.h"
#include "cache/results_file.h"
#include "codegen/cpu/host_compiler.h"
#include "codegen/cuda/cubin_cache.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/file.h"
#include "util/sha256.h"
#include "util/subprocess.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"
#include "tests/cli_util.h"  // RunXtune

namespace xtune {
namespace {

using ::xtune::testing::IsOk;

constexpr char kDevice[] = "CPU: chaos";

int Kills() {
  int n = 200;
  const char* env = std::getenv("XTUNE_CHAOS_KILLS");
  if (env != nullptr && (!absl::SimpleAtoi(env, &n) || n <= 0)) n = 200;
  return n;
}

std::string Hlo(int i) {
  return absl::StrCat("{\n  ROOT tmp_0 = f32[", i + 1, "]{0} parameter(0)\n}");
}

xla::AutotuneResults Entries(int first, int count) {
  xla::AutotuneResults r;
  r.set_version(3);
  for (int i = first; i < first + count; ++i) {
    AddEntry(&r, kDevice, Hlo(i), CpuLoopResult(1 + i % 4, 64, 1000 + i), 0);
  }
  return r;
}

// Temporary files in `dir` (a writer's, left when it was killed).
int Temporaries(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (absl::StrContains(name, ".tmp.")) ++n;
  }
  return n;
}

// Kills `pid` after a random delay below `max_us` and reaps it. Returns
// whether the kill landed while it was still running (it had not exited on
// its own).
bool KillAfterADelay(std::mt19937& rng, int max_us, pid_t pid) {
  std::uniform_int_distribution<int> delay(0, max_us);
  usleep(delay(rng));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// Runs `loop` (which never returns while it can write) in a child process,
// kills it after a random delay below `max_us`, and reaps it. Returns
// whether the kill landed while the child was still writing (it had not
// exited on its own).
bool KillWhileWriting(std::mt19937& rng, int max_us, const std::function<void()>& loop) {
  pid_t pid = fork();
  if (pid == 0) {
    loop();
    _exit(3);  // the loop failed: the parent sees exit 3
  }
  return KillAfterADelay(rng, max_us, pid);
}

// As KillWhileWriting, but the delay starts when the writer calls `ready`
// (once its setup is done), so a slow setup (a sanitized build) cannot use
// it up.
bool KillAfterReady(std::mt19937& rng, int max_us,
                    const std::function<void(const std::function<void()>& ready)>& loop) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    loop([&] {
      char c = 1;
      (void)!write(fds[1], &c, 1);
    });
    _exit(3);
  }
  close(fds[1]);
  char c;
  while (read(fds[0], &c, 1) < 0 && errno == EINTR) {
  }
  close(fds[0]);
  return KillAfterADelay(rng, max_us, pid);
}

class ChaosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = xtune::testing::TestTempDir(
        absl::StrCat("xtune_chaos_", ::testing::UnitTest::GetInstance()->current_test_info()->name()));
  }
  void Report(const std::string& path, int kills, int mid_write, int leftovers) {
    std::cout << "chaos " << path << ": " << kills << " kills (" << mid_write
              << " while writing); "
              << (leftovers < 0 ? std::string()
                                : absl::StrCat(leftovers, " left a temporary file, every one "
                                                          "removed by the next writer; "))
              << "every read found complete, undamaged content and no entry lost\n";
  }
  std::string dir_;
  std::mt19937 rng_{20261205};
};

TEST_F(ChaosTest, ResultsDump) {
  const std::string path = dir_ + "/cache.textproto";
  const xla::AutotuneResults old_results = Entries(0, 40), new_results = Entries(0, 41);
  const std::string old_text = SerializeAutotuneResults(old_results, true);
  const std::string new_text = SerializeAutotuneResults(new_results, true);
  ASSERT_THAT(WriteAutotuneResults(path, old_results), IsOk());
  int mid_write = 0, leftovers = 0;
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    mid_write += KillWhileWriting(rng_, 3000, [&] {
      while (WriteAutotuneResults(path, new_results).ok() &&
             WriteAutotuneResults(path, old_results).ok()) {
      }
    });
    absl::StatusOr<std::string> text = ReadFile(path);
    ASSERT_THAT(text, IsOk());
    ASSERT_TRUE(*text == old_text || *text == new_text) << "kill " << k << ": a mixed file";
    ASSERT_THAT(ParseAutotuneResults(*text, true, path), IsOk());
    leftovers += Temporaries(dir_);
    // The next writer removes what the killed one left.
    ASSERT_THAT(WriteAutotuneResults(path, old_results), IsOk());
    ASSERT_EQ(Temporaries(dir_), 0) << "kill " << k;
  }
  EXPECT_GT(mid_write, kills / 2);
  Report("results dump", kills, mid_write, leftovers);
}

TEST_F(ChaosTest, MergeDumpLosesNoEntry) {
  const std::string path = dir_ + "/merged.pb";
  int held = 0, mid_write = 0, leftovers = 0;
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    const int first = held;
    mid_write += KillWhileWriting(rng_, 3000, [&] {
      for (int i = first;; ++i) {
        MergeStats stats;
        if (!MergeIntoFile(path, Entries(i, 1), 4, &stats).ok()) return;
      }
    });
    // Parses, and holds every entry it held before: 0 .. held-1, and more.
    xla::AutotuneResults now;
    if (held > 0 || std::filesystem::exists(path)) {
      absl::StatusOr<xla::AutotuneResults> r = ReadAutotuneResults(path);
      ASSERT_THAT(r, IsOk()) << "kill " << k;
      now = *r;
    }
    std::set<std::string> hlos;
    for (const auto& e : now.results()) hlos.insert(e.hlo());
    for (int i = 0; i < held; ++i) ASSERT_TRUE(hlos.count(Hlo(i))) << "kill " << k << " lost " << i;
    ASSERT_GE(now.results_size(), held);
    held = now.results_size();
    leftovers += Temporaries(dir_);
    // The killed writer's lock is free (the kernel dropped it), and the
    // next merge removes its temporary file.
    MergeStats stats;
    ASSERT_THAT(MergeIntoFile(path, Entries(held, 1), 4, &stats), IsOk());
    ++held;
    ASSERT_EQ(Temporaries(dir_), 0);
  }
  EXPECT_GT(mid_write, kills / 2);
  EXPECT_GT(held, kills);
  Report(absl::StrCat("merge-dump (", held, " entries at the end)"), kills, mid_write, leftovers);
}

TEST_F(ChaosTest, PerFusionDirectory) {
  const std::string dir = dir_ + "/per_fusion";
  int held = 0, mid_write = 0, leftovers = 0;
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    const int first = held;
    mid_write += KillWhileWriting(rng_, 3000, [&] {
      absl::StatusOr<std::unique_ptr<DirectoryAutotuneCache>> c =
          DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kUpdate);
      if (!c.ok()) return;
      for (int i = first;; ++i) {
        if (!(*c)->Insert({kDevice, Hlo(i), 4}, CpuLoopResult(1, 64, 1000 + i)).ok()) return;
      }
    });
    // A kill before the first writer made the folder wrote nothing.
    if (held > 0 || std::filesystem::exists(dir)) {
      int64_t without_key = 0;
      absl::StatusOr<xla::AutotuneResults> r = ReadDirectoryCache(dir, &without_key);
      ASSERT_THAT(r, IsOk()) << "kill " << k;  // no damaged file
      ASSERT_GE(r->results_size(), held);
      held = r->results_size();
      leftovers += Temporaries(dir + "/tmp");
    }
    // The next writer to open the folder removes the leftovers.
    ASSERT_THAT(DirectoryAutotuneCache::Open(dir, DirectoryCacheMode::kUpdate), IsOk());
    ASSERT_EQ(Temporaries(dir + "/tmp"), 0);
  }
  EXPECT_GT(held, 0);
  Report(absl::StrCat("per-fusion directory (", held, " files at the end)"), kills, mid_write,
         leftovers);
}

TEST_F(ChaosTest, CubinCacheIsAHitOfOneWriteOrAMiss) {
  const std::string root = dir_ + "/kernels";
  // Two compiles' outputs, with the ptxas report a lookup reads back.
  const std::string log =
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem\n";
  cuda::NvrtcOutput a, b;
  a.cubin = std::string(64 * 1024, 'a');
  a.ptx = "// ptx a";
  a.log = log;
  b.cubin = std::string(48 * 1024, 'b');
  b.ptx = "// ptx b";
  b.log = log;
  cuda::CubinCache cache(root);
  const std::string base = root + "/cubins/0123abcd";
  cache.Store(base, a);
  ASSERT_TRUE(cache.Lookup(base).has_value());
  int mid_write = 0, leftovers = 0, misses = 0;
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    mid_write += KillWhileWriting(rng_, 3000, [&] {
      cuda::CubinCache writer(root);
      for (;;) {
        writer.Store(base, b);
        writer.Store(base, a);
      }
    });
    leftovers += Temporaries(root + "/cubins");
    cuda::CubinCache next(root);  // removes the leftovers
    ASSERT_EQ(Temporaries(root + "/cubins"), 0);
    std::optional<cuda::NvrtcOutput> hit = next.Lookup(base);
    if (!hit) {
      ++misses;  // killed between its files: recompiled, never mixed
    } else {
      ASSERT_TRUE((hit->cubin == a.cubin && hit->ptx == a.ptx) ||
                  (hit->cubin == b.cubin && hit->ptx == b.ptx))
          << "kill " << k << ": a mixed entry";
    }
    next.Store(base, a);
  }
  Report(absl::StrCat("cubin cache (", misses, " misses)"), kills, mid_write, leftovers);
}

TEST_F(ChaosTest, RemoteTierLosesNoEntry) {
  XTUNE_START_REDIS_OR_SKIP(server);
  RedisStoreOptions options;
  absl::StatusOr<RedisAddress> address = ParseRedisUrl(server.url());
  ASSERT_THAT(address, IsOk());
  options.address = *address;
  int held = 0, mid_write = 0;
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    const int first = held;
    mid_write += KillWhileWriting(rng_, 3000, [&] {
      RedisAutotuneCache writer(options);
      for (int i = first;; ++i) {
        if (!writer.Insert({kDevice, Hlo(i), 4}, CpuLoopResult(1, 64, 1000 + i)).ok()) return;
      }
    });
    RedisAutotuneCache reader(options);
    int64_t damaged = 0;
    absl::StatusOr<xla::AutotuneResults> all = reader.ReadAll(&damaged);
    ASSERT_THAT(all, IsOk());
    ASSERT_EQ(damaged, 0) << "kill " << k;
    ASSERT_GE(all->results_size(), held);
    held = all->results_size();
  }
  EXPECT_GT(held, 0);
  Report(absl::StrCat("remote tier (", held, " entries at the end)"), kills, mid_write, -1);
}

// The CPU kernel cache's own write path, a kill costing milliseconds: a
// HostCompiler whose "compiler" copies a prebuilt object (built once by the
// real one) loads eight kernels over and over; before each writer, half of
// them are evicted, so it compiles and publishes those again (work folder,
// object, sidecar) and loads the others from private copies. After each
// kill the next HostCompiler removes every leftover (work folders, objects
// being published, private copies), every sidecar matches its object, no
// published kernel is lost, and each loads from the cache without a compile.
TEST_F(ChaosTest, KernelCacheWritePath) {
  const std::string cache = dir_ + "/kernel_cache";
  const std::string kernels = cache + "/kernels";
  const std::string prebuilt = dir_ + "/prebuilt.so";
  ASSERT_THAT(WriteFileAtomically(dir_ + "/prebuilt.cc",
                                  "static volatile char pad[1 << 18] = {1};\n"
                                  "extern \"C\" int xt_chaos_answer() { return 42 + pad[0] - 1; }\n"),
              IsOk());
  absl::StatusOr<SubprocessResult> built = RunSubprocess(
      {"c++", "-O1", "-fPIC", "-shared", "-o", prebuilt, dir_ + "/prebuilt.cc"},
      absl::Seconds(120));
  ASSERT_THAT(built, IsOk());
  ASSERT_EQ(built->exit_code, 0) << built->output;
  const std::string fake = dir_ + "/fake-c++";
  ASSERT_THAT(WriteFileAtomically(fake, absl::StrCat(
      "#!/bin/sh\n"
      "[ \"$1\" = --version ] && { echo 'fake-c++ 1.0 (copies ", prebuilt, ")'; exit 0; }\n"
      "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
      "exec cp '", prebuilt, "' \"$out\"\n")),
              IsOk());
  ASSERT_EQ(chmod(fake.c_str(), 0755), 0);
  cpu::HostCompilerOptions options;
  options.compiler = fake;
  options.cache_dir = cache;
  std::vector<std::string> sources;
  for (int i = 0; i < 8; ++i) sources.push_back(absl::StrCat("// chaos kernel ", i, "\n"));
  std::string identity;
  {
    absl::StatusOr<std::unique_ptr<cpu::HostCompiler>> c = cpu::HostCompiler::Create(options);
    ASSERT_THAT(c, IsOk());
    identity = (*c)->identity();
  }
  auto key_of = [&](int i) { return Sha256Hex(absl::StrCat(identity, "\n", sources[i])); };
  auto published = [&](int i) {
    absl::StatusOr<std::string> sidecar = ReadFile(kernels + "/" + key_of(i) + ".sha256");
    return sidecar.ok();
  };
  std::string last_leftover;
  auto leftovers_in = [&] {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(kernels, ec)) {
      if (absl::StartsWith(e.path().filename().string(), ".")) {
        ++n;
        last_leftover = e.path().filename().string();
      }
    }
    return n;
  };
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int mid_write = 0, leftovers = 0, republished = 0;
  std::uniform_int_distribution<int> coin(0, 1);
  const int kills = Kills();
  for (int k = 0; k < kills; ++k) {
    std::vector<bool> held(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      if (published(i) && coin(rng_) == 0) {  // evict: sidecar first
        std::filesystem::remove(kernels + "/" + key_of(i) + ".sha256");
        std::filesystem::remove(kernels + "/" + key_of(i) + ".so");
      }
      held[i] = published(i);
    }
    mid_write += KillAfterReady(rng_, 50000, [&](const std::function<void()>& ready) {
      absl::StatusOr<std::unique_ptr<cpu::HostCompiler>> writer =
          cpu::HostCompiler::Create(options);
      if (!writer.ok()) return;
      ready();
      for (;;) {
        for (const std::string& source : sources) {
          if (!(*writer)->CompileAndLoad(source).ok()) return;
        }
      }
    });
    // The writer's compiler dies with it (PR_SET_PDEATHSIG) and, orphaned,
    // comes to this process (a subreaper): wait until it is gone.
    while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
    }
    leftovers += leftovers_in();
    absl::StatusOr<std::unique_ptr<cpu::HostCompiler>> next = cpu::HostCompiler::Create(options);
    ASSERT_THAT(next, IsOk());
    ASSERT_EQ(leftovers_in(), 0) << "kill " << k << ": the next writer left a killed one's "
                                 << last_leftover;
    for (size_t i = 0; i < sources.size(); ++i) {
      if (!published(i)) {
        ASSERT_FALSE(held[i]) << "kill " << k << ": kernel " << i << " was lost";
        continue;
      }
      republished += !held[i];
      absl::StatusOr<std::string> object = ReadFile(kernels + "/" + key_of(i) + ".so");
      absl::StatusOr<std::string> sidecar = ReadFile(kernels + "/" + key_of(i) + ".sha256");
      ASSERT_THAT(object, IsOk());
      ASSERT_THAT(sidecar, IsOk());
      ASSERT_EQ(Sha256Hex(*object) + "\n", *sidecar) << "kill " << k << ": kernel " << i;
      absl::StatusOr<cpu::LoadedKernel> loaded =
          (*next)->LoadKernel(sources[i], {"xt_chaos_answer"});
      ASSERT_THAT(loaded, IsOk());
      auto answer = reinterpret_cast<int (*)()>(loaded->Symbol("xt_chaos_answer"));
      ASSERT_NE(answer, nullptr);
      ASSERT_EQ(answer(), 42);
    }
    ASSERT_EQ((*next)->compilations(), 0) << "kill " << k << ": a published kernel missed";
  }
  EXPECT_GT(republished, 0);
  Report(absl::StrCat("CPU kernel cache write path (", republished, " kernels republished)"),
         kills, mid_write, leftovers);
}

// The CPU kernel cache: `xtune compile` (and the compiler processes it
// runs) killed as a process group at random instants of a cold compile;
// the next run finds every cached object usable (its outputs verify), and
// its first compile removes the killed compiles' work folders.
// $XTUNE_CHAOS_COMPILE_KILLS kills (default 10: each costs a compile).
TEST_F(ChaosTest, KernelCacheOfKilledCompiles) {
  int kills = 10;
  if (const char* env = std::getenv("XTUNE_CHAOS_COMPILE_KILLS")) {
    if (!absl::SimpleAtoi(env, &kills) || kills <= 0) kills = 10;
  }
  const std::string module = dir_ + "/model.hlo";
  const std::string cache = dir_ + "/kernel_cache";
  const std::string kernels = cache + "/kernels";
  auto work_dirs = [&] {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(kernels, ec)) {
      n += absl::StartsWith(e.path().filename().string(), ".tmp.");
    }
    return n;
  };
  int leftovers = 0, mid_compile = 0;
  for (int k = 0; k < kills; ++k) {
    // Each compile starts cold: new shapes, new kernels.
    const std::string level = "2";
    const std::string n = std::to_string(24 + k);
    ASSERT_THAT(WriteFileAtomically(module, absl::StrCat(R"hlo(HloModule m
ENTRY e {
  x = f32[16,32] parameter(0)
  w = f32[32,)hlo", n, R"hlo(] parameter(1)
  d = f32[16,)hlo", n, R"hlo(] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[16,)hlo", n, R"hlo(] tanh(d)
})hlo")),
                IsOk());
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      setenv("XTUNE_CACHE_DIR", cache.c_str(), 1);
      const std::string flag = "--xla_gpu_autotune_level=" + level;
      execl(XTUNE_BINARY, XTUNE_BINARY, "compile", module.c_str(), flag.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    setpgid(pid, pid);
    usleep(std::uniform_int_distribution<int>(0, 600000)(rng_));
    kill(-pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    mid_compile += WIFSIGNALED(status);
    leftovers += work_dirs();
    Result next = RunXtune("run " + module + " --verify --xla_gpu_autotune_level=" + level,
                           "XTUNE_CACHE_DIR=" + cache);
    ASSERT_EQ(next.exit_code, 0) << "kill " << k << ": " << next.output;
    ASSERT_EQ(work_dirs(), 0) << "kill " << k;
  }
  std::cout << "chaos CPU kernel cache: " << kills << " compiles killed (" << mid_compile
            << " while running); " << leftovers
            << " left work folders, every one removed by the next compile, whose outputs "
               "verified\n";
}

}  // namespace
}  // namespace xtune
