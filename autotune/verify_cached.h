// Verify-on-restore (--xtune_verify_cached_results): before a cached
// config is first used in a process, it is compiled and run once on the
// fusion's deterministic inputs and compared with the reference (the
// evaluator, as level-4 tuning compares candidates). A config that does
// not compile, fails to run or disagrees is reported by the autotuner,
// evicted from every writable tier, and the fusion tuned again.
#ifndef XTUNE_AUTOTUNE_VERIFY_CACHED_H_
#define XTUNE_AUTOTUNE_VERIFY_CACHED_H_

#include "absl/status/status.h"
#include "autotune/options.h"
#include "autotune/phases.h"
#include "codegen/backend.h"
#include "codegen/profiler.h"

namespace xtune {

// OK when `config` computes `group`'s fusion right, or was verified
// before in this process; FailedPrecondition saying what is wrong (does
// not compile, failed to run, the mismatch). Unimplemented when the
// backend cannot run kernels here (nothing is checked).
absl::Status VerifyCachedConfig(Backend& backend, Profiler& profiler,
                                const AutotuneOptions& options, const KeyGroup& group,
                                const KernelConfig& config);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_VERIFY_CACHED_H_
