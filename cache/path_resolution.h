// Resolving the paths given to --xla_gpu_load_autotune_results_from and
// --xla_gpu_dump_autotune_results_to the way XLA does for tests run under
// Bazel (DESIGN §7.3): a first path segment exactly
// `TEST_UNDECLARED_OUTPUTS_DIR` becomes that environment variable, and
// `TEST_WORKSPACE` becomes `$TEST_SRCDIR/$TEST_WORKSPACE`. Other paths are
// left as they are (relative ones are relative to the working directory).
#ifndef XTUNE_CACHE_PATH_RESOLUTION_H_
#define XTUNE_CACHE_PATH_RESOLUTION_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune {

// The resolved path. FailedPrecondition "File path can not be resolved"
// (XLA's words) naming the path and the unset variable.
absl::StatusOr<std::string> ResolveAutotunePath(absl::string_view path);

}  // namespace xtune

#endif  // XTUNE_CACHE_PATH_RESOLUTION_H_
