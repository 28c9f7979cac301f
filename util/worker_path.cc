#include "util/worker_path.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xtune {
namespace {

bool Executable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) &&
         access(path.c_str(), X_OK) == 0;
}

}  // namespace

absl::StatusOr<std::string> FindWorkerProgram(const WorkerProgram& program) {
  if (const char* env = std::getenv(program.env_var.c_str());
      env != nullptr && *env != '\0') {
    if (Executable(env)) return std::string(env);
    return absl::UnavailableError(absl::StrCat(
        "$", program.env_var, "='", env, "' is not an executable file"));
  }
  std::vector<std::string> candidates;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path dir = self.parent_path();
    candidates.push_back((dir / program.name).string());
    candidates.push_back(
        (dir.parent_path() / "libexec" / "xtune" / program.name).string());
  }
  // The library holding this code, when it is a shared one apart from the
  // program (an installed libxtune.so used by another project's binary).
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&FindWorkerProgram), &info) != 0 &&
      info.dli_fname != nullptr) {
    std::filesystem::path lib = std::filesystem::absolute(info.dli_fname, ec);
    if (!ec && lib != self) {
      candidates.push_back(
          (lib.parent_path().parent_path() / "libexec" / "xtune" / program.name).string());
    }
  }
  for (const std::string& p : program.built_in) candidates.push_back(p);
  for (const std::string& c : candidates) {
    if (Executable(c)) return c;
  }
  return absl::UnavailableError(absl::StrCat(
      program.what, " '", program.name, "' is not installed (looked at ",
      absl::StrJoin(candidates, ", "), "); build the target ", program.name,
      " or set $", program.env_var));
}

}  // namespace xtune
