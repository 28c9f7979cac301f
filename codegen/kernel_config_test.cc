#include "codegen/kernel_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(KernelConfigTest, PrintsAndOrdersCanonically) {
  KernelConfig a("cpu_gemm", {{"mc", 96}, {"nc", 256}});
  KernelConfig b("cpu_gemm", {{"mc", 96}, {"nc", 512}});
  EXPECT_EQ(a.ToString(), "cpu_gemm:mc=96,nc=256");
  EXPECT_LT(a, b);
  EXPECT_FALSE(b < a);
  EXPECT_EQ(a.Get("nc"), 256);
  EXPECT_EQ(a.Get("zz", -1), -1);
}

TEST(KernelConfigTest, OverridesOnlyKnownIntegerParameters) {
  KernelConfig base("cpu_loop", {{"vector_width", 8}, {"threads", 2}});
  absl::StatusOr<KernelConfig> c = ApplyOverrides(base, "threads=1, vector_width=4");
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->ParamsString(), "vector_width=4,threads=1");
  EXPECT_THAT(ApplyOverrides(base, "mc=3"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'mc' is not a parameter of cpu_loop kernels "
                                 "(they have: vector_width, threads)")));
  EXPECT_THAT(ApplyOverrides(base, "threads=x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be an integer")));
}

TEST(KernelConfigTest, ParsesWhatItPrints) {
  KernelConfig a("cpu_gemm", {{"mc", 96}, {"nc", 256}, {"split_k", 1}});
  absl::StatusOr<KernelConfig> back = ParseKernelConfig(a.ToString());
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, a);
  EXPECT_THAT(ParseKernelConfig("mc=96"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no kind")));
  EXPECT_THAT(ParseKernelConfig("cpu_gemm:mc=9x6"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'mc=9x6' is not name=integer")));
  EXPECT_THAT(ParseKernelConfig("cpu_gemm:=3"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace xtune
