// Persistent autotuning benchmarks, one JSON line per figure, each with its
// baseline from the same run and the ratio:
//
// 1. Compile time of all examples/ — cold (empty autotune cache: every
//    fusion tuned; once with an empty kernel-object cache, once with the
//    kernel objects already built) against warm (loading the cache file the
//    cold compile dumped), and warm against --xla_gpu_autotune_level=0 (no
//    tuning, no cache). Targets: cold/warm >= 20, warm/level0 <= 1.2.
// 2. A synthetic cache of 100,000 entries (realistic fused texts and CPU
//    configs): dump and load time, text and binary, against protobuf's bare
//    serialize/parse of the same message; lookups per second against a
//    std::unordered_map<string> of the key texts. Targets: load <= 1 s
//    binary, <= 5 s text; >= 1M lookups/s.
//
// usage: persistent_cache [--entries=N] [--reps=R] [--only=compile|files]
#include <google/protobuf/text_format.h>
#include <stdlib.h>

#include <filesystem>
#include <iostream>
#include <random>
#include <unordered_map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "cache/persistent.h"
#include "cache/results_file.h"
#include "codegen/codegen_version.h"
#include "compiler/compile.h"
#include "ir/parser.h"
#include "util/file.h"

namespace xtune::bench {
namespace {

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<std::unique_ptr<Module>> Examples() {
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(
           std::string(XTUNE_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() == ".hlo") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& p : paths) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(p);
    if (!m.ok()) {
      std::cerr << m.status() << "\n";
      exit(1);
    }
    modules.push_back(std::move(*m));
  }
  return modules;
}

// Compiles every module through `session` (a fresh one from `cache` when
// null); returns seconds; *tuned counts the tuned fusions.
double CompileAll(const std::vector<std::unique_ptr<Module>>& modules,
                  const XlaFlags& flags, int* tuned, int* hits) {
  absl::StatusOr<std::unique_ptr<AutotuneCacheSession>> session =
      AutotuneCacheSession::Open(flags.cache, kCodegenVersion);
  if (!session.ok()) {
    std::cerr << session.status() << "\n";
    exit(1);
  }
  double start = Now();
  // One backend for all the compiles, as one Compiler has.
  absl::StatusOr<std::unique_ptr<Backend>> backend =
      CreateBackendFor("cpu", flags);
  if (!backend.ok()) {
    std::cerr << backend.status() << "\n";
    exit(1);
  }
  *tuned = *hits = 0;
  for (const auto& m : modules) {
    absl::StatusOr<CompiledModule> c =
        CompileModule(*m, backend->get(), flags, {}, session->get());
    if (!c.ok()) {
      std::cerr << c.status() << "\n";
      exit(1);
    }
    *tuned += c->tuning.stats.tuned;
    *hits += c->tuning.stats.cache_hits;
  }
  return Now() - start;
}

void CompileBench(const std::string& work, int reps) {
  std::vector<std::unique_ptr<Module>> modules = Examples();
  std::string cache_file = work + "/examples.textproto";
  XlaFlags cold;
  cold.autotune.print_summary = false;
  cold.cache.dump_to = cache_file;
  int tuned = 0, hits = 0;
  // Cold with an empty kernel-object cache: a new XTUNE_CACHE_DIR.
  std::string kernels = work + "/kernel_cache";
  std::filesystem::remove_all(kernels);
  setenv("XTUNE_CACHE_DIR", kernels.c_str(), 1);
  double cold_empty = CompileAll(modules, cold, &tuned, &hits);
  int cold_tuned = tuned;
  // Cold again, kernel objects now built (the autotune cache still empty).
  std::vector<double> cold_warm_kernels;
  for (int r = 0; r < std::max(1, reps / 2); ++r) {
    cold_warm_kernels.push_back(CompileAll(modules, cold, &tuned, &hits));
  }
  XlaFlags warm;
  warm.autotune.print_summary = false;
  warm.cache.load_from = cache_file;
  XlaFlags level0;
  level0.autotune.print_summary = false;
  level0.autotune.level = 0;
  std::vector<double> warm_t, level0_t;
  int warm_tuned = 0, warm_hits = 0;
  for (int r = 0; r < reps; ++r) {  // interleaved, so drift hits both
    warm_t.push_back(CompileAll(modules, warm, &warm_tuned, &warm_hits));
    level0_t.push_back(CompileAll(modules, level0, &tuned, &hits));
  }
  double w = Median(warm_t), l0 = Median(level0_t),
         cw = Median(cold_warm_kernels);
  std::cout << absl::StrFormat(
                   "{\"bench\":\"compile_cold_vs_warm\",\"modules\":%d,"
                   "\"tuned_cold\":%d,\"hits_warm\":%d,\"tuned_warm\":%d,"
                   "\"cold_empty_kernel_cache_s\":%.3f,\"cold_s\":%.3f,"
                   "\"warm_s\":%.4f,\"ratio_cold_empty_over_warm\":%.1f,"
                   "\"ratio_cold_over_warm\":%.1f,\"target_ratio\":\">=20\"}",
                   modules.size(), cold_tuned, warm_hits, warm_tuned,
                   cold_empty, cw, w, cold_empty / w, cw / w)
            << std::endl;
  std::cout << absl::StrFormat(
                   "{\"bench\":\"compile_warm_vs_level0\",\"warm_s\":%.4f,"
                   "\"level0_s\":%.4f,\"ratio_warm_over_level0\":%.3f,"
                   "\"target_ratio\":\"<=1.2\",\"reps\":%d}",
                   w, l0, w / l0, reps)
            << std::endl;
}

// A realistic fused text: a gemm with a bias epilogue, shapes from `i`.
std::string SyntheticHlo(int64_t i) {
  int64_t m = 16 + (i % 97) * 8, n = 32 + (i / 97 % 89) * 8,
          k = 64 + (i / 8633) * 16;
  return absl::StrFormat(
      "{\n  tmp_0 = f32[%d,%d]{1,0} parameter(0)\n  tmp_1 = f32[%d,%d]{1,0} "
      "parameter(1)\n  tmp_2 = f32[%d,%d]{1,0} dot(f32[%d,%d]{1,0} tmp_0, "
      "f32[%d,%d]{1,0} tmp_1), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  tmp_3 = f32[%d]{0} parameter(2)\n  tmp_4 = f32[%d,%d]{1,0} "
      "broadcast(f32[%d]{0} tmp_3), dimensions={1}\n  ROOT tmp_5 = "
      "f32[%d,%d]{1,0} "
      "add(f32[%d,%d]{1,0} tmp_2, f32[%d,%d]{1,0} tmp_4)\n}",
      m, k, k, n, m, n, m, k, k, n, n, m, n, n, m, n, m, n, m, n);
}

void CacheFileBench(const std::string& work, int64_t entries, int reps) {
  const std::string device =
      "CPU: AMD EPYC, ISA: avx2, Threads: 2, L2: 512 KiB, L3: 32 MiB";
  xla::AutotuneResults results;
  results.set_version(3);
  for (int64_t i = 0; i < entries; ++i) {
    auto* e = results.add_results();
    e->set_device(device);
    e->set_hlo(SyntheticHlo(i));
    e->set_version(kCodegenVersion);
    auto* g = e->mutable_result()->mutable_cpu_gemm();
    g->set_mc(64);
    g->set_nc(256 + i % 4 * 64);
    g->set_kc(128);
    g->set_mr(6);
    g->set_nr(16);
    g->set_split_k(1);
    g->set_threads(1);
    e->mutable_result()->mutable_run_time()->set_nanos(1000 + i % 100000);
  }
  SortEntries(&results);
  for (bool text : {false, true}) {
    std::string path = work + (text ? "/big.textproto" : "/big.pb");
    std::vector<double> dump, load, bare_dump, bare_load;
    int64_t loaded = 0;
    for (int r = 0; r < reps; ++r) {
      double t0 = Now();
      if (absl::Status s = WriteAutotuneResults(path, results); !s.ok()) {
        std::cerr << s << "\n";
        exit(1);
      }
      dump.push_back(Now() - t0);
      t0 = Now();
      absl::StatusOr<xla::AutotuneResults> read = ReadAutotuneResults(path);
      InMemoryAutotuneCache cache;
      absl::StatusOr<int64_t> n =
          read.ok() ? cache.Load(*read, path, kCodegenVersion) : read.status();
      if (!n.ok()) {
        std::cerr << n.status() << "\n";
        exit(1);
      }
      load.push_back(Now() - t0);
      loaded = *n;
      // Baseline: protobuf alone, no header, check, validation or index.
      t0 = Now();
      std::string bytes;
      if (text) {
        google::protobuf::TextFormat::PrintToString(results, &bytes);
      } else {
        results.SerializeToString(&bytes);
      }
      bare_dump.push_back(Now() - t0);
      t0 = Now();
      xla::AutotuneResults parsed;
      bool ok =
          text ? google::protobuf::TextFormat::ParseFromString(bytes, &parsed)
               : parsed.ParseFromString(bytes);
      bare_load.push_back(Now() - t0);
      if (!ok) exit(1);
    }
    double d = Median(dump), l = Median(load), bd = Median(bare_dump),
           bl = Median(bare_load);
    std::cout
        << absl::StrFormat(
               "{\"bench\":\"cache_file\",\"format\":\"%s\",\"entries\":%d,"
               "\"file_mb\":%.1f,\"dump_s\":%.3f,\"load_s\":%.3f,"
               "\"protobuf_serialize_s\":%.3f,\"protobuf_parse_s\":%.3f,"
               "\"ratio_dump_over_protobuf\":%.2f,"
               "\"ratio_load_over_protobuf\":%.2f,\"target_load_s\":\"%s\"}",
               text ? "text" : "binary", loaded,
               std::filesystem::file_size(path) / 1e6, d, l, bd, bl, d / bd,
               l / bl, text ? "<=5" : "<=1")
        << std::endl;
  }
  // Lookups: keys of stored entries, in a shuffled order.
  InMemoryAutotuneCache cache;
  if (!cache.Load(results, "synthetic", kCodegenVersion).ok()) exit(1);
  std::vector<AutotuneKey> keys;
  std::unordered_map<std::string, int> baseline;
  for (const auto& e : results.results()) {
    keys.push_back(KeyOfEntry(e, kCodegenVersion));
    baseline.emplace(keys.back().ToString(), 1);
  }
  std::mt19937_64 rng(7);
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<std::string> texts;
  for (const AutotuneKey& k : keys) texts.push_back(k.ToString());
  const int64_t lookups = 1000000;
  int64_t found = 0;
  double t0 = Now();
  for (int64_t i = 0; i < lookups; ++i) {
    found += cache.Lookup(keys[i % keys.size()])->has_value();
  }
  double ours = Now() - t0;
  int64_t found_base = 0;
  t0 = Now();
  for (int64_t i = 0; i < lookups; ++i) {
    found_base += baseline.count(texts[i % texts.size()]);
  }
  double base = Now() - t0;
  if (found != lookups || found_base != lookups) exit(1);
  std::cout
      << absl::StrFormat(
             "{\"bench\":\"cache_lookup\",\"entries\":%d,\"lookups\":%d,"
             "\"lookups_per_s\":%.0f,\"unordered_map_lookups_per_s\":%.0f,"
             "\"ratio_vs_unordered_map\":%.2f,\"target_per_s\":\">=1e6\"}",
             keys.size(), lookups, lookups / ours, lookups / base, base / ours)
      << std::endl;
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) {
  int64_t entries = 100000;
  int reps = 5;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only=compile" || a == "--only=files") {
      only = a.substr(7);
      continue;
    }
    if (a.rfind("--entries=", 0) == 0 &&
        absl::SimpleAtoi(a.substr(10), &entries))
      continue;
    if (a.rfind("--reps=", 0) == 0 && absl::SimpleAtoi(a.substr(7), &reps))
      continue;
    std::cerr << "usage: persistent_cache [--entries=N] [--reps=R] "
                 "[--only=compile|files]\n";
    return 1;
  }
  std::string pattern =
      (std::filesystem::temp_directory_path() / "xtune_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::cerr << "cannot create a temporary folder\n";
    return 1;
  }
  if (only != "files") xtune::bench::CompileBench(pattern, reps);
  if (only != "compile")
    xtune::bench::CacheFileBench(pattern, entries, std::max(1, reps / 2));
  std::filesystem::remove_all(pattern);
  return 0;
}
