// The phases of Autotuner::Tune, each a function of its inputs, tested on
// its own (phases_test.cc). In order:
//   1. GroupFusions     fusions by cache key (identical ones tuned once)
//   2. Decide           per group: override, default, cache hit, missing
//                       (require-complete) or tune
//   3. TuningCandidates the configs to try (library fallback, default in)
//   3b. PruneTrial      the cost model drops the predicted-hopeless ones
//   4. CompileTrials    every candidate of the trials, on a thread pool
//   5. TimeRounds       interleaved timing rounds in the profiler
//   6. VerifyTrial      outputs against the reference (library or evaluator)
//   7. TimeFinalists    more rounds for the candidates near the best
//   8. ChooseAndRecord  the winner, into the cache
//   9. (autotune/in_module.h) close finalists re-timed in the running
//      module, the cache entry replaced when another wins there
// The driver (autotuner.cc) only sequences them and keeps the counts.
#ifndef XTUNE_AUTOTUNE_PHASES_H_
#define XTUNE_AUTOTUNE_PHASES_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "autotune/cost_model.h"
#include "autotune/options.h"
#include "autotune/selection.h"
#include "autotune/tuning_result.h"
#include "cache/autotune_cache.h"
#include "codegen/backend.h"
#include "codegen/profiler.h"
#include "ir/literal.h"
#include "ir/module.h"

namespace xtune {

// The `hlo` of a fusion's cache key: its fused computation's canonical text
// (ir/printer.h) or, for XLA's library calls (ir/library_call.h), the
// call's text as XLA's gemm algorithm picker keys it.
std::string KeyTextOf(const Instruction& fusion);

// The cache key of a fusion on `backend`.
AutotuneKey KeyOf(const Backend& backend, const Instruction& fusion);

// XLA's form of `key` (KeyOf(fusion)) when it differs from xtune's: XLA
// prints no called computation (reducer, comparator, scatter combiner) in
// a fusion's key, so a max-reduce and a sum-reduce share it; xtune's keys
// print them. A fusion whose xtune key misses is looked up in this form,
// so XLA's entries for such fusions are used too. For a library call, its
// key in older XLA's form (LibraryFusion::legacy_key, the config unsorted).
// nullopt when the forms are the same.
std::optional<AutotuneKey> XlaFormKeyOf(const AutotuneKey& key,
                                        const Instruction& fusion);

// 1. Identical fusions (one key) form a group, tuned once. (Not
// fusion/planner.h's FusionGroup, the fusion pass's own.)
struct KeyGroup {
  AutotuneKey key;
  const Instruction* first = nullptr;
  std::vector<size_t> members;  // indices into TuningResult::fusions
};

// Appends every fusion of `fused`'s entry to result->fusions (in entry
// order) and returns the groups of those not in `forced`, which get their
// forced config (counted as overrides) instead.
std::vector<KeyGroup> GroupFusions(
    const Backend& backend, const Module& fused,
    const absl::flat_hash_map<std::string, KernelConfig>& forced,
    TuningResult* result);

// 2. What a group needs.
struct Decision {
  enum class Kind { kDecided, kTune, kMissing };
  Kind kind = Kind::kTune;
  ConfigSource source = ConfigSource::kDefault;  // kDecided
  KernelConfig config;                           // kDecided
  std::optional<double> seconds;                 // a cached run time
};

// The default config on a backend that is not tuned, else
// --xla_gpu_override_gemm_autotuner on a gemm, else the default config at
// level 0, else the cache's config (a stored
// result the backend cannot use is a warning and a miss), else kMissing
// under require_complete, else kTune. Counts overrides, defaults and hits
// (by tier) in `stats`. Errors: the backend's reading of the override.
absl::StatusOr<Decision> Decide(const Backend& backend, AutotuneCache& cache,
                                const AutotuneOptions& options,
                                const KeyGroup& group, TuningStats* stats);

// 3. The backend's candidates (exhaustive when asked) without library calls
// when library_fallback is off, with the default config always among them,
// in canonical order.
std::vector<KernelConfig> TuningCandidates(const Backend& backend,
                                           const Instruction& fusion,
                                           const AutotuneOptions& options);

// One group being tuned: its candidates and what happened to each.
struct Trial {
  const KeyGroup* group = nullptr;
  std::vector<KernelConfig> configs;
  std::vector<KernelConfig> generated;  // configs before PruneTrial
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels;
  std::vector<Literal> inputs;
  std::vector<size_t> order;  // timing order: library calls first
  std::vector<Timed> timed;
  std::vector<bool> failed;  // did not compile or did not run
  std::vector<bool> stopped;  // adaptive timing gave up on it (slower)
  std::vector<bool> wrong;   // ran, disagreed with the reference
  std::vector<std::optional<Literal>> outputs;  // first round's
  std::vector<double> medians;                  // 0 when not timed
  FusionLog log;
  int64_t compile_failures = 0;
  bool all_unimplemented = true;  // every failure was Unimplemented
};

// A trial for `group` with `configs`: inputs (deterministic pseudo-random
// at level >= 2, zeros below) and empty records.
Trial MakeTrial(const Backend& backend, const KeyGroup& group,
                std::vector<KernelConfig> configs, int level);

// 3b. Drops the candidates of `trial` (not yet compiled) that `model`
// predicts over its prune_above times the best (CostModel::Keep; library
// calls and the default config are always kept), recording each with its
// prediction in trial.log.pruned. Returns how many were dropped.
int PruneTrial(const Backend& backend, const CostModel& model, Trial& trial);

// What the cost model learns from a tuned trial: its fusion's size, the
// candidates as generated, and the timed ones' medians (failed and wrong
// ones as failures).
CostModel::Sample SampleOf(const Trial& trial);

// After ChooseAndRecord: SampleOf(trial) into `model`.
void ObserveTrial(const Trial& trial, CostModel& model);

// Before the first fusion is tuned: the samples of every entry `cache`
// lists for `backend`'s device at `version` (a loaded file, fusions tuned
// earlier in this process, a per-fusion directory) into `model`. An entry
// whose sample cannot be read is skipped. Returns the number of entries
// used.
int SeedModel(const Backend& backend, const AutotuneCache& cache, int version,
              CostModel& model);

// 4. Compiles every candidate of every trial on `parallelism` threads (0:
// all cores); `compiled(done, total)` after each, one call at a time
// (autotune/compile_trials.cc).
void CompileTrials(Backend& backend, absl::Span<Trial> trials,
                   int parallelism,
                   const std::function<void(int64_t, int64_t)>& compiled);

// 5. `rounds` interleaved rounds over the candidates (in trial.order),
// each with `per_round` (adapted to each candidate with `adaptive`, see
// AutotuneOptions::adaptive_timing, which also stops hopeless candidates
// after each round but the last); a candidate that fails to compile or run
// is recorded and skipped afterwards. `timed_one()` after each timing run.
// Counts first-round runs in stats->timed and stopped candidates in
// stats->stopped_early. Errors: Unavailable from the profiler (no worker
// can run: nothing can be tuned), or its session's.
absl::Status TimeRounds(Profiler& profiler, Trial& trial,
                        const ProfileOptions& per_round, int rounds,
                        bool adaptive, double min_band, TuningStats* stats,
                        const std::function<void()>& timed_one);

// The profile options of `per_round` for a candidate timed so far as
// `timed` (AutotuneOptions::adaptive_timing): one warm-up run at first and
// none later for kernels over 1 ms, one repetition a round for a kernel
// slower than the round's budget. (Capping a round at 50 runs saved 2.5 s
// of the model's 8 s of timing but gave 3 of the examples' 7 fusions two
// winners in five tunings in bench/autotune_quality; with 300 each has one.)
ProfileOptions AdaptedTo(const ProfileOptions& per_round, const Timed& timed);

// 6. At level >= 4, every output against the reference — the library
// candidate's output when there is one (gemms), else the evaluator's —
// with options.rtol; a mismatch is recorded (stats->wrong) or, with
// crash_on_verification_failures, an Internal error. Then wrong candidates
// are made ineligible while a correct one exists (always at level 5).
absl::Status VerifyTrial(const Backend& backend, const AutotuneOptions& options,
                         Trial& trial, TuningStats* stats);

// 7. The eligible candidates within max(2 x band, 5%) of the best (at most
// 8) get options.final_rounds more rounds, so the choice among near-equals
// rests on more evidence.
void TimeFinalists(Profiler& profiler, const AutotuneOptions& options,
                   Trial& trial, const ProfileOptions& per_round);

// 8. The winner (selection.h), stored in `cache` with its provenance, as
// the FusionTuning of the group's members. Counts tuned fusions and their
// compiles. When nothing can be generated (every candidate Unimplemented)
// the default config, counted as on_evaluator, nothing stored. Errors:
// Internal naming the fusion when every candidate failed; the cache's
// write errors; the backend's codec errors. `stored` (when non-null)
// receives the stored result, and `winner` the winner's index.
absl::StatusOr<FusionTuning> ChooseAndRecord(
    const Backend& backend, AutotuneCache& cache,
    const AutotuneOptions& options, Trial& trial, TuningStats* stats,
    xla::AutotuneResult* stored = nullptr, int* winner = nullptr);

// The cache entry of a tuned fusion: the config (the backend's codec), its
// median, and xtune's provenance: the cost model's `sample` when there is
// one (not for an exhaustive search, whose lists of values are not the
// default space's), every candidate's median too with `candidates`.
// Provenance (field 1010) is left out of entries with XLA's key types
// unless asked for, so such files stay readable by XLA.
absl::StatusOr<xla::AutotuneResult> ResultFor(
    const Backend& backend, const KernelConfig& config, double seconds,
    const FusionLog& log, int failures, bool candidates,
    const CostModel::Sample* sample);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_PHASES_H_
