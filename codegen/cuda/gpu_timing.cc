#include "codegen/cuda/gpu_timing.h"

#include <chrono>

#include "util/status_macros.h"

namespace xtune::cuda {

absl::StatusOr<std::vector<double>> TimeOnDevice(
    Driver& d, const std::function<absl::Status()>& enqueue,
    const DeviceTimingOptions& o) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  Clock::time_point warm = Clock::now();
  for (int i = 0; o.min_warmup_runs > 0 && i < 100; ++i) {
    XTUNE_RETURN_IF_ERROR(enqueue());
    XTUNE_RETURN_IF_ERROR(d.Synchronize());
    if (i + 1 >= o.min_warmup_runs && since(warm) >= 5e-3) break;
  }
  XTUNE_ASSIGN_OR_RETURN(void* start, d.CreateEvent());
  absl::StatusOr<void*> end = d.CreateEvent();
  if (!end.ok()) {
    d.DestroyEvent(start);
    return end.status();
  }
  std::vector<double> seconds;
  absl::Status st;
  Clock::time_point begin = Clock::now();
  for (int flushes = 1;
       st.ok() && static_cast<int64_t>(seconds.size()) < o.max_repetitions;
       ++flushes) {
    if (static_cast<int64_t>(seconds.size()) >= o.min_repetitions &&
        since(begin) >= o.budget_seconds) {
      break;
    }
    if (o.flush_bytes > 0) {
      // A different value each time: the whole buffer is written again.
      st = d.Memset(o.flush, static_cast<uint8_t>(flushes), o.flush_bytes);
    }
    if (st.ok()) st = d.Record(start);
    if (st.ok()) st = enqueue();
    if (st.ok()) st = d.Record(*end);
    if (!st.ok()) break;
    absl::StatusOr<float> ms = d.ElapsedMilliseconds(start, *end);
    if (ms.ok()) {
      seconds.push_back(static_cast<double>(*ms) * 1e-3);
    } else {
      st = ms.status();
    }
  }
  d.DestroyEvent(start);
  d.DestroyEvent(*end);
  if (!st.ok()) return st;
  return seconds;
}

}  // namespace xtune::cuda
