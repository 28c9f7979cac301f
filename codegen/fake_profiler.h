// FakeProfiler: scripted timings for autotuner tests, so selection, ties,
// failures and levels are tested without timing noise. Each config (by
// KernelConfig::ToString()) gets either samples or an error; the output is
// computed by running the kernel in-process (FakeBackend kernels compute
// with the evaluator).
#ifndef XTUNE_CODEGEN_FAKE_PROFILER_H_
#define XTUNE_CODEGEN_FAKE_PROFILER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "codegen/profiler.h"

namespace xtune {

class FakeProfiler : public Profiler {
 public:
  // Configs not scripted take `default_seconds` per sample.
  explicit FakeProfiler(double default_seconds = 1e-3)
      : default_seconds_(default_seconds) {}

  void SetSamples(const std::string& config, std::vector<double> seconds) {
    samples_[config] = std::move(seconds);
  }
  void SetError(const std::string& config, absl::Status error) {
    errors_[config] = std::move(error);
  }
  // Configs profiled, in order.
  const std::vector<std::string>& profiled() const { return profiled_; }
  // The options of each Profile() call, in order.
  const std::vector<ProfileOptions>& options() const { return options_; }

  absl::StatusOr<ProfileResult> Profile(Kernel& kernel,
                                        const KernelConfig& config,
                                        absl::Span<const Literal> inputs,
                                        const Shape& output_shape,
                                        const ProfileOptions& options) override;

 private:
  double default_seconds_;
  std::map<std::string, std::vector<double>> samples_;
  std::map<std::string, absl::Status> errors_;
  std::vector<std::string> profiled_;
  std::vector<ProfileOptions> options_;
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_FAKE_PROFILER_H_
