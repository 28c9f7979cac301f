#include "cache/path_resolution.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

TEST(PathResolutionTest, PlainPathsAreUnchanged) {
  EXPECT_THAT(ResolveAutotunePath("a/b.textproto"),
              IsOkAndHolds("a/b.textproto"));
  EXPECT_THAT(ResolveAutotunePath("/x/TEST_WORKSPACE/y"),
              IsOkAndHolds("/x/TEST_WORKSPACE/y"));
  // Only a whole first segment counts.
  EXPECT_THAT(ResolveAutotunePath("TEST_WORKSPACEX/y"),
              IsOkAndHolds("TEST_WORKSPACEX/y"));
}

TEST(PathResolutionTest, UndeclaredOutputsDir) {
  setenv("TEST_UNDECLARED_OUTPUTS_DIR", "/tmp/outs", 1);
  EXPECT_THAT(ResolveAutotunePath("TEST_UNDECLARED_OUTPUTS_DIR/c.pb"),
              IsOkAndHolds("/tmp/outs/c.pb"));
  unsetenv("TEST_UNDECLARED_OUTPUTS_DIR");
  EXPECT_THAT(ResolveAutotunePath("TEST_UNDECLARED_OUTPUTS_DIR/c.pb"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("File path can not be resolved")));
}

TEST(PathResolutionTest, Workspace) {
  setenv("TEST_SRCDIR", "/runfiles", 1);
  setenv("TEST_WORKSPACE", "ws", 1);
  EXPECT_THAT(ResolveAutotunePath("TEST_WORKSPACE/data/c.txt"),
              IsOkAndHolds("/runfiles/ws/data/c.txt"));
  unsetenv("TEST_SRCDIR");
  EXPECT_THAT(ResolveAutotunePath("TEST_WORKSPACE/data/c.txt"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("starts with TEST_WORKSPACE, which needs the "
                                 "environment variable TEST_SRCDIR")));
  setenv("TEST_SRCDIR", "/runfiles", 1);
  unsetenv("TEST_WORKSPACE");
  EXPECT_THAT(ResolveAutotunePath("TEST_WORKSPACE/data/c.txt"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("File path can not be resolved")));
  unsetenv("TEST_SRCDIR");
}

}  // namespace
}  // namespace xtune
