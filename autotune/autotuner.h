// The autotuner: for every fusion of a fused module, find the fastest
// correct kernel config — from the cache when the fusion's key is there,
// otherwise by compiling every candidate (in parallel), timing each with
// the backend's profiler (an isolated worker), checking its output against
// a reference, and choosing deterministically (autotune/selection.h).
// Results go into the cache. Tune() is a short driver over the phases of
// autotune/phases.h.
//
// Behaviour follows XLA's flags (options.h). Identical fusions (same
// canonical text) are tuned once. Not thread-safe: one Tune() at a time.
#ifndef XTUNE_AUTOTUNE_AUTOTUNER_H_
#define XTUNE_AUTOTUNE_AUTOTUNER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "autotune/in_module.h"
#include "autotune/options.h"
#include "autotune/phases.h"
#include "autotune/tuning_result.h"
#include "codegen/profiler.h"
#include "autotune/tuning_log.h"
#include "cache/autotune_cache.h"
#include "cache/tuning_shards.h"
#include "codegen/backend.h"
#include "ir/module.h"

namespace xtune {

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

  // In-module timing (AutotuneOptions::in_module_timing, autotune/
  // in_module.h): after the last fusion, the tuned fusions with close
  // finalists are re-timed by `timer` (borrowed; null: none, the default)
  // in the running module, and keep — in the result and the cache — the
  // finalist fastest there. A timer that fails is a warning: the isolated
  // choices stand.
  void SetModuleTimer(ModuleTimer* timer) { module_timer_ = timer; }

  // Sharded tuning (cache/tuning_shards.h; borrowed, null: none, the
  // default): of the misses, this process tunes those whose lease it
  // takes, then takes the others from the shared store as their holders
  // publish them, takes over a key whose lease is gone without a result,
  // and tunes what is left when the wait runs out. A key published first
  // by another process keeps that process's config here too (so every
  // process ends with the same configs); in-module timing is off.
  void SetShards(TuningShards* shards) { shards_ = shards; }

 private:
  using Assign = std::function<void(const KeyGroup&, const FusionTuning&)>;
  // Keeps the result the shared store holds for a key tuned here when
  // another process published first.
  void Adopt(const KeyGroup& group, const xla::AutotuneResult& stored, FusionTuning* decided,
             TuningStats* stats);
  // Verify-on-restore (AutotuneOptions::verify_cached) of a cache hit: a
  // wrong config is reported, evicted and turned into a miss (`d`).
  absl::Status VerifyRestored(const KeyGroup& g, const std::map<std::string, int>& hits_before,
                              Decision* d, TuningStats* stats);
  // Tunes the misses with other processes (see SetShards): each step
  // receives what others published, takes a few free keys and tunes them,
  // and leaves the keys others hold for later.
  absl::Status ShardedTune(std::vector<Trial> waiting,
                           const std::function<absl::Status(std::vector<Trial>&)>& run,
                           TuningStats* stats, const Assign& assign);

  Backend* backend_;
  AutotuneCache* cache_;
  Profiler* profiler_;
  AutotuneOptions options_;
  absl::flat_hash_map<std::string, KernelConfig> forced_;
  ModuleTimer* module_timer_ = nullptr;
  TuningShards* shards_ = nullptr;
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_AUTOTUNER_H_
