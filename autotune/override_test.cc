#include "autotune/override.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

const KernelConfig kBase("cpu_gemm", {{"mc", 96}, {"nc", 4096}, {"kc", 512},
                                      {"mr", 6}, {"nr", 16}, {"split_k", 1},
                                      {"threads", 2}});

TEST(OverrideTest, XlaTritonGemmKeyMapsToCpuBlocks) {
  absl::StatusOr<KernelConfig> c = ApplyGemmOverride(
      kBase,
      "block_m:64 block_n:128 block_k:32 split_k:1 num_stages:1 num_warps:4 "
      "num_ctas:1");
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->ParamsString(),
            "mc=64,nc=128,kc=32,mr=6,nr=16,split_k=1,threads=2");
}

TEST(OverrideTest, CpuParameterNames) {
  absl::StatusOr<KernelConfig> c =
      ApplyGemmOverride(kBase, "{ mr: 4, nr: 24 threads: 1 }");
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->Get("mr"), 4);
  EXPECT_EQ(c->Get("nr"), 24);
  EXPECT_EQ(c->Get("threads"), 1);
}

TEST(OverrideTest, BadTextIsAnError) {
  EXPECT_THAT(ApplyGemmOverride(kBase, "block_q:3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'block_q' is not a field")));
  EXPECT_THAT(ApplyGemmOverride(kBase, "mc 3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected ':'")));
  EXPECT_THAT(ApplyGemmOverride(kBase, "mc: x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs an integer")));
  EXPECT_THAT(ApplyGemmOverride(kBase, "mc: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be positive")));
  EXPECT_THAT(ApplyGemmOverride(kBase, " "),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no fields")));
}

}  // namespace
}  // namespace xtune
