#include "autotune/verify_cached.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/mutex.h"
#include "util/status_macros.h"

namespace xtune {
namespace {

// (key, config) pairs verified in this process.
Mutex verified_mu;
std::set<std::pair<std::string, std::string>>& Verified() ABSL_EXCLUSIVE_LOCKS_REQUIRED(verified_mu) {
  static auto* verified = new std::set<std::pair<std::string, std::string>>();
  return *verified;
}

}  // namespace

absl::Status VerifyCachedConfig(Backend& backend, Profiler& profiler,
                                const AutotuneOptions& options, const KeyGroup& group,
                                const KernelConfig& config) {
  if (!backend.CanRunKernels() || backend.ChecksOnly()) {
    return absl::UnimplementedError(absl::StrCat(
        "the ", backend.name(), " backend cannot run kernels here to verify cached configs"));
  }
  const std::pair<std::string, std::string> id = {group.key.ToString(), config.ToString()};
  {
    MutexLock lock(&verified_mu);
    if (Verified().contains(id)) return absl::OkStatus();
  }
  // Deterministic pseudo-random inputs, compared as level 4 compares.
  AutotuneOptions check = options;
  check.level = 4;
  check.crash_on_verification_failures = false;
  Trial trial = MakeTrial(backend, group, {config}, check.level);
  CompileTrials(backend, absl::MakeSpan(&trial, 1), 1, [](int64_t, int64_t) {});
  if (!trial.kernels[0].ok()) {
    if (trial.kernels[0].status().code() == absl::StatusCode::kUnimplemented) {
      return absl::OkStatus();  // the evaluator computes it: nothing to check
    }
    return absl::FailedPreconditionError(
        absl::StrCat("it does not compile: ", trial.kernels[0].status().message()));
  }
  std::vector<Kernel*> session = {trial.kernels[0]->get()};
  XTUNE_RETURN_IF_ERROR(
      profiler.BeginFusion(session, trial.inputs, group.first->shape()));
  ProfileOptions once;
  once.min_repetitions = once.max_repetitions = 1;
  once.time_budget = absl::ZeroDuration();
  once.timeout = options.candidate_timeout;
  TuningStats stats;
  absl::Status ran = TimeRounds(profiler, trial, once, 1, false, options.min_noise_band, &stats,
                                [] {});
  if (ran.ok()) ran = VerifyTrial(backend, check, trial, &stats);
  profiler.EndFusion();
  XTUNE_RETURN_IF_ERROR(ran);
  if (trial.failed[0]) {
    return absl::FailedPreconditionError(
        absl::StrCat("it failed to run: ", trial.log.candidates[0].message));
  }
  if (trial.wrong[0]) {
    return absl::FailedPreconditionError(
        absl::StrCat("its output is wrong: ", trial.log.candidates[0].message));
  }
  MutexLock lock(&verified_mu);
  Verified().insert(id);
  return absl::OkStatus();
}

}  // namespace xtune
