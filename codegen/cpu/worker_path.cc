#include "codegen/cpu/worker_path.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xtune::cpu {
namespace {

constexpr char kWorkerName[] = "xtune_cpu_worker";

bool Executable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) &&
         access(path.c_str(), X_OK) == 0;
}

}  // namespace

absl::StatusOr<std::string> FindCpuWorker() {
  if (const char* env = std::getenv("XTUNE_CPU_WORKER");
      env != nullptr && *env != '\0') {
    if (Executable(env)) return std::string(env);
    return absl::UnavailableError(absl::StrCat(
        "$XTUNE_CPU_WORKER='", env, "' is not an executable file"));
  }
  std::vector<std::string> candidates;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path dir = self.parent_path();
    candidates.push_back((dir / kWorkerName).string());
    candidates.push_back(
        (dir.parent_path() / "libexec" / "xtune" / kWorkerName).string());
  }
#ifdef XTUNE_CPU_WORKER_BUILD_PATH
  candidates.push_back(XTUNE_CPU_WORKER_BUILD_PATH);
#endif
#ifdef XTUNE_CPU_WORKER_INSTALL_PATH
  candidates.push_back(XTUNE_CPU_WORKER_INSTALL_PATH);
#endif
  for (const std::string& c : candidates) {
    if (Executable(c)) return c;
  }
  return absl::UnavailableError(absl::StrCat(
      "the CPU backend's worker program '", kWorkerName,
      "' is not installed (looked at ", absl::StrJoin(candidates, ", "),
      "); build the target xtune_cpu_worker or set $XTUNE_CPU_WORKER"));
}

}  // namespace xtune::cpu
