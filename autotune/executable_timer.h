// The ModuleTimer of backends whose kernels run on the host (the CPU
// backend): the tuned module is built into an Executable
// (runtime/executable.h) with the chosen configs, each contest's finalists
// are compiled (hits of the backend's kernel cache: they were compiled to
// be tuned), and the module runs on deterministic pseudo-random arguments
// with a RunProbe that swaps the finalists in and times them with the host
// clock. Not for a backend whose Kernel::Run returns before the kernel is
// done.
#ifndef XTUNE_AUTOTUNE_EXECUTABLE_TIMER_H_
#define XTUNE_AUTOTUNE_EXECUTABLE_TIMER_H_

#include <functional>
#include <memory>

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

  // See ModuleTimer. Errors: InvalidArgument when the copy lacks a fusion
  // of `configs` or `contests`; the executable's and the finalists'
  // compile errors; a failed run.
  absl::StatusOr<std::vector<std::vector<Timed>>> Time(
      const absl::flat_hash_map<const Instruction*, KernelConfig>& configs,
      const std::vector<InModuleContest>& contests,
      const InModuleOptions& options) override;

 private:
  Backend* backend_;
  std::function<absl::StatusOr<std::unique_ptr<Module>>()> fused_copy_;
  ExecutableOptions options_;
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_EXECUTABLE_TIMER_H_
