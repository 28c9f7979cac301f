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
// kernel) with its finalists — the isolated winner, the fastest correct
// candidate of each other (kind, thread count) with no more threads, and
// the other fastest ones within InModuleOptions::finalist_ratio of it, in
// canonical order. A
// ModuleTimer runs the whole module, the contest's fusions cycling through
// its finalists and the other fusions as settled so far (contests in
// InModuleOrder, until the budget is spent), and times each run: the module's time is what counts, with what a kernel leaves behind
// for the next (a helper thread still spinning, a cold cache) included.
// The isolated winner stays unless another makes the module faster by
// more than the noise band (InModuleWinner).
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
  // Before those, the fastest candidate of each other (kind, thread count)
  // within this ratio (no more threads than the winner's: see
  // InModuleWinner; one with fewer, at any ratio): a two-thread winner timed in the fast state of the
  // second core (49 us) ran 90 us in the module, where the best one-thread
  // candidate (76 us isolated) ran 55 us. Default 2.
  double representative_ratio = 2.0;
  // At most this many finalists per contest. Default 4.
  int max_finalists = 4;
  // The module's runs, all contests together: about this much wall time,
  // each contest in `rounds` rounds (their spread is the noise band), each
  // finalist run at least `min_runs` times a round. Contests are settled
  // in InModuleOrder until the budget is spent. Defaults 300 ms
  // (AutotuneOptions::in_module_budget), 3, 4.
  absl::Duration budget = absl::Milliseconds(300);
  int rounds = 3;
  int min_runs = 4;
  // And at most this many a round, however much budget is left: with 40
  // runs a round the module's median already moves by less than the
  // margins below, and a module of two fusions spent its whole 300 ms on
  // blocks of 125 runs. Default 40.
  int max_runs = 40;
  // The noise band's floor (AutotuneOptions::min_noise_band).
  double min_band = 0.02;
  // A finalist replaces the isolated winner only when the module runs
  // faster with it by more than max(2 x band, min_margin). Default 0.02:
  // what the module's run time may differ by between two tunings is 3%; a
  // fusion whose finalists differ less than that in the module keeps what
  // its isolated timings chose. (The same config's own time in the module
  // moves by up to 13% from one process to the next, with where its code
  // and buffers land; measured as the module's time, that is noise below
  // the margin for all but the largest fusions.)
  double min_margin = 0.02;
  // And by more than this share of the isolated winner's own time in the
  // module. Default 0.15: that own time moves by up to 13% from one
  // process to the next (where its code and buffers land), which in a
  // small module is more than 2% of the module.
  double min_own_margin = 0.15;
};

// One fusion to settle in the module.
struct InModuleContest {
  // The fusions that run this kernel (a key group's members); the first
  // is the one the finalists were tuned on.
  std::vector<const Instruction*> fusions;
  const KeyGroup* group = nullptr;      // their key group (cache key, members)
  std::vector<KernelConfig> finalists;  // canonical order, >= 2
  std::vector<int64_t> threads;          // Backend::HostThreads of each
  std::vector<double> isolated_medians;  // one per finalist
  std::vector<std::vector<double>> isolated_seconds;  // their timed runs
  int isolated_winner = 0;               // index into finalists
  xla::AutotuneResult stored;  // what ChooseAndRecord stored for the key
  size_t log = 0;              // index into TuningResult::logs
};

// The contest of a tuned trial whose winner is `winner` (an index into
// trial.configs), or nullopt when no other correct candidate with no more
// threads than the winner is near it (see InModuleOptions).
std::optional<InModuleContest> ContestOf(const Backend& backend,
                                         const Trial& trial, int winner,
                                         const InModuleOptions& options);

// What a ModuleTimer measured for one contest.
struct InModuleTiming {
  // Per finalist: the module's run time, one per run, and each round's
  // score. Empty when nothing was timed (the budget is spent).
  std::vector<Timed> module;
  // Per finalist: the median time of the contest's own fusions in those
  // runs.
  std::vector<double> own;
};

// Runs the tuned module and times it with one fusion's finalists in turn
// (autotune/executable_timer.h: the backend's Executable; tests script
// it). Contests are settled one after the other, each with the others'
// fusions as settled so far: whether a kernel's threads pay off depends on
// what its neighbours leave running.
class ModuleTimer {
 public:
  virtual ~ModuleTimer() = default;
  // Prepares the module: every fusion with `configs`. Errors: the module
  // cannot be built or run.
  virtual absl::Status Start(
      const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
      const InModuleOptions& options) = 0;
  // The module's run time (every fusion as it is now) with each finalist
  // of `contest` in turn, and its fusions' own. `contests_left` (this one
  // included) share what is left of the options' budget; nothing is timed
  // once it is spent (the contest keeps its isolated winner). Errors: a
  // finalist does not compile, a run fails.
  virtual absl::StatusOr<InModuleTiming> Time(const InModuleContest& contest,
                                              int contests_left) = 0;
  // `contest`'s fusions run its finalist `index` from now on. Errors: the
  // finalist's kernel cannot be had (then nothing changed).
  virtual absl::Status Keep(const InModuleContest& contest, int index) = 0;
  // Releases what Start() built (the module's copies); Start() again
  // before more timing. Default: nothing to release.
  virtual void Finish() {}
};

// The least wall time timing two finalists takes on a module that runs
// `run_seconds` (options.min_runs runs each, options.rounds rounds): what
// a module must allow within the budget to be re-timed at all.
double MinimumInModuleSeconds(double run_seconds, const InModuleOptions& options);

// The phase itself, after the last fusion of Autotuner::Tune: starts
// `timer` on `result`'s configs (unless the isolated medians, summed,
// already exceed what the budget allows), times the contests in
// InModuleOrder until the budget is spent, and where InModuleWinner picks
// another finalist keeps it in the timer, in `result` (every member of the
// group, its log) and in `cache` (the stored entry with the new config, its
// isolated median and, with provenance, the module's times). Counts
// result->stats.in_module*. A timer that fails to start or to keep a
// finalist ends the phase with a warning, one that fails a contest skips
// it (the isolated choices are in the cache already); errors only from the
// backend's codec and the cache's Insert.
absl::Status SettleInModule(const Backend& backend, AutotuneCache& cache,
                            ModuleTimer& timer,
                            std::vector<InModuleContest>& contests,
                            const InModuleOptions& options, TuningResult* result);

// The order in which `contests` are timed (indices): winners with more
// threads first (a second thread's worth changes over seconds on a shared
// machine, so their isolated timings are the least to be trusted), then by
// the isolated winner's median, slowest first (the most the module has at
// stake), ties in entry order.
std::vector<size_t> InModuleOrder(const std::vector<InModuleContest>& contests);

// The in-module winner of `contest` from the module's run times with each
// finalist (`timed`, the timer's): the isolated winner, unless finalists
// with no more threads than it make the module faster by more than
// max(2 x the noise band, min_margin) of the module's time (the band is
// SelectWinner's over all finalists, with options.min_band) and by more
// than options.min_own_margin of the isolated winner's own time in the
// module, or finalists with fewer threads leave the module no slower than
// the noise band; then the winner among those (SelectWinner: the first
// within the band of the best, in canonical order).
//
// Never more threads: what a second thread is worth changes over seconds
// on a shared machine (a two-thread gemm ran 24 or 47 us against 33 us on
// one thread, minutes apart), so a move to more threads needs both timings
// to agree (the isolated ones chose it), while fewer threads, whose time
// does not depend on a second core, win unless the module runs measurably
// slower with them (a 2 us reduction's second thread is below what a
// module run resolves; left to the isolated timings, two tunings disagreed
// on it). An incumbent that holds within the margins keeps the isolated
// timings' evidence: ties do not move to the canonical first, which one
// tuning's timing puts in the band and the next does not. The isolated
// winner when `timed` is empty. `band` (when non-null) receives the noise
// band (0 without timing).
int InModuleWinner(const InModuleContest& contest, const InModuleTiming& timed,
                   const InModuleOptions& options, double* band);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_IN_MODULE_H_
