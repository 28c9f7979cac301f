// XLA's cuDNN calls as implicit gemms, end to end through the CLI.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;

// A cuDNN call also runs as an implicit gemm (the gemm kernels with the
// call's convolution as their core): the CPU's default for an ungrouped
// call, every candidate agreeing with the reference when tuned; an
// emulator run uses a cuda_implicit_gemm entry (xtune's own result kind,
// under XLA's conv key) and verifies it.
TEST_F(CliTest, CudnnCallsRunAsImplicitGemms) {
  const std::string data = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/";
  Result defaults = RunXtune("compile " + data + "cudnn_calls.hlo --backend=cpu"
                             " --xla_gpu_autotune_level=0");
  ASSERT_EQ(defaults.exit_code, 0) << defaults.output;
  EXPECT_THAT(defaults.output, HasSubstr("\na                loop      f32[2,4,7,8]       cpu_gemm:"));
  EXPECT_THAT(defaults.output, HasSubstr("\nd                loop      f32[2,9,10,6]      cpu_loop:"));
  Result tuned = RunXtune("compile " + data + "cudnn_calls.hlo --backend=cpu"
                          " --xla_gpu_autotune_level=4 --xla_gpu_crash_on_verification_failures");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  EXPECT_THAT(tuned.output, HasSubstr(" 0 wrong"));
  absl::StatusOr<std::string> xla = ReadFile(data + "xla_conv_entries.textproto");
  ASSERT_THAT(xla, IsOk());
  const size_t first = xla->find("results {");
  const size_t second = xla->find("results {", first + 1);
  ASSERT_NE(second, std::string::npos);
  std::string entry = xla->substr(first, second - first);
  const std::string conv = "conv {\n      algorithm: 1\n      tensor_ops_enabled: true\n    }";
  ASSERT_NE(entry.find(conv), std::string::npos);
  entry.replace(entry.find(conv), conv.size(),
                "other {\n      name: \"cuda_implicit_gemm:block_m=64,block_n=64,block_k=32,"
                "split_k=1,num_stages=2,num_warps=4,num_ctas=1\"\n    }");
  std::string cache = Write("implicit.textproto", "version: 3\n" + entry);
  Result run = RunXtune("run " + data + "h200/conv/conv_bias_relu.default.hlo"
                        " --backend=cuda_emulator --verify --xla_gpu_load_autotune_results_from=" +
                        cache);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("1 from the cache"));
  EXPECT_THAT(run.output, HasSubstr("verify: every output matches"));
  Result show = RunXtune("cache show " + cache);
  EXPECT_THAT(show.output, HasSubstr("an xtune kernel config (cuda_implicit_gemm:"));
}

}  // namespace
}  // namespace xtune
