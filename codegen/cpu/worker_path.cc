#include "codegen/cpu/worker_path.h"

#include "util/worker_path.h"

namespace xtune::cpu {

absl::StatusOr<std::string> FindCpuWorker() {
  WorkerProgram program{"xtune_cpu_worker", "XTUNE_CPU_WORKER",
                        "the CPU backend's worker program", {}};
#ifdef XTUNE_CPU_WORKER_BUILD_PATH
  program.built_in.push_back(XTUNE_CPU_WORKER_BUILD_PATH);
#endif
#ifdef XTUNE_CPU_WORKER_INSTALL_PATH
  program.built_in.push_back(XTUNE_CPU_WORKER_INSTALL_PATH);
#endif
  return FindWorkerProgram(program);
}

}  // namespace xtune::cpu
