#include "cache/path_resolution.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

absl::Status Unresolved(absl::string_view path, absl::string_view prefix,
                        absl::string_view variable) {
  return absl::FailedPreconditionError(
      absl::StrCat("File path can not be resolved: '", path, "' starts with ",
                   prefix, ", which needs the environment variable ", variable,
                   ", and it is not set"));
}

}  // namespace

absl::StatusOr<std::string> ResolveAutotunePath(absl::string_view path) {
  size_t slash = path.find('/');
  absl::string_view first = path.substr(0, slash);
  absl::string_view rest = slash == absl::string_view::npos
                               ? absl::string_view()
                               : path.substr(slash);
  if (first == "TEST_UNDECLARED_OUTPUTS_DIR") {
    const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    if (dir == nullptr)
      return Unresolved(path, "TEST_UNDECLARED_OUTPUTS_DIR",
                        "TEST_UNDECLARED_OUTPUTS_DIR");
    return absl::StrCat(dir, rest);
  }
  if (first == "TEST_WORKSPACE") {
    const char* srcdir = std::getenv("TEST_SRCDIR");
    const char* workspace = std::getenv("TEST_WORKSPACE");
    if (srcdir == nullptr) {
      return Unresolved(path, "TEST_WORKSPACE", "TEST_SRCDIR");
    }
    if (workspace == nullptr) {
      return Unresolved(path, "TEST_WORKSPACE", "TEST_WORKSPACE");
    }
    return absl::StrCat(srcdir, "/", workspace, rest);
  }
  return std::string(path);
}

}  // namespace xtune
