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

 private:
  Backend* backend_;
  AutotuneCache* cache_;
  Profiler* profiler_;
  AutotuneOptions options_;
  absl::flat_hash_map<std::string, KernelConfig> forced_;
  ModuleTimer* module_timer_ = nullptr;
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_AUTOTUNER_H_
