#include "compiler/xla_flags.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(XlaFlagsTest, ParsesEveryAutotuningFlag) {
  XlaFlags f;
  std::vector<std::string> warnings;
  ASSERT_THAT(
      ApplyXlaFlagsEnv(
          "--xla_gpu_autotune_level=5 --xla_gpu_exhaustive_tiling_search "
          "--xla_gpu_autotune_gemm_rtol=0.05 "
          "--xla_gpu_crash_on_verification_failures=true "
          "\"--xla_gpu_override_gemm_autotuner=block_m:64 block_k:32\" "
          "--xla_gpu_dump_autotune_logs_to=/tmp/log.textproto "
          "--xla_gpu_force_compilation_parallelism=3 "
          "--xla_gpu_cublas_fallback=false",
          &f, &warnings),
      IsOk());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(f.autotune.level, 5);
  EXPECT_TRUE(f.autotune.exhaustive);
  EXPECT_EQ(f.autotune.rtol, 0.05);
  EXPECT_TRUE(f.autotune.crash_on_verification_failures);
  EXPECT_EQ(f.autotune.override_gemm, "block_m:64 block_k:32");
  EXPECT_EQ(f.autotune.dump_logs_to, "/tmp/log.textproto");
  EXPECT_EQ(f.autotune.compilation_parallelism, 3);
  EXPECT_FALSE(f.autotune.library_fallback);
}

TEST(XlaFlagsTest, ParsesEveryPersistentCacheFlag) {
  XlaFlags f;
  std::vector<std::string> warnings;
  ASSERT_THAT(
      ApplyXlaFlagsEnv(
          "--xla_gpu_dump_autotune_results_to=TEST_UNDECLARED_OUTPUTS_DIR/a.pb "
          "--xla_gpu_load_autotune_results_from=cache.textproto "
          "--xla_gpu_require_complete_aot_autotune_results "
          "--xla_gpu_per_fusion_autotune_cache_dir=/tmp/dir "
          "--xla_gpu_experimental_autotune_cache_mode=AUTOTUNE_CACHE_MODE_READ "
          "--xtune_dump_autotune_results_merge=true --xtune_autotune_details",
          &f, &warnings),
      IsOk());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(f.cache.dump_to, "TEST_UNDECLARED_OUTPUTS_DIR/a.pb");
  EXPECT_EQ(f.cache.load_from, "cache.textproto");
  EXPECT_TRUE(f.autotune.require_complete);
  EXPECT_EQ(f.cache.per_fusion_dir, "/tmp/dir");
  EXPECT_EQ(f.cache.per_fusion_mode, DirectoryCacheMode::kRead);
  EXPECT_TRUE(f.cache.dump_merge);
  EXPECT_TRUE(f.autotune.record_candidates);
  EXPECT_THAT(ApplyXlaFlag("xla_gpu_experimental_autotune_cache_mode", "write",
                           true, &f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("update or read")));
  EXPECT_THAT(
      ApplyXlaFlag("xla_gpu_load_autotune_results_from", "", false, &f),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a file path")));
}

TEST(XlaFlagsTest, UnknownFlagsInTheEnvironmentAreWarningsOnly) {
  XlaFlags f;
  std::vector<std::string> warnings;
  ASSERT_THAT(
      ApplyXlaFlagsEnv("--xla_dump_to=/tmp/x stray --xla_gpu_autotune_level=2",
                       &f, &warnings),
      IsOk());
  EXPECT_EQ(f.autotune.level, 2);
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("unknown flag '--xla_dump_to'"),
                                    HasSubstr("ignoring 'stray'")));
}

TEST(XlaFlagsTest, BadValuesAreErrors) {
  XlaFlags f;
  std::vector<std::string> warnings;
  EXPECT_THAT(ApplyXlaFlagsEnv("--xla_gpu_autotune_level=9", &f, &warnings),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("XLA_FLAGS: --xla_gpu_autotune_level=9: "
                                 "expected an integer in [0, 5]")));
  EXPECT_THAT(ApplyXlaFlag("xla_gpu_cublas_fallback", "maybe", true, &f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected true or false")));
  EXPECT_THAT(ApplyXlaFlag("xla_nope", "", false, &f),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace xtune
