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

absl::Status ExecutableModuleTimer::Start(
    const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
    const InModuleOptions& options) {
  in_module_ = options;
  exes_.clear();
  kept_.clear();
  index_of_.clear();
  spent_seconds_ = 0;
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
  // One executable per round, each kept while the next is built, so that
  // every round runs on buffers of its own: where a process's buffers land
  // in the caches moves a kernel's time from one process to the next, and
  // the module that ships runs in another process. Fewer when their
  // buffers would take more than kMaxBytes.
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Module> copy, fused_copy_());
  int64_t bytes = 0;
  for (const auto& inst : copy->entry()->instructions()) {
    if (inst->shape().IsArray()) bytes += inst->shape().ByteSize();
  }
  constexpr int64_t kMaxBytes = int64_t{1} << 30;
  const int copies = static_cast<int>(std::clamp<int64_t>(
      kMaxBytes / std::max<int64_t>(bytes, 1), 1, std::max(1, options.rounds)));
  XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> first_exe,
                         Executable::Create(std::move(copy), backend_, choose,
                                            options_));
  exes_.push_back(std::move(first_exe));
  const Executable& first = *exes_.front();
  for (size_t i = 0; i < first.fusions().size(); ++i) {
    index_of_[first.fusions()[i].fusion->name()] = i;
  }
  args_ = RandomArguments(first.module(), kDefaultInputSeed);
  probe_.substitute.assign(first.fusions().size(), nullptr);
  probe_.timed.assign(first.fusions().size(), false);
  // Two warm-up runs (first touches of the buffers, the thread pool); the
  // second says how long a run takes. A module too slow to time two
  // finalists within the budget goes no further.
  for (int warm = 0; warm < 2; ++warm) {
    XTUNE_ASSIGN_OR_RETURN(run_seconds_, RunOnce(0));
  }
  if (MinimumInModuleSeconds(run_seconds_, options) >
      absl::ToDoubleSeconds(options.budget)) {
    return absl::OkStatus();  // Time() answers with nothing
  }
  for (int r = 1; r < copies; ++r) {
    XTUNE_ASSIGN_OR_RETURN(copy, fused_copy_());
    XTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> e,
                           Executable::Create(std::move(copy), backend_, choose,
                                              options_));
    exes_.push_back(std::move(e));
    for (int warm = 0; warm < 2; ++warm) {
      XTUNE_RETURN_IF_ERROR(RunOnce(exes_.size() - 1).status());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<double> ExecutableModuleTimer::RunOnce(size_t e) {
  const auto start = std::chrono::steady_clock::now();
  XTUNE_RETURN_IF_ERROR(exes_[e]->Run(args_, &probe_).status());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

absl::StatusOr<std::vector<size_t>> ExecutableModuleTimer::Members(
    const InModuleContest& contest) const {
  std::vector<size_t> members;
  for (const Instruction* f : contest.fusions) {
    auto it = index_of_.find(f->name());
    if (it == index_of_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("fusion '", f->name(), "' is not in the module's copy"));
    }
    members.push_back(it->second);
  }
  if (members.empty() || exes_.front()->fusions()[members.front()].kernel == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fusion '", contest.fusions.empty() ? "" : contest.fusions.front()->name(),
        "' has no kernel in the module"));
  }
  return members;
}

absl::StatusOr<InModuleTiming> ExecutableModuleTimer::Time(
    const InModuleContest& contest, int contests_left) {
  if (exes_.empty()) return absl::FailedPreconditionError("Start() first");
  XTUNE_ASSIGN_OR_RETURN(std::vector<size_t> members, Members(contest));
  const size_t k = contest.finalists.size();
  const int rounds = std::max(1, in_module_.rounds);
  const int64_t least = static_cast<int64_t>(std::max(1, in_module_.min_runs)) *
                        static_cast<int64_t>(k);
  const double budget = absl::ToDoubleSeconds(in_module_.budget);
  if (spent_seconds_ + run_seconds_ * least * rounds > budget) {
    return InModuleTiming();
  }
  // Each finalist's kernel; the one running now (a config kept earlier or
  // the chosen one) is swapped back in afterwards.
  const CompiledFusion& first = exes_.front()->fusions()[members.front()];
  Kernel* const now = probe_.substitute[members.front()];
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (const KernelConfig& finalist : contest.finalists) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        backend_->Compile(*first.fusion, finalist);
    if (!kernel.ok()) {
      return absl::Status(kernel.status().code(),
                          absl::StrCat("fusion '", first.fusion->name(),
                                       "' with ", finalist.ToString(), ": ",
                                       kernel.status().message()));
    }
    kernels.push_back(std::move(*kernel));
  }
  // Runs per round: this contest's share of what is left of the budget,
  // at least `least`, at most max_runs a finalist.
  const double share = (budget - spent_seconds_) / std::max(1, contests_left) /
                       rounds / std::max(run_seconds_, 1e-7);
  const int64_t most = std::max<int64_t>(
      least, static_cast<int64_t>(std::max(1, in_module_.max_runs)) *
                 static_cast<int64_t>(k));
  const int64_t per_round = static_cast<int64_t>(std::clamp<double>(
      share, static_cast<double>(least), static_cast<double>(most)));
  std::vector<Timed> timed(k);
  std::vector<std::vector<double>> own(k);
  probe_.timed.assign(probe_.substitute.size(), false);
  for (size_t i : members) probe_.timed[i] = true;
  const auto start = std::chrono::steady_clock::now();
  absl::Status failed;
  // Each round runs every finalist as a block of consecutive module runs
  // (one untimed first), each round starting from another finalist. Blocks,
  // not one run each in turn: a module runs its kernels again and again,
  // and a two-thread kernel whose helper thread was just put to sleep by a
  // one-thread neighbour's run measured as slow as one thread (86 us
  // against 85 us), where the module run over and over with it ran 65 us
  // against 83 us.
  const int64_t block = std::max<int64_t>(1, per_round / static_cast<int64_t>(k));
  for (int round = 0; round < rounds && failed.ok(); ++round) {
    std::vector<std::vector<double>> samples(k);
    for (size_t b = 0; b < k && failed.ok(); ++b) {
      const size_t pick = (b + static_cast<size_t>(round)) % k;
      for (size_t i : members) probe_.substitute[i] = kernels[pick].get();
      for (int64_t run = -1; run < block; ++run) {
        absl::StatusOr<double> s = RunOnce(round % exes_.size());
        if (!s.ok()) {
          failed = s.status();
          break;
        }
        if (run < 0) continue;  // the block's first run settles the threads
        samples[pick].push_back(*s);
        double mine = 0;
        for (size_t i : members) mine += probe_.seconds[i];
        own[pick].push_back(mine);
      }
    }
    for (size_t j = 0; j < k && failed.ok(); ++j) {
      timed[j].seconds.insert(timed[j].seconds.end(), samples[j].begin(),
                              samples[j].end());
      timed[j].round_scores.push_back(Score(samples[j]));
    }
  }
  for (size_t i : members) probe_.substitute[i] = now;
  probe_.timed.assign(probe_.substitute.size(), false);
  spent_seconds_ += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  XTUNE_RETURN_IF_ERROR(failed);
  // Kept for Keep(), which then needs no compile of its own.
  timed_fusion_ = first.fusion->name();
  timed_finalists_ = contest.finalists;
  timed_kernels_ = std::move(kernels);
  InModuleTiming timing;
  timing.module = std::move(timed);
  for (std::vector<double>& o : own) timing.own.push_back(Median(std::move(o)));
  return timing;
}

absl::Status ExecutableModuleTimer::Keep(const InModuleContest& contest,
                                         int index) {
  if (exes_.empty()) return absl::FailedPreconditionError("Start() first");
  if (index < 0 || index >= static_cast<int>(contest.finalists.size())) {
    return absl::InvalidArgumentError("no such finalist");
  }
  XTUNE_ASSIGN_OR_RETURN(std::vector<size_t> members, Members(contest));
  const CompiledFusion& first = exes_.front()->fusions()[members.front()];
  std::unique_ptr<Kernel> kernel;
  if (timed_fusion_ == first.fusion->name() &&
      timed_finalists_ == contest.finalists && timed_kernels_[index] != nullptr) {
    kernel = std::move(timed_kernels_[index]);  // the one Time() ran
  } else {
    XTUNE_ASSIGN_OR_RETURN(kernel,
                           backend_->Compile(*first.fusion, contest.finalists[index]));
  }
  kept_.push_back(std::move(kernel));
  for (size_t i : members) probe_.substitute[i] = kept_.back().get();
  return absl::OkStatus();
}

void ExecutableModuleTimer::Finish() {
  probe_ = RunProbe();
  timed_kernels_.clear();
  timed_finalists_.clear();
  timed_fusion_.clear();
  kept_.clear();
  exes_.clear();
  args_.clear();
  index_of_.clear();
}

}  // namespace xtune
