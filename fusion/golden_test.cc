// Golden tests of the fusion pass: each input module's fused form, printed,
// must equal the file checked in under tests/golden/. Inputs are the
// examples, XLA's test data and the extra patterns in tests/golden/*.hlo.
// After an intended change, `make golden` rewrites the expected files;
// review the diff before committing.
#include <filesystem>

#include "fusion/fusion_pass.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::xtune::testing::IsOk;

struct GoldenCase {
  std::string input;
  std::string expected;
};

std::vector<GoldenCase> Cases() {
  std::string root = XTUNE_SOURCE_DIR;
  std::vector<GoldenCase> cases;
  for (const char* dir : {"examples", "tests/data", "tests/golden"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(root + "/" + dir)) {
      std::string name = e.path().filename().string();
      if (e.path().extension() != ".hlo" ||
          name.find(".fused.") != std::string::npos) {
        continue;
      }
      std::string prefix = std::string(dir) == "tests/golden"
                               ? ""
                               : std::filesystem::path(dir).filename().string() + "_";
      cases.push_back({e.path().string(),
                       root + "/tests/golden/" + prefix +
                           e.path().stem().string() + ".fused.hlo"});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) {
              return a.input < b.input;
            });
  return cases;
}

TEST(GoldenTest, HasCases) { EXPECT_GE(Cases().size(), 8u); }

TEST(GoldenTest, FusedModulesMatchTheCheckedInText) {
  for (const GoldenCase& c : Cases()) {
    SCOPED_TRACE(c.input);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(c.input);
    ASSERT_THAT(m, IsOk());
    absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
    ASSERT_THAT(fused, IsOk());
    absl::StatusOr<std::string> expected = ReadFile(c.expected);
    ASSERT_THAT(expected, IsOk()) << "missing golden file; run `make golden`";
    EXPECT_EQ(ToString(**fused), *expected)
        << "fused output of " << c.input << " changed; if intended, run "
        << "`make golden` and review the diff of " << c.expected;
  }
}

}  // namespace
}  // namespace xtune
