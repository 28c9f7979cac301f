// The ModuleTimer of backends whose kernels run on the host (the CPU
// backend): the tuned module is built into Executables
// (runtime/executable.h) with the chosen configs, each contest's finalists
// are compiled (hits of the backend's kernel cache: they were compiled to
// be tuned), and the module runs on deterministic pseudo-random arguments
// with a RunProbe that swaps the finalists in; each run is timed with the
// host clock. Not for a backend whose Kernel::Run returns before the
// kernel is done. Not thread-safe.
#ifndef XTUNE_AUTOTUNE_EXECUTABLE_TIMER_H_
#define XTUNE_AUTOTUNE_EXECUTABLE_TIMER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotune/in_module.h"
#include "codegen/backend.h"
#include "ir/module.h"
#include "runtime/executable.h"

namespace xtune {

class ExecutableModuleTimer : public ModuleTimer {
 public:
  // `fused_copy` returns a copy of the fused module being tuned (the
  // compiler fuses its module again): the executable owns it, and the
  // tuned module's fusions are matched to it by name. `backend` is
  // borrowed and must outlive the timer.
  ExecutableModuleTimer(
      Backend* backend,
      std::function<absl::StatusOr<std::unique_ptr<Module>>()> fused_copy,
      ExecutableOptions options = {});

  // See ModuleTimer. Start's errors: InvalidArgument when the copy lacks a
  // fusion of `configs`; the executable's compile errors; a failed run.
  absl::Status Start(
      const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
      const InModuleOptions& options) override;
  absl::StatusOr<InModuleTiming> Time(const InModuleContest& contest,
                                      int contests_left) override;
  absl::Status Keep(const InModuleContest& contest, int index) override;
  void Finish() override;

 private:
  // The executables' indices of `contest`'s fusions.
  absl::StatusOr<std::vector<size_t>> Members(const InModuleContest& contest) const;
  // One run of executable `e`, its wall time.
  absl::StatusOr<double> RunOnce(size_t e);

  Backend* backend_;
  std::function<absl::StatusOr<std::unique_ptr<Module>>()> fused_copy_;
  ExecutableOptions options_;
  InModuleOptions in_module_;
  // One executable per round (see the .cc; fewer for a module of over
  // 1 GiB of buffers), the same fusions in the same order; the probe's
  // substitutes apply to all.
  std::vector<std::unique_ptr<Executable>> exes_;
  absl::flat_hash_map<std::string, size_t> index_of_;  // fusion name
  std::vector<Literal> args_;
  RunProbe probe_;
  // The kernels Keep() swapped in (the probe points at them).
  std::vector<std::unique_ptr<Kernel>> kept_;
  // The last contest Time() ran (its first fusion's name, its finalists)
  // and its kernels, which Keep() takes instead of compiling again.
  std::string timed_fusion_;
  std::vector<KernelConfig> timed_finalists_;
  std::vector<std::unique_ptr<Kernel>> timed_kernels_;
  double spent_seconds_ = 0;  // of the budget
  double run_seconds_ = 0;    // one run, as Start measured
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_EXECUTABLE_TIMER_H_
