// Convolutions as implicit gemms (plain HLO convolutions in conv fusions,
// and XLA's cuDNN calls), end to end through the CLI.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli_util.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ContainsRegex;
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

// A plain convolution as JAX writes it (NHWC, bias, ReLU; an f32 and a bf16
// one, its convert to bf16 in the first's epilogue) is a conv fusion: an
// implicit gemm by default on the CPU, cuDNN's heuristic (f32) or
// cuda_implicit_gemm (bf16) in the emulator, every CPU candidate right when
// tuned, and its tuned configs reused from a dump.
TEST_F(CliTest, PlainConvolutionsAreConvFusions) {
  const std::string hlo = Write("convs.hlo", R"hlo(HloModule convs
ENTRY e {
  x = f32[2,9,9,16] parameter(0)
  w = f32[3,3,16,24] parameter(1)
  b = f32[24] parameter(2)
  c = f32[2,5,5,24] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,5,5,24] broadcast(b), dimensions={3}
  s = f32[2,5,5,24] add(c, bb)
  z = f32[] constant(0)
  zb = f32[2,5,5,24] broadcast(z), dimensions={}
  r = f32[2,5,5,24] maximum(s, zb)
  h = bf16[2,5,5,24] convert(r)
  v = bf16[1,1,24,32] parameter(3)
  ROOT d = bf16[2,32,5,5] convolution(h, v), window={size=1x1}, dim_labels=b01f_01io->bf01
}
)hlo");
  Result defaults = RunXtune("compile " + hlo + " --backend=cpu --xla_gpu_autotune_level=0");
  ASSERT_EQ(defaults.exit_code, 0) << defaults.output;
  EXPECT_THAT(defaults.output, HasSubstr("\nconv_fusion      conv      bf16[2,5,5,24]     cpu_gemm:"));
  EXPECT_THAT(defaults.output, HasSubstr("\nconv_fusion.1    conv      bf16[2,32,5,5]     cpu_gemm:"));
  const std::string dump = dir_ + "/convs.textproto";
  Result tuned = RunXtune("compile " + hlo + " --backend=cpu --xla_gpu_autotune_level=4"
                          " --xla_gpu_crash_on_verification_failures"
                          " --xla_gpu_dump_autotune_results_to=" + dump);
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  EXPECT_THAT(tuned.output, HasSubstr("2 tuned"));
  EXPECT_THAT(tuned.output, HasSubstr(" 0 wrong"));
  Result reused = RunXtune("run " + hlo + " --backend=cpu --verify"
                           " --xla_gpu_load_autotune_results_from=" + dump);
  ASSERT_EQ(reused.exit_code, 0) << reused.output;
  EXPECT_THAT(reused.output, HasSubstr("2 from the cache"));
  EXPECT_THAT(reused.output, HasSubstr("verify: every output matches"));
  Result gpu = RunXtune("run " + hlo + " --backend=cuda_emulator --verify");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.output;
  EXPECT_THAT(gpu.output, ContainsRegex("'conv_fusion' is not in the cache[^\n]* "
                                        "config cuda_cudnn:algorithm=-1"));
  EXPECT_THAT(gpu.output, ContainsRegex("'conv_fusion.1' is not in the cache[^\n]* "
                                        "config cuda_implicit_gemm:"));
  EXPECT_THAT(gpu.output, HasSubstr("verify: every output matches"));
  // Every candidate of plain conv fusions (cuDNN's, the implicit gemms, the
  // direct convolutions) runs in the emulator and matches the reference.
  Result all = RunXtune("compile " + std::string(XTUNE_SOURCE_DIR) +
                        "/tests/golden/windowed.hlo --backend=cuda_emulator"
                        " --xla_gpu_autotune_level=4");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_THAT(all.output, HasSubstr("candidates run once and checked, not timed"));
  EXPECT_THAT(all.output, HasSubstr(", 0 wrong, 0 failed to run"));
  EXPECT_THAT(all.output, HasSubstr("\nconv_fusion.1    conv "));
  // A bad override names the kind the user gave.
  Result bad = RunXtune("run " + hlo + " --backend=cuda_emulator"
                        " --config=conv_fusion.1:cuda_implicit_gemm:block_m=7");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("cuda_implicit_gemm:block_m=7,"));
  EXPECT_THAT(bad.output, HasSubstr("must be powers of two"));
}

}  // namespace
}  // namespace xtune
