// The fleet cache's figures (docs/fleet.md), each with its baseline from
// the same run, against a redis-server this program starts on a free
// loopback port. One JSON line per figure.
//
// 1. sharding: N = 1, 2, 4 `xtune compile` processes, started together,
//    compiling one module (tests/data/all_ops.hlo: 24 distinct fusions,
//    or --module) with empty local caches over one Redis: wall time of
//    the last to finish against one process alone (ratio = alone / N
//    processes; on 2 cores the cores bound it), the fusions each process
//    tuned, and the total (target: each key once, total = distinct).
// 2. lookups: 16 concurrent clients each looking up a 100-fusion module
//    (one MGET through the Redis tier) against the same from a
//    per-fusion directory on local disk: keys per second and the p50 and
//    p99 latency of one module's lookup.
// 3. faults: a lease holder killed (SIGKILL) mid-tuning while another
//    process compiles the module (the survivor finishes, the remote ends
//    with every key, each key tuned at most twice); the server killed and
//    paused (SIGSTOP) mid-compile (the compile finishes, with a warning,
//    and its dump holds every fusion).
//
// usage: fleet [--module=M.hlo] [--only=sharding|lookups|faults]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/directory_cache.h"
#include "cache/redis_store.h"
#include "cache/redis_test_server.h"
#include "cache/results_file.h"

namespace xtune::bench {
namespace {

using ::xtune::testing::RedisTestServer;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Proc {
  pid_t pid = -1;
  std::string log;
};

// Starts `xtune ARGS` with its output in `log`.
Proc Spawn(const std::string& args, const std::string& log) {
  Proc p;
  p.log = log;
  p.pid = fork();
  if (p.pid == 0) {
    const std::string cmd = absl::StrCat("exec ", XTUNE_BINARY, " ", args, " > ", log, " 2>&1");
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return p;
}

int Wait(const Proc& p) {
  int status = 0;
  waitpid(p.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Slurp(const std::string& path) {
  std::string out;
  if (FILE* f = fopen(path.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
    fclose(f);
  }
  return out;
}

// The number before `what` in an autotuning summary.
int CountOf(const std::string& output, const std::string& what) {
  size_t at = output.find(" " + what);
  if (at == std::string::npos) return -1;
  size_t start = output.rfind(' ', at - 1);
  int n = -1;
  if (!absl::SimpleAtoi(output.substr(start + 1, at - start - 1), &n)) return -1;
  return n;
}

int Distinct(const std::string& output) {
  size_t at = output.find(" unique)");
  if (at == std::string::npos) return -1;
  size_t start = output.rfind('(', at);
  int n = -1;
  absl::SimpleAtoi(output.substr(start + 1, at - start - 1), &n);
  return n;
}

std::string Compile(const std::string& module, const std::string& url) {
  return absl::StrCat("compile ", module, " --backend=cpu --xtune_autotune_cache_remote=", url);
}

void Sharding(const std::string& module, const std::string& dir) {
  double alone = 0;
  for (int n : {1, 2, 4}) {
    absl::StatusOr<std::unique_ptr<RedisTestServer>> server = RedisTestServer::Start();
    if (!server.ok()) {
      std::cerr << "fleet: " << server.status() << "\n";
      return;
    }
    std::vector<Proc> procs;
    const double start = Now();
    for (int p = 0; p < n; ++p) {
      procs.push_back(Spawn(Compile(module, (*server)->url()), absl::StrCat(dir, "/shard", n, "_", p)));
    }
    std::vector<int> tuned;
    int total = 0, distinct = 0, failed = 0;
    for (const Proc& p : procs) {
      failed += Wait(p) != 0;
      const std::string out = Slurp(p.log);
      tuned.push_back(CountOf(out, "tuned,"));
      total += tuned.back();
      distinct = Distinct(out);
    }
    const double wall = Now() - start;
    if (n == 1) alone = wall;
    std::string per;
    for (int t : tuned) absl::StrAppend(&per, per.empty() ? "" : ",", t);
    std::cout << absl::StrFormat(
        "{\"figure\": \"sharding\", \"processes\": %d, \"wall_s\": %.3f, \"alone_s\": %.3f, "
        "\"ratio\": %.2f, \"distinct_keys\": %d, \"tuned_per_process\": [%s], "
        "\"tuned_total\": %d, \"failed\": %d, \"cores\": %u}\n",
        n, wall, alone, alone / wall, distinct, per, total, failed,
        std::thread::hardware_concurrency());
  }
}

// A 100-fusion module's keys (synthetic texts of realistic length).
std::vector<AutotuneKey> ModuleKeys(int module) {
  std::vector<AutotuneKey> keys;
  for (int i = 0; i < 100; ++i) {
    AutotuneKey k;
    k.device = "CPU: bench device, ISA: avx2";
    k.version = 1;
    k.hlo = absl::StrCat("fused_computation.", module, ".", i,
                         " { p0 = f32[128,256]{1,0} parameter(0) ... ROOT r = f32[128,256]{1,0} "
                         "add(p0, p0) } // ",
                         std::string(600, 'x'));
    keys.push_back(std::move(k));
  }
  return keys;
}

xla::AutotuneResult Result() {
  xla::AutotuneResult r;
  r.mutable_run_time()->set_nanos(12345);
  auto* k = r.mutable_cpu_gemm();
  k->set_mc(64);
  k->set_nc(256);
  k->set_kc(256);
  k->set_mr(6);
  k->set_nr(16);
  k->set_split_k(1);
  k->set_threads(1);
  return r;
}

struct Latencies {
  std::vector<double> seconds;
  double wall = 0;
};

// `clients` threads, each `lookups` module lookups through its own store.
template <typename MakeStore, typename LookUp>
Latencies Run(int clients, int lookups, MakeStore make, LookUp look_up) {
  std::vector<std::vector<double>> per(clients);
  std::vector<std::thread> threads;
  const double start = Now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto store = make();
      for (int i = 0; i < lookups; ++i) {
        std::vector<AutotuneKey> keys = ModuleKeys(i % 4);
        const double t0 = Now();
        look_up(*store, keys);
        per[c].push_back(Now() - t0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Latencies out;
  out.wall = Now() - start;
  for (auto& v : per) out.seconds.insert(out.seconds.end(), v.begin(), v.end());
  std::sort(out.seconds.begin(), out.seconds.end());
  return out;
}

double Quantile(const std::vector<double>& sorted, double q) {
  return sorted.empty() ? 0 : sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()))];
}

void Lookups(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<RedisTestServer>> server = RedisTestServer::Start();
  if (!server.ok()) {
    std::cerr << "fleet: " << server.status() << "\n";
    return;
  }
  RedisStoreOptions o;
  o.address = *ParseRedisUrl((*server)->url());
  const std::string folder = dir + "/per_fusion";
  {
    RedisAutotuneCache redis(o);
    std::unique_ptr<DirectoryAutotuneCache> files =
        *DirectoryAutotuneCache::Open(folder, DirectoryCacheMode::kUpdate);
    for (int m = 0; m < 4; ++m) {
      for (const AutotuneKey& k : ModuleKeys(m)) {
        (void)redis.Insert(k, Result());
        (void)files->Insert(k, Result());
      }
    }
  }
  const int kClients = 16, kLookups = 50;
  int hits_redis = 0, hits_dir = 0;
  std::mutex mu;
  Latencies redis = Run(
      kClients, kLookups, [&] { return std::make_unique<RedisAutotuneCache>(o); },
      [&](RedisAutotuneCache& s, const std::vector<AutotuneKey>& keys) {
        (void)s.Prefetch(keys);
        int hits = 0;
        for (const AutotuneKey& k : keys) {
          absl::StatusOr<std::optional<CacheHit>> h = s.Lookup(k);
          hits += h.ok() && h->has_value();
        }
        std::lock_guard<std::mutex> lock(mu);
        hits_redis += hits;
      });
  Latencies files = Run(
      kClients, kLookups,
      [&] { return *DirectoryAutotuneCache::Open(folder, DirectoryCacheMode::kRead); },
      [&](DirectoryAutotuneCache& s, const std::vector<AutotuneKey>& keys) {
        int hits = 0;
        for (const AutotuneKey& k : keys) {
          absl::StatusOr<std::optional<CacheHit>> h = s.Lookup(k);
          hits += h.ok() && h->has_value();
        }
        std::lock_guard<std::mutex> lock(mu);
        hits_dir += hits;
      });
  const double keys = 100.0 * kClients * kLookups;
  std::cout << absl::StrFormat(
      "{\"figure\": \"lookups\", \"clients\": %d, \"module_keys\": 100, "
      "\"redis_keys_per_s\": %.0f, \"redis_p50_ms\": %.3f, \"redis_p99_ms\": %.3f, "
      "\"directory_keys_per_s\": %.0f, \"directory_p50_ms\": %.3f, \"directory_p99_ms\": %.3f, "
      "\"ratio_keys_per_s\": %.2f, \"hits\": [%d, %d], \"cores\": %u}\n",
      kClients, keys / redis.wall, 1e3 * Quantile(redis.seconds, 0.5),
      1e3 * Quantile(redis.seconds, 0.99), keys / files.wall, 1e3 * Quantile(files.seconds, 0.5),
      1e3 * Quantile(files.seconds, 0.99), (keys / redis.wall) / (keys / files.wall), hits_redis,
      hits_dir, std::thread::hardware_concurrency());
}

void Faults(const std::string& module, const std::string& dir) {
  // A lease holder killed mid-tuning.
  {
    absl::StatusOr<std::unique_ptr<RedisTestServer>> server = RedisTestServer::Start();
    if (!server.ok()) return;
    const std::string url = (*server)->url();
    const std::string lease = " --xtune_shard_autotuning_lease_ms=1000";
    Proc victim = Spawn(Compile(module, url) + lease, dir + "/victim");
    usleep(150 * 1000);
    Proc survivor = Spawn(Compile(module, url) + lease + " --xla_gpu_dump_autotune_results_to=" +
                              dir + "/survivor.textproto",
                          dir + "/survivor");
    usleep(100 * 1000);
    kill(victim.pid, SIGKILL);
    Wait(victim);
    const double start = Now();
    const int rc = Wait(survivor);
    const std::string out = Slurp(survivor.log);
    const std::string victim_out = Slurp(victim.log);
    absl::StatusOr<std::string> entries = (*server)->Command({"EVAL",
        "return #redis.call('keys', 'xtune:autotune:v1:*')", "0"});
    absl::StatusOr<xla::AutotuneResults> dumped =
        ReadAutotuneResults(dir + "/survivor.textproto");
    std::cout << absl::StrFormat(
        "{\"figure\": \"fault_holder_killed\", \"survivor_exit\": %d, \"survivor_wait_s\": %.3f, "
        "\"distinct_keys\": %d, \"survivor_tuned\": %d, \"taken_over\": %d, "
        "\"remote_entries\": %s, \"survivor_dump_entries\": %d, \"victim_finished\": %s}\n",
        rc, Now() - start, Distinct(out), CountOf(out, "tuned,"), CountOf(out, "taken over"),
        entries.ok() ? *entries : "-1", dumped.ok() ? dumped->results_size() : -1,
        victim_out.find("autotuning:") != std::string::npos ? "true" : "false");
  }
  // The server killed, and paused, mid-compile.
  for (const char* fault : {"killed", "paused"}) {
    absl::StatusOr<std::unique_ptr<RedisTestServer>> server = RedisTestServer::Start();
    if (!server.ok()) return;
    const std::string dump = absl::StrCat(dir, "/dump_", fault, ".textproto");
    const double start = Now();
    Proc p = Spawn(Compile(module, (*server)->url()) +
                       " --xtune_autotune_cache_remote_timeout_ms=500"
                       " --xla_gpu_dump_autotune_results_to=" + dump,
                   absl::StrCat(dir, "/server_", fault));
    usleep(100 * 1000);
    if (std::string(fault) == "killed") {
      (*server)->Kill();
    } else {
      (*server)->Pause();
    }
    const int rc = Wait(p);
    const double wall = Now() - start;
    (*server)->Resume();
    const std::string out = Slurp(absl::StrCat(dir, "/server_", fault));
    absl::StatusOr<xla::AutotuneResults> dumped = ReadAutotuneResults(dump);
    int warning_lines = 0;
    for (size_t at = out.find("warning:"); at != std::string::npos;
         at = out.find("warning:", at + 1)) {
      ++warning_lines;
    }
    std::cout << absl::StrFormat(
        "{\"figure\": \"fault_server_%s\", \"exit\": %d, \"wall_s\": %.3f, \"warnings\": %d, "
        "\"distinct_keys\": %d, \"dump_entries\": %d}\n",
        fault, rc, wall, warning_lines, Distinct(out), dumped.ok() ? dumped->results_size() : -1);
  }
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) {
  std::string module = std::string(XTUNE_SOURCE_DIR) + "/tests/data/all_ops.hlo";
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--module=", 0) == 0) module = a.substr(9);
    if (a.rfind("--only=", 0) == 0) only = a.substr(7);
  }
  const std::string dir = std::filesystem::temp_directory_path().string() + "/xtune_fleet_bench_" +
                          std::to_string(getpid());
  std::filesystem::create_directories(dir);
  if (only.empty() || only == "sharding") xtune::bench::Sharding(module, dir);
  if (only.empty() || only == "lookups") xtune::bench::Lookups(dir);
  if (only.empty() || only == "faults") xtune::bench::Faults(module, dir);
  std::filesystem::remove_all(dir);
  return 0;
}
