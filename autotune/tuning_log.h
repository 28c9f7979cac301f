// The autotuning log: every candidate's result (config, time, failure),
// written as textproto by --xla_gpu_dump_autotune_logs_to.
#ifndef XTUNE_AUTOTUNE_TUNING_LOG_H_
#define XTUNE_AUTOTUNE_TUNING_LOG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cache/autotune_cache.h"
#include "codegen/kernel_config.h"

namespace xtune {

// XLA's FailureResult kinds, plus why xtune dropped the candidate.
enum class FailureKind {
  kNone,
  kCompileError,  // XLA kind DISQUALIFIED
  kCrash,         // UNKNOWN
  kTimeout,       // UNKNOWN
  kWrongResult,   // WRONG_RESULT
  kRunError,      // UNKNOWN
};

// XLA's name of the kind ("WRONG_RESULT", "DISQUALIFIED", "UNKNOWN").
const char* XlaFailureKindName(FailureKind kind);

struct CandidateLog {
  KernelConfig config;
  std::optional<double> median_seconds;  // when it was timed
  std::vector<double> seconds;
  // The median of each timing round (interleaved with the other
  // candidates' rounds), in order: what the selection compares
  // (autotune/selection.h).
  std::vector<double> round_seconds;
  FailureKind failure = FailureKind::kNone;
  std::string message;  // the failure, in words
};

// A candidate the cost model dropped before compiling it.
struct PrunedLog {
  KernelConfig config;
  double predicted_ratio = 0;  // its predicted time over the best's
};

struct FusionLog {
  std::string fusion;  // the fusion instruction's name
  AutotuneKey key;
  std::vector<CandidateLog> candidates;  // canonical order
  std::vector<PrunedLog> pruned;         // not compiled (cost model)
  std::optional<KernelConfig> selected;
  double noise_band = 0;
  // The in-module timing of the finalists (autotune/in_module.h), when the
  // fusion was re-timed there: each finalist's median inside the running
  // module. `selected` is then the in-module winner and `isolated_selected`
  // what the isolated timings chose.
  struct InModule {
    KernelConfig config;
    double median_seconds = 0;
  };
  std::vector<InModule> in_module;
  std::optional<KernelConfig> isolated_selected;
  double in_module_band = 0;
  // Device-match seeding stopped the search: the device whose entry held
  // the seed within the band.
  std::string seeded_from;
  // The candidates were run once and checked, not timed (a backend that
  // cannot time, cuda_emulator): their times are the emulator's.
  bool checked_only = false;
  // The backend's default config for the fusion.
  std::optional<KernelConfig> default_config;
};

// Textproto: one `logs { ... }` per tuned fusion, in the schema of
// cache/tuning_log.proto (xtune.logs.TuningLogs).
std::string TuningLogsToText(const std::vector<FusionLog>& logs);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_TUNING_LOG_H_
