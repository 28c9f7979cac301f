// In-module timing, the last phase of a tune: the fusions tuned in this
// compile whose finalists are close are re-timed where they will run —
// inside the running module, between the fusions before and after them —
// and keep the config that is fastest there.
//
// Why: a candidate's isolated timing (its kernel alone in a worker, the
// caches flushed before each run) does not always predict what the fusion
// costs in the module. A two-thread kernel pays for waking a second core
// that the module's previous kernel has just used (or not); a cold-cache
// median misses that the module's previous fusion left the inputs in the
// cache. Two isolated tunings then disagree on such fusions, and the
// module runs slower with one tuning's configs than with the other's.
//
// How: a contest is a tuned fusion (its group's members run the same
// kernel) with its finalists — the isolated winner and the correct
// candidates within InModuleOptions::finalist_ratio of it, in canonical
// order. A ModuleTimer runs the whole module (every fusion with its chosen
// config) in rounds, every contest cycling through its finalists, and
// records each finalist's run time where it ran. The isolated winner stays
// unless others beat it there by more than the noise band
// (InModuleWinners).
#ifndef XTUNE_AUTOTUNE_IN_MODULE_H_
#define XTUNE_AUTOTUNE_IN_MODULE_H_

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "autotune/phases.h"
#include "autotune/selection.h"
#include "cache/autotune_results.pb.h"
#include "codegen/kernel_config.h"
#include "ir/instruction.h"

namespace xtune {

struct InModuleOptions {
  // Candidates within this ratio of the isolated winner's median are
  // finalists. Default 1.5: a two-thread kernel measured 24 or 47 us, one
  // thread 33 us, on a VM whose second core is slow to wake.
  double finalist_ratio = 1.5;
  // At most this many finalists per contest (the fastest). Default 4.
  int max_finalists = 4;
  // The module's runs, all contests together: about this much wall time,
  // in `rounds` rounds (their spread is the noise band), each finalist
  // timed at least `min_runs` times a round. A module too slow for that
  // within 4x the budget is not re-timed. Defaults 300 ms, 3, 5.
  absl::Duration budget = absl::Milliseconds(300);
  int rounds = 3;
  int min_runs = 5;
  // The noise band's floor (AutotuneOptions::min_noise_band).
  double min_band = 0.02;
};

// One fusion to settle in the module.
struct InModuleContest {
  // The fusions that run this kernel (a key group's members); the first
  // is the one the finalists were tuned on.
  std::vector<const Instruction*> fusions;
  std::vector<KernelConfig> finalists;  // canonical order, >= 2
  std::vector<double> isolated_medians;  // one per finalist
  int isolated_winner = 0;               // index into finalists
  xla::AutotuneResult stored;  // what ChooseAndRecord stored for the key
  size_t log = 0;              // index into TuningResult::logs
};

// The contest of a tuned trial whose winner is `winner` (an index into
// trial.configs), or nullopt when no other correct candidate is within
// options.finalist_ratio of it.
std::optional<InModuleContest> ContestOf(const Trial& trial, int winner,
                                         const InModuleOptions& options);

// Runs a module and times fusions where they run (autotune/
// executable_timer.h: the backend's Executable; tests script it).
class ModuleTimer {
 public:
  virtual ~ModuleTimer() = default;
  // Every fusion of the tuned module runs with `configs`, except that each
  // contest's fusions run each of its finalists in turn. Returns per
  // contest, per finalist, its run times (summed over the contest's
  // fusions, one per module run) and the score of each round. An empty
  // result when the module is too slow to re-time within the budget.
  // Errors: the module cannot be built or run (a finalist fails to
  // compile, a run fails).
  virtual absl::StatusOr<std::vector<std::vector<Timed>>> Time(
      const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
      const std::vector<InModuleContest>& contests,
      const InModuleOptions& options) = 0;
};

// The in-module winner of each contest from the timer's `timed` (index
// into its finalists): the isolated winner, unless finalists beat it in the
// module by more than the noise band (SelectWinner's, over all finalists);
// then the winner among those (SelectWinner: the first within the band of
// the best, in canonical order). An incumbent that holds within the band
// keeps the isolated timings' evidence: ties do not move to the canonical
// first, which one tuning's in-module timing puts in the band and the next
// does not. The isolated winner when a contest has no timing. `bands`
// (when non-null) receives each contest's noise band (0 without timing).
std::vector<int> InModuleWinners(const std::vector<InModuleContest>& contests,
                                 const std::vector<std::vector<Timed>>& timed,
                                 double min_band, std::vector<double>* bands);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_IN_MODULE_H_
