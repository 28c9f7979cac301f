// How the GPU profiler times work on the device, in its worker
// (gpu_worker_main.cc) and in-process (gpu_profiler.cc): a warm-up by time
// (at least 2 runs and 5 ms, at most 100, each waited for), then timed runs
// between CUDA events on the default stream, each after an L2 flush (a
// memset of the flush buffer with a new value) when one is given, until
// min_repetitions ran and the budget of wall time passed, at most
// max_repetitions.
#ifndef XTUNE_CODEGEN_CUDA_GPU_TIMING_H_
#define XTUNE_CODEGEN_CUDA_GPU_TIMING_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/driver.h"

namespace xtune::cuda {

struct DeviceTimingOptions {
  int64_t min_warmup_runs = 2;  // then until 5 ms (ProfileOptions)
  int64_t min_repetitions = 3;
  int64_t max_repetitions = 200;
  double budget_seconds = 0.02;
  uint64_t flush = 0;       // device address of the flush buffer
  int64_t flush_bytes = 0;  // 0: no flush
};

// The seconds of each timed run of `enqueue` (which queues one run without
// waiting). Errors: the driver's, a fault included (at the wait).
absl::StatusOr<std::vector<double>> TimeOnDevice(
    Driver& driver, const std::function<absl::Status()>& enqueue,
    const DeviceTimingOptions& options);

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_TIMING_H_
