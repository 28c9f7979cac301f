#include "codegen/fake_profiler.h"

namespace xtune {

absl::StatusOr<ProfileResult> FakeProfiler::Profile(
    Kernel& kernel, const KernelConfig& config, absl::Span<const Literal> inputs,
    const Shape& output_shape, const ProfileOptions& options) {
  std::string name = config.ToString();
  profiled_.push_back(name);
  options_.push_back(options);
  auto error = errors_.find(name);
  if (error != errors_.end()) return error->second;
  ProfileResult result;
  result.output = Literal(output_shape);
  absl::Status run = kernel.Run(HostBuffers(inputs), HostBuffer(result.output));
  if (!run.ok()) return run;
  auto it = samples_.find(name);
  result.seconds = it != samples_.end()
                       ? it->second
                       : std::vector<double>(options.min_repetitions,
                                             default_seconds_);
  return result;
}

}  // namespace xtune
