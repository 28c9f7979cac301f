// What a tune found: per fusion the config and where it came from, the
// counts of the summary line, and the candidates' logs.
#ifndef XTUNE_AUTOTUNE_TUNING_RESULT_H_
#define XTUNE_AUTOTUNE_TUNING_RESULT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "autotune/tuning_log.h"
#include "codegen/kernel_config.h"
#include "ir/instruction.h"

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
  // Not in the cache: tuned, or (a backend that does not tune) given the
  // default config. What --cache_report lists as missed.
  bool missed = false;
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
  int64_t pruned = 0;  // dropped by the cost model before compiling
  int model_seeded = 0;  // cache entries the cost model was fit on first
  int64_t timed = 0;
  int64_t stopped_early = 0;  // timed less: could not reach the leader
  int64_t wrong = 0;
  // In-module timing (autotune/in_module.h): fusions re-timed in the
  // running module, and those whose config changed there.
  int in_module = 0;
  int in_module_changed = 0;
  int in_module_untimed = 0;  // contests the budget did not reach
  double in_module_seconds = 0;  // the phase's wall time
  double seconds = 0;
  // A backend that only checks (Backend::ChecksOnly): candidates were run
  // once and compared with the reference, not timed.
  bool checked_only = false;
  int64_t run_failures = 0;   // ran and failed (the emulator's checks)
  std::string first_failure;  // "fusion 'f' with <config>: <why>"
  // Sharded tuning (cache/tuning_shards.h): misses another process tuned
  // (received), whose lease this process took over (its holder died or
  // gave up), tuned here after the wait, and tuned here but published
  // first by another process (whose config this process then kept).
  bool sharded = false;
  // Verify-on-restore: cached configs run against the reference, and the
  // wrong ones (evicted and tuned again).
  int cached_verified = 0;
  int cached_wrong = 0;
  // Device-match seeding: misses settled by other devices' configs, and
  // those whose seeds were not within the band (tuned in full).
  int seeded = 0;
  int seeds_not_enough = 0;
  int shard_received = 0;
  int shard_taken_over = 0;
  int shard_past_wait = 0;
  int shard_adopted = 0;

  // "7 fusions (6 unique): 2 from the cache (memory 2), 4 tuned, ..."
  std::string ToString() const;
};

struct TuningResult {
  std::vector<FusionTuning> fusions;  // entry order
  absl::flat_hash_map<const Instruction*, KernelConfig> configs;
  TuningStats stats;
  std::vector<FusionLog> logs;  // tuned fusions only
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_TUNING_RESULT_H_
