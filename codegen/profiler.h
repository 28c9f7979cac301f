// Profiler: runs one compiled candidate on inputs and times it. Each
// backend supplies its own (Backend::CreateProfiler): the CPU backend's
// runs candidates in a spawned worker program (codegen/cpu/cpu_profiler.h)
// so a kernel that crashes or never returns cannot take the compiler down;
// InProcessProfiler (in_process_profiler.h) times kernels that cannot
// crash; FakeProfiler (fake_profiler.h) scripts timings for tests.
//
// Thread-compatible: one thread uses a profiler at a time.
#ifndef XTUNE_CODEGEN_PROFILER_H_
#define XTUNE_CODEGEN_PROFILER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "codegen/backend.h"
#include "ir/literal.h"

namespace xtune {

struct ProfileOptions {
  // Warm-up: at least `min_warmup_runs` runs, then more until 1 ms has
  // passed (5 ms on a GPU; at most 50 / 100 runs): page faults, code
  // caches, a thread pool starting. 0: none (a kernel slower than that,
  // already run in this session: the caches are flushed before each timed
  // run anyway). Default 3.
  int min_warmup_runs = 3;
  // After the warm-up: repetitions until at least `min_repetitions` ran
  // and `time_budget` of wall time (flushes included) passed; at most
  // `max_repetitions`.
  int min_repetitions = 3;
  int max_repetitions = 200;
  absl::Duration time_budget = absl::Milliseconds(20);
  absl::Duration timeout = absl::Seconds(30);
  // Flush the caches before each timed run (> 0): the kernel's buffers with
  // clflush on x86, else a buffer of this many bytes is written (an L2
  // flush on a GPU). 0 = no flush.
  int64_t flush_bytes = 0;
};

struct ProfileResult {
  std::vector<double> seconds;  // one per timed repetition
  Literal output;               // the candidate's result
};

class Profiler {
 public:
  virtual ~Profiler() = default;

  // Optional session: the autotuner announces the compiled candidates of
  // one fusion and its inputs before profiling them, so an implementation
  // can keep one worker for all of them (all candidates then see the same
  // memory placement). Profile() also works without a session. Defaults do
  // nothing.
  virtual absl::Status BeginFusion(absl::Span<Kernel* const> kernels,
                                   absl::Span<const Literal> inputs,
                                   const Shape& output_shape) {
    return absl::OkStatus();
  }
  virtual void EndFusion() {}

  // Times `kernel` (compiled for `config`) on `inputs`; the output has
  // `output_shape`. Errors: DeadlineExceeded (still running after the
  // timeout: killed), Aborted (the worker died: crashed, killed, OOM; the
  // message names the signal or exit status), Unavailable (no worker could
  // be started), or the kernel's own error.
  virtual absl::StatusOr<ProfileResult> Profile(
      Kernel& kernel, const KernelConfig& config,
      absl::Span<const Literal> inputs, const Shape& output_shape,
      const ProfileOptions& options) = 0;
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_PROFILER_H_
