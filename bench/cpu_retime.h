// Re-timing CPU kernels side by side, shared by the benchmarks that check
// the autotuner's choices (autotune_quality, tuning_cost).
#ifndef XTUNE_BENCH_CPU_RETIME_H_
#define XTUNE_BENCH_CPU_RETIME_H_

#include <cmath>
#include <memory>
#include <vector>

#include "autotune/selection.h"
#include "autotune/tuning_log.h"
#include "codegen/cpu/cpu_backend.h"
#include "codegen/cpu/cpu_profiler.h"
#include "runtime/random_inputs.h"

namespace xtune::bench {

// Re-times `configs` side by side: one worker, a warm-up round and 8
// interleaved rounds of 30 ms each, so that every config sees the same
// memory placement and the same drifts of the machine. Returns each config's score (the median of its
// cold-cache runs, as the autotuner compares), +inf for one that fails.
inline std::vector<double> Retime(cpu::CpuBackend& cpu, const Instruction& f,
                           const std::vector<KernelConfig>& configs) {
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::vector<Kernel*> session;
  for (const KernelConfig& c : configs) {
    absl::StatusOr<std::unique_ptr<Kernel>> k = cpu.Compile(f, c);
    kernels.push_back(k.ok() ? std::move(*k) : nullptr);
    session.push_back(kernels.back().get());
  }
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < f.operand_count(); ++i) {
    inputs.push_back(RandomLiteral(f.operand(i)->shape(), 1000 + i));
  }
  cpu::CpuProfiler profiler("", cpu.device().threads, cpu.FlushBytes());
  std::vector<double> scores(configs.size(), INFINITY);
  if (!profiler.BeginFusion(session, inputs, f.shape()).ok()) return scores;
  ProfileOptions o;
  o.min_repetitions = 5;
  o.max_repetitions = 1000;
  o.time_budget = absl::Milliseconds(30);
  o.flush_bytes = 1;
  std::vector<std::vector<double>> samples(configs.size());
  std::vector<bool> failed(configs.size(), false);
  // Round 0 only warms up (the worker's first runs of each kernel: page
  // faults, the thread pool, frequency); its samples are dropped.
  for (int round = 0; round < 9; ++round) {
    for (size_t i = 0; i < configs.size(); ++i) {
      if (kernels[i] == nullptr || failed[i]) continue;
      absl::StatusOr<ProfileResult> r =
          profiler.Profile(*kernels[i], configs[i], inputs, f.shape(), o);
      if (!r.ok()) {
        failed[i] = true;
        continue;
      }
      if (round == 0) continue;
      samples[i].insert(samples[i].end(), r->seconds.begin(), r->seconds.end());
    }
  }
  profiler.EndFusion();
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!failed[i] && !samples[i].empty()) scores[i] = Score(samples[i]);
  }
  return scores;
}

// The configs of `log`'s timed candidates that did not fail, fastest
// (by Score) first, ties in canonical order.
inline std::vector<KernelConfig> RankedByScore(const FusionLog& log) {
  std::vector<std::pair<double, KernelConfig>> ranked;
  for (const CandidateLog& c : log.candidates) {
    if (c.failure == FailureKind::kNone && !c.seconds.empty()) {
      ranked.push_back({Score(c.seconds), c.config});
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<KernelConfig> out;
  for (auto& [score, config] : ranked) out.push_back(std::move(config));
  return out;
}

}  // namespace xtune::bench

#endif  // XTUNE_BENCH_CPU_RETIME_H_
