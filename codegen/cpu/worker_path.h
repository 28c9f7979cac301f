// Where the CPU backend's worker program (xtune_cpu_worker) is, so that the
// CLI, tests and programs using the library find it without help.
#ifndef XTUNE_CODEGEN_CPU_WORKER_PATH_H_
#define XTUNE_CODEGEN_CPU_WORKER_PATH_H_

#include <string>

#include "absl/status/statusor.h"

namespace xtune::cpu {

// FindWorkerProgram (util/worker_path.h) for xtune_cpu_worker and
// $XTUNE_CPU_WORKER: beside this program, in ../libexec/xtune, the worker
// of the build tree this library was built in, then the installed one.
// Unavailable listing the places looked at.
absl::StatusOr<std::string> FindCpuWorker();

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_WORKER_PATH_H_
