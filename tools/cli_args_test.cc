#include "tools/cli_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

const std::vector<FlagSpec> kSpecs = {
    {"backend", true}, {"input", true, true}, {"verify", false}};

TEST(CliArgsTest, ParsesFormsOfFlags) {
  absl::StatusOr<ParsedArgs> a =
      ParseArgs({"m.hlo", "--backend=cpu", "--input", "a.npy", "--input=b.npy",
                 "--verify", "--", "--literal"},
                kSpecs);
  ASSERT_THAT(a, IsOk());
  EXPECT_THAT(a->positional, ElementsAre("m.hlo", "--literal"));
  EXPECT_EQ(a->Get("backend", ""), "cpu");
  EXPECT_THAT(a->flags.at("input"), ElementsAre("a.npy", "b.npy"));
  EXPECT_EQ(a->Get("verify", "false"), "true");
  EXPECT_EQ(a->Get("missing", "default"), "default");
}

TEST(CliArgsTest, RejectsBadFlags) {
  EXPECT_THAT(ParseArgs({"--nope=1"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown flag '--nope'")));
  EXPECT_THAT(
      ParseArgs({"--backend"}, kSpecs),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a value")));
  EXPECT_THAT(ParseArgs({"--backend=a", "--backend=b"}, kSpecs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than once")));
  EXPECT_THAT(
      ParseArgs({"--verify=maybe"}, kSpecs),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is a switch")));
}

}  // namespace
}  // namespace xtune
