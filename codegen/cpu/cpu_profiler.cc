#include "codegen/cpu/cpu_profiler.h"

#include "codegen/cpu/cpu_kernel.h"
#include "codegen/cpu/cpu_worker_protocol.h"
#include "codegen/cpu/worker_path.h"

namespace xtune::cpu {

absl::StatusOr<std::string> CpuProfiler::FindWorker() const {
  return FindCpuWorker();
}

std::string CpuProfiler::SetupMessage(absl::Span<Kernel* const> kernels,
                                      const WorkerLayout& layout,
                                      std::vector<bool>* runnable) const {
  WorkerSetup setup;
  setup.threads = threads_;
  setup.flush_bytes = flush_bytes_;
  setup.layout = layout;
  for (Kernel* k : kernels) {
    WorkerKernel wk;
    auto* cpu = dynamic_cast<CpuKernel*>(k);
    if (cpu != nullptr) {
      wk.path = cpu->object().path();
      wk.sha256 = cpu->object().sha256();
      wk.symbol = cpu->symbol();
      wk.values = cpu->values();
    }
    runnable->push_back(cpu != nullptr);
    setup.kernels.push_back(std::move(wk));
  }
  return EncodeSetup(setup);
}

}  // namespace xtune::cpu
