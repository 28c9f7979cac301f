#include "codegen/in_process_profiler.h"

#include <chrono>

#include "util/status_macros.h"

namespace xtune {

absl::StatusOr<ProfileResult> InProcessProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  ProfileResult result;
  result.output = Literal(output_shape);
  std::vector<DeviceBuffer> in = HostBuffers(inputs);
  DeviceBuffer out = HostBuffer(result.output);
  if (options.min_warmup_runs > 0) {
    XTUNE_RETURN_IF_ERROR(kernel.Run(in, out));  // warm-up
  }
  auto begin = std::chrono::steady_clock::now();
  double budget = absl::ToDoubleSeconds(options.time_budget);
  while (static_cast<int>(result.seconds.size()) < options.max_repetitions) {
    double wall = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - begin)
                      .count();
    if (static_cast<int>(result.seconds.size()) >= options.min_repetitions &&
        wall >= budget) {
      break;
    }
    auto start = std::chrono::steady_clock::now();
    XTUNE_RETURN_IF_ERROR(kernel.Run(in, out));
    result.seconds.push_back(std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
  }
  return result;
}

}  // namespace xtune
