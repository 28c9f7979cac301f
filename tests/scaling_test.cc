// Parse, verify, fuse, print and evaluate must be linear (or n log n) in
// the module's size: real models have 10^5 instructions and more. The test
// counts the instructions the CPU executes (callgrind, deterministic) for
// scaling_probe at N and 4N and requires the ratio to stay near 4; a
// quadratic pass gives about 16.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#include "gtest/gtest.h"
#include "util/file.h"

namespace xtune {
namespace {

// Instructions executed by `scaling_probe kind n` under callgrind.
int64_t CountWork(const std::string& kind, int64_t n) {
  std::string out = std::string(::testing::TempDir()) + "/callgrind." + kind +
                    "." + std::to_string(n);
  std::string cmd = "valgrind --tool=callgrind --callgrind-out-file=" + out +
                    " " XTUNE_PROBE " " + kind + " " + std::to_string(n) +
                    " > " + out + ".log 2>&1";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) {
      return std::atoll(line.substr(line.find(':') + 1).c_str());
    }
  }
  ADD_FAILURE() << "no totals in " << out;
  return -1;
}

void ExpectLinear(const std::string& kind, int64_t n) {
  int64_t small = CountWork(kind, n);
  int64_t large = CountWork(kind, 4 * n);
  ASSERT_GT(small, 0);
  double ratio = static_cast<double>(large) / static_cast<double>(small);
  // Linear work gives about 4 (start-up costs pull it below); n log n a bit
  // more; a quadratic pass about 16.
  EXPECT_LT(ratio, 5.5) << kind << ": " << small << " instructions at n=" << n
                        << ", " << large << " at n=" << 4 * n;
  EXPECT_GT(ratio, 2.0) << kind << ": the probe did not scale its work";
}

class ScalingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("valgrind --version > /dev/null 2>&1") != 0) {
      GTEST_SKIP() << "valgrind is not installed (scripts/install_deps.sh "
                      "installs it)";
    }
  }
};

TEST_F(ScalingTest, ChainOfInstructions) { ExpectLinear("chain", 4000); }
TEST_F(ScalingTest, OneValueWithManyUsers) { ExpectLinear("wide", 4000); }
TEST_F(ScalingTest, ManyCalledComputations) { ExpectLinear("calls", 2000); }

}  // namespace
}  // namespace xtune
