// Where the CPU backend's worker program (xtune_cpu_worker) is, so that the
// CLI, tests and programs using the library find it without help.
#ifndef XTUNE_CODEGEN_CPU_WORKER_PATH_H_
#define XTUNE_CODEGEN_CPU_WORKER_PATH_H_

#include <string>

#include "absl/status/statusor.h"

namespace xtune::cpu {

// The first executable of:
//   $XTUNE_CPU_WORKER (when set: only it, an error when it is not there),
//   <dir of this program>/xtune_cpu_worker,
//   <dir of this program>/../libexec/xtune/xtune_cpu_worker  (installed),
//   the worker of the build tree this library was built in,
//   <install prefix>/libexec/xtune/xtune_cpu_worker.
// Unavailable listing the places looked at.
absl::StatusOr<std::string> FindCpuWorker();

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_WORKER_PATH_H_
