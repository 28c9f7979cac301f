// The options of xtune's compiler, as plain data: which backend, how to
// autotune, and which persistent caches to use. Every field says its default
// and the XLA flag it mirrors. Programs set them directly
// (Compiler::Create(CompilerOptions)); or read them from XLA's flags exactly
// as an XLA program does (CompilerOptionsFromFlags, compiler.h): the
// XLA_FLAGS environment variable, then explicit flags. Value types; no
// global state.
#ifndef XTUNE_INCLUDE_XTUNE_OPTIONS_H_
#define XTUNE_INCLUDE_XTUNE_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace xtune {

struct AutotuneOptions {
  // --xla_gpu_autotune_level, XLA's meaning. 0: no tuning (default configs);
  // 1: tune on zero inputs; >= 2: deterministic pseudo-random inputs; >= 4:
  // check every candidate's output against a reference (a mismatch is
  // recorded as WRONG_RESULT and the candidate is passed over while a
  // correct one exists); 5: never choose a wrong candidate (a fusion whose
  // candidates are all wrong is an error). Default 4.
  int level = 4;
  // On a backend whose timings mean nothing (Backend::ChecksOnly: the CUDA
  // emulator), compile every candidate of every fusion and check it against
  // the reference instead of tuning; configs still come from the cache or
  // the default, and nothing is written. `xtune run` turns it off. Default
  // true.
  bool check_candidates = true;
  // --xla_gpu_exhaustive_tiling_search: the full search space instead of the
  // default list. Default false.
  bool exhaustive = false;
  // --xla_gpu_autotune_gemm_rtol: element mismatch iff
  // |a-b| / (max(|a|,|b|) + 1) > rtol. Default 0.1.
  double rtol = 0.1;
  // --xla_gpu_crash_on_verification_failures: a wrong result ends the
  // compile with an error instead of being recorded. Default false.
  bool crash_on_verification_failures = false;
  // --xla_gpu_override_gemm_autotuner: a textproto config forced on every
  // gemm fusion, read by the backend (XLA's TritonGemmKey fields, or the
  // backend's own key; see Backend::GemmOverride). Default "" (none).
  std::string override_gemm;
  // --xla_gpu_dump_autotune_logs_to: write every candidate's result (config,
  // time, failure) as textproto to this file. Default "" (none).
  std::string dump_logs_to;
  // --xla_gpu_force_compilation_parallelism: threads compiling candidates;
  // 0 = all cores. Default 0.
  int compilation_parallelism = 0;
  // --xla_gpu_cublas_fallback: include the library gemm candidate (cuBLAS;
  // OpenBLAS on the CPU backend). Default true.
  bool library_fallback = true;

  // --xla_gpu_require_complete_aot_autotune_results: a fusion missing from
  // the cache is an error (naming it and its key) and nothing is tuned.
  // Default false.
  bool require_complete = false;

  // --xla_allow_excess_precision: generated kernels may keep f16/bf16
  // intermediates (and reduction accumulators) in f32, rounding at converts
  // and stores; the reference then allows the same (EvaluatorOptions::
  // excess_precision), so like is compared with like. false: every f16/bf16
  // result is rounded (HLO semantics) in kernels and reference. Default
  // true, as in XLA.
  bool excess_precision = true;

  // xtune's own knobs.
  // --xtune_autotune_details: cache entries also record every candidate's
  // median and failure and the winner's samples. Default false.
  bool record_candidates = false;
  // Timing: after a warm-up, repeat until both `min_repetitions` runs and
  // `time_budget` of wall time are done (at most `max_repetitions`),
  // flushing the caches before each run. Defaults 6, 30 ms, 300.
  int min_repetitions = 6;
  absl::Duration time_budget = absl::Milliseconds(30);
  int max_repetitions = 300;
  // The budget is spent in this many interleaved rounds over the
  // candidates (all in the fusion's one worker process), so drifts of a shared
  // machine hit every candidate alike; the spread of the candidates' round
  // medians sets the noise band. Default 3.
  int rounds = 3;
  // Adaptive timing (--xtune_adaptive_timing, default true; false is the
  // previous fixed schedule, kept for comparison): a candidate's timing
  // adapts to its own run time (one warm-up run at first and none later for
  // kernels over 1 ms, which are flushed before each run anyway; one
  // repetition a round once a run is longer than the round's budget), and
  // candidates that cannot reach the leader stop being timed: after the
  // first round those whose round was over twice the leader's median,
  // after later rounds those whose fastest round is beyond
  // max(3 x noise band, 15%) of it.
  bool adaptive_timing = true;
  // With adaptive timing, a candidate's round also ends after this many
  // timed runs, before its share of the budget is spent: the rounds, not
  // more runs within one, measure the machine's drift, and 40 runs of a
  // fast kernel already put its round median well inside the noise band
  // (a 45 us gemm took about 1000 runs of 30 ms budget before). 0: no cap
  // beyond `max_repetitions`. Default 40.
  int round_repetitions = 40;
  // Cost model (--xtune_cost_model, default true; false compiles every
  // candidate, as before): fusions are tuned one after the other, and once
  // fusions of a config kind have been measured, a model fit on their
  // candidates (autotune/cost_model.h) predicts each new candidate's time
  // relative to its fusion's best; candidates predicted over 1.2x are not
  // compiled ("pruned" in the summary line). Library calls, the default
  // config and candidates the model knows too little about are always
  // tried. Off with `exhaustive`, and on backends that only check. The
  // model is also fit, before the first fusion, on the cache entries the
  // tiers can list for the device (each tuned entry of xtune's key types keeps
  // its sample: xtune_provenance.cost_model), so a loaded cache prunes a
  // new module's fusions from the start.
  bool cost_model = true;
  // In-module timing (--xtune_in_module_timing, default true): after every
  // fusion is tuned, each one tuned in this compile whose correct
  // candidates include close rivals with no more threads (the best of each
  // other kind and thread count within 2x, others within 1.5x; at most 4
  // finalists) is re-timed inside the running module, fusion by fusion
  // (those with a multi-threaded winner first, then the slowest). A finalist replaces the isolated winner only when the
  // module runs faster with it by more than max(2 x noise band, 2%) and by
  // more than 15% of the winner's own time there, and it uses no more
  // threads, or when it uses fewer threads and the module is no slower
  // than the noise band; the cache gets that config (autotune/in_module.h). Only on
  // backends whose kernels run on the host (Backend::TimesInModule), and
  // only with a timer (Autotuner::SetModuleTimer; the compiler sets one).
  // The module runs for about `in_module_budget` (default 300 ms) of wall
  // time; fusions it does not reach keep their isolated choices, and a
  // module too slow for it is not re-timed.
  bool in_module_timing = true;
  // --xtune_verify_cached_results: before its first use in a process, a
  // cached config is run once and compared with the reference; a wrong one
  // is reported, evicted from every writable tier and tuned again
  // (autotune/verify_cached.h). Default false.
  bool verify_cached = false;
  // --xtune_autotune_device_match=exact|arch|any: on a miss, the configs
  // other devices' entries hold for the same fusion (the same
  // architecture: the CUDA compute capability, the CPU's ISA; or any
  // device, those of the same architecture first) are timed first with
  // the default config, and tuning stops there when one of them is within
  // the noise band of the best; the entry records the device it was
  // seeded from. Default exact (no seeding).
  enum class DeviceMatch { kExact, kArch, kAny };
  DeviceMatch device_match = DeviceMatch::kExact;
  absl::Duration in_module_budget = absl::Milliseconds(300);
  // Then the candidates within max(2 x band, 5%) of the best (at most 8)
  // get this many more rounds before the final choice. Default 3.
  int final_rounds = 3;
  // Cache flush before each timed run: on x86 the kernel's own buffers are
  // evicted with clflush; elsewhere this many bytes are written (about 1.5x
  // the last-level cache; the CLI sets it from the device). 0 = no flush.
  // Default 48 MiB.
  int64_t flush_bytes = int64_t{48} << 20;
  // A candidate still running after this is killed and recorded as hung.
  // Default 30 s.
  absl::Duration candidate_timeout = absl::Seconds(30);
  // The noise band's floor: a candidate displaces an earlier one in
  // canonical order only when faster by more than this (or by what one
  // timed run resolves, for kernels of a few microseconds; a candidate
  // with more threads also by its own rounds' spread: see SelectWinner in
  // autotune/selection.h), so near-ties go to the earliest config. The
  // band the other phases use, the machine's drift between rounds, never
  // goes below it. Default 0.03 (the floor is 2%; 3% makes
  // repeated tunings on a shared machine agree more often).
  double min_noise_band = 0.03;
  // Progress on stderr while tuning: kTerminal rewrites one line in place;
  // kLines prints a plain line at most every `progress_interval` (CI logs
  // stay alive through a long tune). The CLI picks kTerminal when stderr is
  // a terminal, else kLines. Default kOff.
  enum class ProgressMode { kOff, kTerminal, kLines };
  ProgressMode progress = ProgressMode::kOff;
  absl::Duration progress_interval = absl::Seconds(10);
  // Print the one-line summary on stderr after every Tune(). Default true.
  bool print_summary = true;
};

// --xla_gpu_experimental_autotune_cache_mode.
enum class DirectoryCacheMode {
  kUpdate,  // read on a miss of the memory tier, write what is tuned
  kRead,    // read only
};

// Every field also goes into SessionKey() (cache/persistent.h).
struct PersistentCacheOptions {
  // --xla_gpu_load_autotune_results_from: loaded when the session opens.
  // Default "" (nothing).
  std::string load_from;
  // --xla_gpu_dump_autotune_results_to: the whole memory tier is written
  // after every compile. Default "" (no dump).
  std::string dump_to;
  // --xtune_dump_autotune_results_merge: the dump merges into what the file
  // already holds, under a lock, instead of replacing it (for ctest -j and
  // sharded runs dumping into one file). Default false.
  bool dump_merge = false;
  // --xla_gpu_per_fusion_autotune_cache_dir. Default "" (no directory tier).
  std::string per_fusion_dir;
  // --xla_gpu_experimental_autotune_cache_mode. Default update.
  DirectoryCacheMode per_fusion_mode = DirectoryCacheMode::kUpdate;
  // --xtune_autotune_cache_remote: a Redis server every process shares
  // (redis://HOST:PORT[/DB] or unix:///PATH[?db=N]; docs/fleet.md), the
  // tier below the directory. Default "" (none).
  std::string remote;
  // --xtune_autotune_cache_remote_timeout_ms: longest connect, and longest
  // wait for each answer of the remote. Default 1000.
  int remote_timeout_ms = 1000;
  // --xtune_autotune_cache_remote_ttl: seconds written entries live on the
  // remote; 0 forever. Default 0.
  int remote_ttl_seconds = 0;
  // --xla_gpu_shard_autotuning: with a remote, processes split the misses
  // through a lease per key (docs/fleet.md). Default true (as XLA's).
  bool shard = true;
  // --xtune_shard_autotuning_wait_ms: longest wait for keys other
  // processes tune; the rest are then tuned here. Default 600000.
  int shard_wait_ms = 600000;
  // --xtune_shard_autotuning_lease_ms: a lease's expiry, renewed every
  // third of it while its holder tunes; a dead holder's keys are free
  // again after it. Default 10000.
  int shard_lease_ms = 10000;
};

struct CompilerOptions {
  // The backend every compile uses (`xtune devices` lists them): "cpu" or
  // "interpreter", or one a program registered (codegen/registry.h).
  // Default "cpu".
  std::string backend = "cpu";
  AutotuneOptions autotune;
  PersistentCacheOptions cache;
};

}  // namespace xtune

#endif  // XTUNE_INCLUDE_XTUNE_OPTIONS_H_
