#include "autotune/executable_timer.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/random_inputs.h"
#include "util/status_macros.h"

namespace xtune {

ExecutableModuleTimer::ExecutableModuleTimer(
    Backend* backend,
    std::function<absl::StatusOr<std::unique_ptr<Module>>()> fused_copy,
    ExecutableOptions options)
    : backend_(backend),
      fused_copy_(std::move(fused_copy)),
      options_(options) {}

absl::StatusOr<std::vector<std::vector<Timed>>> ExecutableModuleTimer::Time(
    const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
    const std::vector<InModuleContest>& contests,
    const InModuleOptions& options) {
  absl::flat_hash_map<std::string, KernelConfig> by_name;
  for (const auto& [fusion, config] : configs) by_name[fusion->name()] = config;
  ConfigChooser choose =
      [&by_name](const Instruction& f) -> absl::StatusOr<KernelConfig> {
    auto it = by_name.find(f.name());
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(
          "the module's copy has a fusion the tuned module lacks");
    }
    return it->second;
  };
  // One executable per round, each kept alive while the next is built, so
  // that every round runs on buffers of its own: where a process's buffers
  // land in the caches moves a kernel's time by up to 25% between
  // processes, and the final module runs in another process.
  const int rounds = std::max(1, options.rounds);
  std::vector<std::unique_ptr<Executable>> exes;
  for (int r = 0; r < rounds; ++r) {
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> copy, fused_copy_());
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> e,
                           Executable::Create(std::move(copy), backend_, choose,
                                              options_));
    exes.push_back(std::move(e));
  }
  Executable* exe = exes.front().get();
  absl::flat_hash_map<std::string, size_t> index_of;
  for (size_t i = 0; i < exe->fusions().size(); ++i) {
    index_of[exe->fusions()[i].fusion->name()] = i;
  }
  // Per contest: the executable's indices of its fusions, and a kernel per
  // finalist (null: the one the executable runs, the chosen config).
  std::vector<std::vector<size_t>> members(contests.size());
  std::vector<std::vector<std::unique_ptr<Kernel>>> kernels(contests.size());
  size_t most = 1;
  for (size_t c = 0; c < contests.size(); ++c) {
    for (const Instruction* f : contests[c].fusions) {
      auto it = index_of.find(f->name());
      if (it == index_of.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fusion '", f->name(), "' is not in the module's copy"));
      }
      members[c].push_back(it->second);
    }
    const CompiledFusion& first = exe->fusions()[members[c].front()];
    if (first.kernel == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fusion '", first.fusion->name(), "' runs on the evaluator"));
    }
    for (const KernelConfig& finalist : contests[c].finalists) {
      if (finalist == first.config) {
        kernels[c].push_back(nullptr);
        continue;
      }
      absl::StatusOr<std::unique_ptr<Kernel>> k =
          backend_->Compile(*first.fusion, finalist);
      if (!k.ok()) {
        return absl::Status(k.status().code(),
                            absl::StrCat("fusion '", first.fusion->name(),
                                         "' with ", finalist.ToString(), ": ",
                                         k.status().message()));
      }
      kernels[c].push_back(std::move(*k));
    }
    most = std::max(most, contests[c].finalists.size());
  }
  const std::vector<Literal> args =
      RandomArguments(exe->module(), kDefaultInputSeed);
  RunProbe probe;
  probe.substitute.assign(exe->fusions().size(), nullptr);
  probe.timed.assign(exe->fusions().size(), false);
  for (const auto& m : members) {
    for (size_t i : m) probe.timed[i] = true;
  }
  // Two warm-up runs (first touches of the buffers, the thread pool); the
  // second says how long a run takes.
  double run_seconds = 0;
  for (int warm = 0; warm < 2; ++warm) {
    const auto start = std::chrono::steady_clock::now();
    XTUNE_RETURN_IF_ERROR(exes[warm % exes.size()]->Run(args, &probe).status());
    run_seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  }
  const int64_t least = static_cast<int64_t>(std::max(1, options.min_runs)) *
                        static_cast<int64_t>(most);
  const double budget = absl::ToDoubleSeconds(options.budget);
  if (run_seconds * least * rounds > 4 * budget) return std::vector<std::vector<Timed>>();
  const int64_t per_round = std::max<int64_t>(
      least, std::min<int64_t>(static_cast<int64_t>(budget / rounds /
                                                    std::max(run_seconds, 1e-7)),
                               least * 40));
  std::vector<std::vector<Timed>> timed(contests.size());
  for (size_t c = 0; c < contests.size(); ++c) {
    timed[c].resize(contests[c].finalists.size());
  }
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::vector<std::vector<double>>> samples(contests.size());
    for (size_t c = 0; c < contests.size(); ++c) {
      samples[c].resize(contests[c].finalists.size());
    }
    for (int64_t run = 0; run < per_round; ++run) {
      // Contest c runs finalist (run + c) mod k: every finalist of every
      // contest in turn, with different neighbours' finalists.
      std::vector<size_t> pick(contests.size());
      for (size_t c = 0; c < contests.size(); ++c) {
        pick[c] = static_cast<size_t>(run + c) % contests[c].finalists.size();
        for (size_t i : members[c]) probe.substitute[i] = kernels[c][pick[c]].get();
      }
      XTUNE_RETURN_IF_ERROR(exes[round]->Run(args, &probe).status());
      for (size_t c = 0; c < contests.size(); ++c) {
        double s = 0;
        for (size_t i : members[c]) s += probe.seconds[i];
        samples[c][pick[c]].push_back(s);
      }
    }
    for (size_t c = 0; c < contests.size(); ++c) {
      for (size_t j = 0; j < samples[c].size(); ++j) {
        Timed& t = timed[c][j];
        t.seconds.insert(t.seconds.end(), samples[c][j].begin(),
                         samples[c][j].end());
        t.round_scores.push_back(Score(samples[c][j]));
      }
    }
  }
  return timed;
}

}  // namespace xtune
