// FakeBackend: a scripted Backend for tests of the autotuner and the
// executable. Its candidates are given; each behaves as scripted: correct
// (computes the fusion with the reference evaluator), wrong (correct + 1 on
// every element) or failing to compile. Kinds ending in "_blas" are its
// library calls. Crashes and hangs are scripted in FakeProfiler (a kernel
// that really crashes needs a worker process: see codegen/cpu/
// cpu_profiler_test.cc). Host buffers; configs use the default codec.
// Thread-safe.
#ifndef XTUNE_CODEGEN_FAKE_BACKEND_H_
#define XTUNE_CODEGEN_FAKE_BACKEND_H_

#include <atomic>
#include <string>
#include <vector>

#include "codegen/backend.h"

namespace xtune {

enum class FakeBehavior { kCorrect, kWrong, kCompileError };

struct FakeCandidate {
  KernelConfig config;
  FakeBehavior behavior = FakeBehavior::kCorrect;
};

class FakeBackend : public Backend {
 public:
  // Every fusion gets `candidates` (in this order, which must be canonical);
  // the default config is candidates[default_index].
  FakeBackend(std::vector<FakeCandidate> candidates, int default_index = 0,
              std::string device = "FAKE: test device");

  std::string name() const override { return "fake"; }
  std::string DeviceDescription() const override { return device_; }
  std::vector<KernelConfig> Candidates(const Instruction& fusion,
                                       bool exhaustive) const override;
  KernelConfig DefaultConfig(const Instruction& fusion) const override;
  absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) override;
  bool IsLibraryCall(const KernelConfig& config) const override;
  // A fake config's `threads` parameter (1 without one).
  int64_t HostThreads(const KernelConfig& config) const override {
    return config.Get("threads", 1);
  }
  // The TritonGemmKey fields the text sets, onto the default config's
  // parameters of the same names (InvalidArgument for any other field).
  absl::StatusOr<KernelConfig> GemmOverride(
      const Instruction& fusion, absl::string_view textproto) const override;

  // Compile() calls so far.
  int64_t compilations() const { return compilations_.load(); }
  // Extra candidates returned only when exhaustive.
  void SetExhaustiveExtras(std::vector<FakeCandidate> extras) {
    extras_ = std::move(extras);
  }

 private:
  std::vector<FakeCandidate> candidates_;
  std::vector<FakeCandidate> extras_;
  int default_index_;
  std::string device_;
  std::atomic<int64_t> compilations_{0};
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_FAKE_BACKEND_H_
