#include "codegen/cpu/cpu_config_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune::cpu {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

class RoundTrip : public ::testing::TestWithParam<KernelConfig> {};

TEST_P(RoundTrip, ConfigSurvivesTheProto) {
  xla::AutotuneResult r;
  ASSERT_THAT(CpuConfigToResult(GetParam(), &r), IsOk());
  EXPECT_GE(r.key_case(), 1000);  // xtune's own fields
  EXPECT_THAT(CpuConfigFromResult(r), IsOkAndHolds(GetParam()));
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
                                                      {"threads", 1}})));

TEST(CpuConfigCodecTest, MissingParameterOrForeignKindIsAnError) {
  xla::AutotuneResult r;
  EXPECT_THAT(CpuConfigToResult(KernelConfig("cpu_gemm", {{"mc", 1}}), &r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nc")));
  EXPECT_THAT(CpuConfigToResult(KernelConfig("triton_gemm", {}), &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no kernels of kind 'triton_gemm'")));
}

TEST(CpuConfigCodecTest, OtherBackendsKeysAreNotRunnable) {
  xla::AutotuneResult r;
  r.mutable_gemm()->set_algorithm(13);
  EXPECT_THAT(CpuConfigFromResult(r),
              StatusIs(absl::StatusCode::kUnimplemented));
  r.mutable_triton()->set_block_m(16);
  EXPECT_THAT(CpuConfigFromResult(r),
              StatusIs(absl::StatusCode::kUnimplemented));
}

TEST(CpuConfigCodecTest, LibraryCallIsTheBlasKind) {
  EXPECT_TRUE(IsCpuLibraryCall(KernelConfig("cpu_gemm_blas", {{"threads", 1}})));
  EXPECT_FALSE(IsCpuLibraryCall(KernelConfig("cpu_gemm", {{"mc", 1}})));
}

const KernelConfig kBase("cpu_gemm", {{"mc", 96}, {"nc", 4096}, {"kc", 512},
                                      {"mr", 6}, {"nr", 16}, {"split_k", 1},
                                      {"threads", 2}});

TEST(CpuGemmOverrideTest, TritonGemmKeyBlocksMapToCpuBlocks) {
  absl::StatusOr<KernelConfig> c =
      CpuGemmOverride(kBase, "block_m:64 block_n:128 block_k:32 split_k:1 num_ctas:1");
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->ParamsString(),
            "mc=64,nc=128,kc=32,mr=6,nr=16,split_k=1,threads=2");
}

TEST(CpuGemmOverrideTest, GpuOnlyFieldsAreRejectedNotDropped) {
  for (const char* text :
       {"block_m:64 num_warps:4", "num_stages: 1", "is_tma_allowed: true",
        "waves_per_eu: 2"}) {
    EXPECT_THAT(CpuGemmOverride(kBase, text),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("has no meaning on the cpu backend")))
        << text;
  }
  EXPECT_THAT(CpuGemmOverride(kBase, "num_ctas: 2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_ctas must be 1")));
}

TEST(CpuGemmOverrideTest, CpuGemmKeyFields) {
  absl::StatusOr<KernelConfig> c =
      CpuGemmOverride(kBase, "mr: 4, nr: 24 threads: 1");
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->ParamsString(),
            "mc=96,nc=4096,kc=512,mr=4,nr=24,split_k=1,threads=1");
}

TEST(CpuGemmOverrideTest, BadTextIsAnError) {
  EXPECT_THAT(CpuGemmOverride(kBase, "block_q:3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("block_q")));
  EXPECT_THAT(CpuGemmOverride(kBase, "mc 3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot parse")));
  EXPECT_THAT(CpuGemmOverride(kBase, "mc: x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot parse")));
  EXPECT_THAT(CpuGemmOverride(kBase, "mc: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'mc' must be positive")));
  EXPECT_THAT(CpuGemmOverride(kBase, "block_m: 0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'block_m' must be positive")));
  EXPECT_THAT(CpuGemmOverride(kBase, " "),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no fields")));
  EXPECT_THAT(CpuGemmOverride(KernelConfig("cpu_loop", {}), "mc: 3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not cpu_gemm")));
}

}  // namespace
}  // namespace xtune::cpu
