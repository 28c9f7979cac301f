#include "cache/config_proto.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(ConfigProtoTest, XlaRuleRejectsNonPositiveTritonParameters) {
  xla::AutotuneResult r;
  auto* k = r.mutable_triton();
  k->set_block_m(64);
  k->set_block_n(32);
  k->set_block_k(32);
  k->set_split_k(1);
  k->set_num_stages(1);
  k->set_num_warps(4);
  k->set_num_ctas(1);
  EXPECT_THAT(ValidateResult(r), IsOk());
  k->set_num_stages(0);
  EXPECT_THAT(ValidateResult(r), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("num_stages")));
  r.mutable_cpu_streaming()->set_unroll(-1);
  EXPECT_THAT(ValidateResult(r), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ConfigProtoTest, KeyTypeNamesAndRunTimes) {
  xla::AutotuneResult r;
  r.mutable_gemm()->set_algorithm(13);
  EXPECT_EQ(KeyTypeName(r), "gemm");
  EXPECT_FALSE(RunTimeSeconds(r).has_value());
  SetDurationSeconds(1.5e-6, r.mutable_run_time());
  EXPECT_DOUBLE_EQ(*RunTimeSeconds(r), 1.5e-6);
}

}  // namespace
}  // namespace xtune
