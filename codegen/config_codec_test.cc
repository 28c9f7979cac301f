#include "codegen/config_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::IsOkAndHolds;
using ::xtune::testing::StatusIs;

TEST(ConfigCodecTest, OtherKeyRoundTrip) {
  KernelConfig c("fake", {{"tile", 3}, {"x", -1}});
  xla::AutotuneResult r;
  ConfigToOtherKey(c, &r);
  EXPECT_EQ(r.other().name(), "fake:tile=3,x=-1");
  EXPECT_THAT(ConfigFromOtherKey(r), IsOkAndHolds(c));
  r.mutable_other()->set_name("no colon");
  EXPECT_THAT(ConfigFromOtherKey(r),
              StatusIs(absl::StatusCode::kUnimplemented));
  r.mutable_gemm()->set_algorithm(3);
  EXPECT_THAT(ConfigFromOtherKey(r),
              StatusIs(absl::StatusCode::kUnimplemented));
}

TEST(ConfigCodecTest, TritonKeyRoundTrip) {
  KernelConfig c("triton_gemm", {{"block_m", 64},
                                 {"block_n", 32},
                                 {"block_k", 32},
                                 {"split_k", 1},
                                 {"num_stages", 3},
                                 {"num_warps", 4},
                                 {"num_ctas", 1}});
  xla::AutotuneResult r;
  ASSERT_THAT(ConfigToTritonKey(c, &r), IsOk());
  EXPECT_EQ(r.triton().num_stages(), 3);
  EXPECT_THAT(ConfigFromTritonKey(r), IsOkAndHolds(c));
  EXPECT_THAT(ConfigToTritonKey(KernelConfig("triton_gemm", {{"block_m", 1}}),
                                &r),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lacks 'block_n'")));
}

TEST(ConfigCodecTest, TextProtoReportsPositionAndPresentFields) {
  xla::AutotuneResult::TritonGemmKey key;
  std::set<std::string> present;
  ASSERT_THAT(ParseTextProto("block_m: 64, split_k: 0", "flag", &key, &present),
              IsOk());
  EXPECT_EQ(key.block_m(), 64);
  EXPECT_THAT(present, ElementsAre("block_m", "split_k"));
  EXPECT_THAT(ParseTextProto("block_m: 64\nblock_q: 1", "--f", &key),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--f: cannot parse")));
  EXPECT_THAT(ParseTextProto("block_m: 64\nblock_q: 1", "--f", &key),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("2:")));
}

}  // namespace
}  // namespace xtune
