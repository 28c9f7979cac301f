// Where a worker program is (the CPU and GPU profilers' workers), so that
// the CLI, tests and programs using the library find it without help.
#ifndef XTUNE_UTIL_WORKER_PATH_H_
#define XTUNE_UTIL_WORKER_PATH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace xtune {

struct WorkerProgram {
  std::string name;     // "xtune_cpu_worker"
  std::string env_var;  // "XTUNE_CPU_WORKER"
  std::string what;     // "the CPU backend's worker program"
  // Paths known when the library was built: its build tree's copy, the
  // installed one.
  std::vector<std::string> built_in;
};

// The first executable of:
//   $env_var (when set: only it, an error when it is not there),
//   <dir of this program>/name,
//   <dir of this program>/../libexec/xtune/name  (installed),
//   <dir of the shared library holding this code>/../libexec/xtune/name
//     (an installed libxtune.so linked into another program),
//   the built-in paths, in order.
// Unavailable listing the places looked at.
absl::StatusOr<std::string> FindWorkerProgram(const WorkerProgram& program);

}  // namespace xtune

#endif  // XTUNE_UTIL_WORKER_PATH_H_
