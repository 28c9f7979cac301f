// The autotuner: for every fusion of a fused module, find the fastest
// correct kernel config — from the cache when the fusion's key is there,
// otherwise by compiling every candidate (in parallel), timing each in an
// isolated worker, checking its output against a reference, and choosing
// deterministically (autotune/selection.h). Results go into the cache.
//
// Behaviour follows XLA's flags (options.h). Identical fusions (same
// canonical text) are tuned once. Not thread-safe: one Tune() at a time.
#ifndef XTUNE_AUTOTUNE_AUTOTUNER_H_
#define XTUNE_AUTOTUNE_AUTOTUNER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "autotune/options.h"
#include "codegen/profiler.h"
#include "autotune/tuning_log.h"
#include "cache/autotune_cache.h"
#include "codegen/backend.h"
#include "ir/module.h"

namespace xtune {

enum class ConfigSource { kTuned, kCache, kDefault, kOverride };
const char* ConfigSourceName(ConfigSource s);  // "tuned", "cache", ...

struct FusionTuning {
  const Instruction* fusion = nullptr;
  ConfigSource source = ConfigSource::kDefault;
  KernelConfig config;
  std::optional<double> chosen_seconds;   // median, when timed or cached
  std::optional<double> default_seconds;  // the default config's median
  int candidates = 0;                     // tried
  int failed = 0;  // failed to compile, crashed, hung or were wrong
};

struct TuningStats {
  int fusions = 0;
  int unique = 0;
  int cache_hits = 0;
  std::map<std::string, int> hits_by_tier;  // "memory", "directory"
  int tuned = 0;                            // the misses
  int defaults = 0;
  int overrides = 0;
  int on_evaluator = 0;  // misses no candidate can generate (all Unimplemented)
  int64_t compiled = 0;
  int64_t compile_failures = 0;
  int64_t timed = 0;
  int64_t wrong = 0;
  double seconds = 0;

  // "7 fusions (6 unique): 2 from the cache (memory 2), 4 tuned, ..."
  std::string ToString() const;
};

struct TuningResult {
  std::vector<FusionTuning> fusions;  // entry order
  absl::flat_hash_map<const Instruction*, KernelConfig> configs;
  TuningStats stats;
  std::vector<FusionLog> logs;  // tuned fusions only
};

class Autotuner {
 public:
  // Borrows everything; all must outlive the Autotuner.
  Autotuner(Backend* backend, AutotuneCache* cache, Profiler* profiler,
            AutotuneOptions options);

  // Chooses a config for every fusion of `fused`'s entry computation.
  // Errors: Internal when a fusion's candidates all fail (naming it and the
  // failures), or on a wrong result with crash_on_verification_failures;
  // InvalidArgument for a bad override; NotFound naming the first missing
  // fusion and its key with require_complete; file errors from
  // dump_logs_to or a cache tier that cannot write.
  absl::StatusOr<TuningResult> Tune(const Module& fused);

  // Fixes the config of the fusion named `fusion` (the CLI's --config): it
  // is neither looked up nor tuned, and counts as overridden.
  void ForceConfig(const std::string& fusion, KernelConfig config) {
    forced_[fusion] = std::move(config);
  }

 private:
  // The cached config of `key`, counting the hit; nullopt on a miss (a
  // stored result xtune cannot run is a miss, with a warning).
  std::optional<KernelConfig> FromCache(const AutotuneKey& key,
                                        const Instruction& fusion,
                                        TuningStats* stats,
                                        std::optional<double>* seconds);

  Backend* backend_;
  AutotuneCache* cache_;
  Profiler* profiler_;
  AutotuneOptions options_;
  absl::flat_hash_map<std::string, KernelConfig> forced_;
};

// The cache key of a fusion on `backend`.
AutotuneKey KeyOf(const Backend& backend, const Instruction& fusion);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_AUTOTUNER_H_
