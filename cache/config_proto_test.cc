#include "cache/config_proto.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

class RoundTrip : public ::testing::TestWithParam<KernelConfig> {};

TEST_P(RoundTrip, ConfigSurvivesTheProto) {
  xla::AutotuneResult r;
  ASSERT_THAT(ConfigToResult(GetParam(), &r), IsOk());
  EXPECT_THAT(ValidateResult(r), IsOk());
  EXPECT_THAT(ConfigFromResult(r), IsOkAndHolds(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, RoundTrip,
    ::testing::Values(KernelConfig("cpu_gemm", {{"mc", 64},
                                                {"nc", 256},
                                                {"kc", 256},
                                                {"mr", 6},
                                                {"nr", 16},
                                                {"split_k", 1},
                                                {"threads", 2}}),
                      KernelConfig("cpu_gemm_blas", {{"threads", 1}}),
                      KernelConfig("cpu_loop", {{"vector_width", 8},
                                                {"unroll", 2},
                                                {"rows_per_task", 4096},
                                                {"threads", 1}}),
                      KernelConfig("cpu_row_reduce", {{"vector_width", 8},
                                                      {"unroll", 4},
                                                      {"rows_per_task", 16},
                                                      {"threads", 2}}),
                      KernelConfig("cpu_col_reduce", {{"vector_width", 16},
                                                      {"unroll", 1},
                                                      {"cols_per_task", 64},
                                                      {"threads", 1}}),
                      KernelConfig("triton_gemm", {{"block_m", 64},
                                                   {"block_n", 32},
                                                   {"block_k", 32},
                                                   {"split_k", 1},
                                                   {"num_stages", 3},
                                                   {"num_warps", 4},
                                                   {"num_ctas", 1}}),
                      KernelConfig("fake", {{"tile", 3}, {"x", -1}})));

TEST(ConfigProtoTest, TypedKeyMissingAParameterIsAnError) {
  xla::AutotuneResult r;
  EXPECT_THAT(ConfigToResult(KernelConfig("cpu_gemm", {{"mc", 1}}), &r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nc")));
}

TEST(ConfigProtoTest, XlaRuleRejectsNonPositiveTritonParameters) {
  xla::AutotuneResult r;
  ASSERT_THAT(ConfigToResult(KernelConfig("triton_gemm", {{"block_m", 64},
                                                          {"block_n", 32},
                                                          {"block_k", 32},
                                                          {"split_k", 1},
                                                          {"num_stages", 0},
                                                          {"num_warps", 4},
                                                          {"num_ctas", 1}}),
                             &r),
              IsOk());
  EXPECT_THAT(ValidateResult(r), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("num_stages")));
  r.mutable_cpu_streaming()->set_unroll(-1);
  EXPECT_THAT(ValidateResult(r), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ConfigProtoTest, XlaOnlyKeysAreNotRunnable) {
  xla::AutotuneResult r;
  r.mutable_gemm()->set_algorithm(13);
  EXPECT_THAT(ConfigFromResult(r),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("gemm")));
  EXPECT_EQ(KeyTypeName(r), "gemm");
}

}  // namespace
}  // namespace xtune
