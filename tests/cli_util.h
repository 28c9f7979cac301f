// Running the `xtune` binary from tests (XTUNE_BINARY is set by CMake).
#ifndef XTUNE_TESTS_CLI_UTIL_H_
#define XTUNE_TESTS_CLI_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {

// A gemm fusion and a loop fusion, quick to tune (with the OpenBLAS
// candidate off and a low autotune level).
inline constexpr char kModel[] = R"hlo(HloModule model
ENTRY e {
  x = f32[16,32] parameter(0)
  w = f32[32,24] parameter(1)
  d = f32[16,24] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[16,24] negate(d)
  y = f32[24,16] parameter(2)
  z = f32[24,16] exponential(y)
  ROOT t = (f32[16,24], f32[24,16]) tuple(n, z)
})hlo";

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs a shell command, collecting stdout and stderr.
inline Result RunShell(const std::string& shell_command) {
  std::string command = shell_command + " 2>&1";
  Result r{-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    r.output.append(buffer, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs `xtune ARGS` through the shell; `env` is put before the command
// (e.g. "XLA_FLAGS=... TEST_WORKSPACE=ws" or "env -u VAR").
inline Result RunXtune(const std::string& args, const std::string& env = "") {
  return RunShell(env + " " + std::string(XTUNE_BINARY) + " " + args);
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "xtune_cli_test_" + std::to_string(getpid()) +
           "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    EXPECT_THAT(WriteFileAtomically(path, text), ::xtune::testing::IsOk());
    return path;
  }
  std::string dir_;
};

}  // namespace xtune

#endif  // XTUNE_TESTS_CLI_UTIL_H_
