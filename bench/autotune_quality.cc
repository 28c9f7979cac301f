// Benchmark of the autotuner's choices on the example models, in one run:
//
//  - stability: the same tuning (default search space, fresh in-memory
//    cache) repeated 5 times; how many distinct winners each fusion gets.
//  - quality: the winner of the default space against the default config
//    and, for gemm fusions, against the winner of the exhaustive space, all
//    re-timed here with a longer budget (median of cold-cache runs).
//
// Times are medians of cold-cache runs, in microseconds. Prints one JSON line per fusion and measurement.
// Usage: autotune_quality [examples_dir]   (default: ../examples next to the
// source tree, from XTUNE_SOURCE_DIR)
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autotune/autotuner.h"
#include "autotune/executable_timer.h"
#include "codegen/cpu/cpu_profiler.h"
#include "autotune/selection.h"
#include "codegen/cpu/cpu_backend.h"
#include "fusion/fusion_pass.h"
#include "ir/parser.h"
#include "bench/cpu_retime.h"
#include "runtime/random_inputs.h"

namespace xtune::bench {
namespace {

AutotuneOptions Quiet(const cpu::CpuBackend& cpu) {
  AutotuneOptions o;
  o.print_summary = false;
  o.flush_bytes = cpu.device().l3_bytes * 3 / 2;
  return o;
}

int Main(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<cpu::CpuBackend>> backend = cpu::CpuBackend::Create();
  if (!backend.ok()) {
    std::cerr << backend.status() << "\n";
    return 1;
  }
  cpu::CpuBackend& cpu = **backend;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".hlo") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    std::string name = std::filesystem::path(file).stem().string();
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(file);
    if (!m.ok()) return 1;
    absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
    if (!fused.ok()) return 1;
    // Stability: five independent tunings.
    std::map<std::string, std::vector<std::string>> winners;
    std::map<std::string, const Instruction*> fusion_of;
    for (int run = 0; run < 5; ++run) {
      InMemoryAutotuneCache cache;
      cpu::CpuProfiler profiler("", cpu.device().threads, cpu.FlushBytes());
      Autotuner tuner(&cpu, &cache, &profiler, Quiet(cpu));
      // As the compiler tunes: close finalists re-timed in the module.
      ExecutableModuleTimer timer(&cpu, [&m] { return FuseModule(**m); });
      tuner.SetModuleTimer(&timer);
      absl::StatusOr<TuningResult> r = tuner.Tune(**fused);
      if (!r.ok()) {
        std::cerr << r.status() << "\n";
        return 1;
      }
      for (const FusionTuning& ft : r->fusions) {
        winners[ft.fusion->name()].push_back(ft.config.ToString());
        fusion_of[ft.fusion->name()] = ft.fusion;
      }
    }
    for (const auto& [fusion, w] : winners) {
      std::set<std::string> distinct(w.begin(), w.end());
      std::string others;
      for (const std::string& d : distinct) {
        if (d != w[0]) absl::StrAppend(&others, others.empty() ? "" : ",", "\"", d, "\"");
      }
      std::cout << absl::StrFormat(
                       "{\"bench\":\"autotune_stability\",\"module\":\"%s\","
                       "\"fusion\":\"%s\",\"runs\":5,\"distinct_winners\":%d,"
                       "\"winner\":\"%s\",\"others\":[%s]}",
                       name, fusion, distinct.size(), w[0], others)
                << std::endl;
    }
    // Quality: the first run's winner against the default and, for gemms,
    // against the exhaustive search's winner.
    for (const auto& [fusion, w] : winners) {
      const Instruction& f = *fusion_of[fusion];
      KernelConfig chosen;
      for (const KernelConfig& c : cpu.Candidates(f, false)) {
        if (c.ToString() == w[0]) chosen = c;
      }
      KernelConfig def = cpu.DefaultConfig(f);
      // Candidates to re-time together: the chosen config, the default and,
      // for gemms, the exhaustive search's winner and the five it scored
      // best.
      std::vector<KernelConfig> configs = {chosen, def};
      int64_t exhaustive_candidates = 0;
      if (ClassifyFusion(f) == FusionKind::kGemm) {
        InMemoryAutotuneCache cache;
        cpu::CpuProfiler profiler("", cpu.device().threads, cpu.FlushBytes());
        AutotuneOptions o = Quiet(cpu);
        o.exhaustive = true;
        o.time_budget = absl::Milliseconds(10);
        Autotuner tuner(&cpu, &cache, &profiler, o);
        absl::StatusOr<TuningResult> r = tuner.Tune(**fused);
        if (r.ok()) {
          configs.push_back(r->configs.at(&f));
          exhaustive_candidates = static_cast<int64_t>(cpu.Candidates(f, true).size());
          for (const FusionLog& log : r->logs) {
            if (log.fusion != f.name()) continue;
            std::vector<KernelConfig> ranked = RankedByScore(log);
            for (size_t i = 0; i < ranked.size() && i < 5; ++i) {
              configs.push_back(ranked[i]);
            }
          }
        }
      }
      std::vector<double> t = Retime(cpu, f, configs);
      double t_chosen = t[0], t_default = t[1];
      std::string extra;
      if (configs.size() > 2) {
        size_t best = 2;
        for (size_t i = 2; i < configs.size(); ++i) {
          if (t[i] < t[best]) best = i;
        }
        extra = absl::StrFormat(
            ",\"exhaustive_candidates\":%d,\"exhaustive_best_us\":%.2f,"
            "\"chosen_vs_exhaustive\":%.3f,\"exhaustive_best\":\"%s\"",
            exhaustive_candidates, t[best] * 1e6, t_chosen / t[best],
            configs[best].ToString());
      }
      std::cout << absl::StrFormat(
                       "{\"bench\":\"autotune_quality\",\"module\":\"%s\","
                       "\"fusion\":\"%s\",\"kind\":\"%s\",\"chosen_us\":%.2f,"
                       "\"default_us\":%.2f,\"chosen_vs_default\":%.3f%s}",
                       name, fusion, FusionKindName(ClassifyFusion(f)),
                       t_chosen * 1e6, t_default * 1e6, t_chosen / t_default,
                       extra)
                << std::endl;
    }
  }
  return 0;
}

}  // namespace
}  // namespace xtune::bench

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : std::string(XTUNE_SOURCE_DIR) + "/examples";
  return xtune::bench::Main(dir);
}
