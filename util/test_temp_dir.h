// Temporary directories for tests: unique to the test process and removed,
// with everything in them, when it exits, so that runs of `make test` leave
// nothing behind in the temp directory.
#ifndef XTUNE_UTIL_TEST_TEMP_DIR_H_
#define XTUNE_UTIL_TEST_TEMP_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "gtest/gtest.h"

namespace xtune::testing {

// "<gtest temp dir>/<name>_<pid>", emptied and created; removed at exit.
// Thread-safe.
inline std::string TestTempDir(const std::string& name) {
  struct Registry {
    std::mutex mu;
    std::vector<std::string> dirs;
    ~Registry() {
      for (const std::string& d : dirs) {
        std::error_code ignored;
        std::filesystem::remove_all(d, ignored);
      }
    }
  };
  static Registry* registry = new Registry();
  static struct Cleanup {
    ~Cleanup() { delete registry; }
  } cleanup;
  std::string base = ::testing::TempDir();
  if (!base.empty() && base.back() != '/') base += '/';
  std::string dir = base + name + "_" + std::to_string(getpid());
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  std::filesystem::create_directories(dir, ignored);
  std::lock_guard<std::mutex> lock(registry->mu);
  registry->dirs.push_back(dir);
  return dir;
}

}  // namespace xtune::testing

#endif  // XTUNE_UTIL_TEST_TEMP_DIR_H_
