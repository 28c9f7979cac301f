// End-to-end tests of the `xtune` binary: exit codes, messages, files.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/str_replace.h"
#include "codegen/cuda/nvrtc_or_skip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "tests/cli_util.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using ::xtune::testing::IsOk;

constexpr char kAddModule[] = R"hlo(HloModule add
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3]{0,1} parameter(1)
  s = f32[2,3] add(a, b)
  c = f32[6] bitcast(b)
  ROOT t = (f32[2,3], f32[6]) tuple(s, c)
})hlo";

TEST_F(CliTest, HelpEverywhere) {
  Result top = RunXtune("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.output, HasSubstr("run MODULE.hlo"));
  Result run = RunXtune("run --help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("--input=FILE.npy"));
  EXPECT_EQ(RunXtune("help run").output, run.output);
  EXPECT_EQ(RunXtune("").exit_code, 1);
  EXPECT_EQ(RunXtune("frobnicate").exit_code, 1);
}

TEST_F(CliTest, MalformedModuleExitsOneWithFileLineColumn) {
  std::string path = Write("bad.hlo",
                           "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"
                           "  ROOT b = f32[2] exp(a)\n}\n");
  Result r = RunXtune("run " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, StartsWith(path + ":4:19: unsupported opcode 'exp'"));
}

TEST_F(CliTest, UserErrorsExitOne) {
  std::string good = Write(
      "ok.hlo", "HloModule m\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n");
  Result missing = RunXtune("run " + dir_ + "/missing.hlo");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output, HasSubstr("missing.hlo"));
  Result flag = RunXtune("run " + good + " --bogus");
  EXPECT_EQ(flag.exit_code, 1);
  EXPECT_THAT(flag.output, HasSubstr("unknown flag '--bogus'"));
  Result backend = RunXtune("run " + good + " --backend=tpu");
  EXPECT_EQ(backend.exit_code, 1);
  Result inputs = RunXtune("run " + good + " --input=a.npy --input=b.npy");
  EXPECT_EQ(inputs.exit_code, 1);
  EXPECT_THAT(inputs.output, HasSubstr("got 2 --input files but the entry "
                                       "computation 'e' has 1 parameters"));
  std::string not_npy = Write("x.npy", "not numpy");
  Result bad_npy = RunXtune("run " + good + " --input=" + not_npy);
  EXPECT_EQ(bad_npy.exit_code, 1);
  EXPECT_THAT(bad_npy.output, HasSubstr("not a valid .npy file"));
}

TEST_F(CliTest, RunsWithNpyInputsAndWritesEachOutput) {
  std::string module = Write("add.hlo", kAddModule);
  Literal a(Shape(DType::kF32, {2, 3}));
  Literal b(Shape(DType::kF32, {2, 3}));
  for (int i = 0; i < 6; ++i) {
    a.SetDouble(i, i);
    b.SetDouble(i, 10 * i);
  }
  ASSERT_THAT(WriteNpy(dir_ + "/a.npy", a), IsOk());
  ASSERT_THAT(WriteNpy(dir_ + "/b.npy", b), IsOk());
  Result r = RunXtune(
      "run " + module + " --backend=interpreter --input=" + dir_ +
      "/a.npy --input " + dir_ + "/b.npy --output_dir=" + dir_ + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out_0: f32[2,3] min=0 max=55 mean=27.5"));
  EXPECT_THAT(r.output, HasSubstr("out_1: f32[6] min=0 max=50 mean=25"));
  absl::StatusOr<Literal> out0 = ReadNpy(dir_ + "/out/out_0.npy");
  absl::StatusOr<Literal> out1 = ReadNpy(dir_ + "/out/out_1.npy");
  ASSERT_THAT(out0, IsOk());
  ASSERT_THAT(out1, IsOk());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out0->GetDouble(i), 11 * i);
  // b is column-major: its bitcast lists it in physical order.
  std::vector<double> expected = {0, 30, 10, 40, 20, 50};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out1->GetDouble(i), expected[i]);
}

// The "out_K: ..." lines of a run (the rest, like tuning times, varies).
std::string OutputLines(const std::string& text) {
  std::string lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (text.compare(start, 4, "out_") == 0) {
      lines += text.substr(start, end - start) + "\n";
    }
    start = end + 1;
  }
  return lines;
}

TEST_F(CliTest, RandomInputsAreDeterministic) {
  std::string module = Write("add.hlo", kAddModule);
  Result first = RunXtune("run " + module);
  Result second = RunXtune("run " + module);
  Result other_seed = RunXtune("run " + module + " --seed=7");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(OutputLines(first.output), "");
  EXPECT_EQ(OutputLines(first.output), OutputLines(second.output));
  EXPECT_NE(OutputLines(first.output), OutputLines(other_seed.output));
}

constexpr char kGemmModule[] = R"hlo(HloModule g
ENTRY e {
  a = f32[32,48] parameter(0)
  b = f32[48,40] parameter(1)
  bias = f32[40] parameter(2)
  d = f32[32,40] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[32,40] broadcast(bias), dimensions={1}
  s = f32[32,40] add(d, bb)
  z = f32[] constant(0)
  zb = f32[32,40] broadcast(z), dimensions={}
  ROOT r = f32[32,40] maximum(s, zb)
})hlo";

TEST_F(CliTest, CpuBackendVerifiesAgainstTheEvaluator) {
  std::string module = Write("g.hlo", kGemmModule);
  Result r = RunXtune("run " + module + " --verify");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("verify: every output matches the evaluator"));
  // The same outputs as the interpreter prints (shape and statistics).
  Result interp = RunXtune("run " + module + " --backend=interpreter");
  ASSERT_EQ(interp.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("out_0: f32[32,40] min=0 max="));
}

TEST_F(CliTest, ConfigOverridesAndBenchmark) {
  std::string module = Write("g.hlo", kGemmModule);
  Result r = RunXtune("run " + module +
                      " --config=gemm_fusion:mr=4,nr=16,kc=16,threads=1 "
                      "--benchmark=3 --verify");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("benchmark: 3 runs on cpu, median "));
  Result blas =
      RunXtune("run " + module +
               " --config=gemm_fusion:cpu_gemm_blas:threads=1 --verify");
  EXPECT_EQ(blas.exit_code, 0) << blas.output;
  Result unknown = RunXtune("run " + module + " --config=nope:mc=1");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.output,
              HasSubstr("'nope', which is not a fusion of this module "
                        "(fusions: gemm_fusion)"));
  Result bad_param = RunXtune("run " + module + " --config=gemm_fusion:zz=1");
  EXPECT_EQ(bad_param.exit_code, 1);
  EXPECT_THAT(bad_param.output,
              HasSubstr("'zz' is not a parameter of cpu_gemm"));
  Result bad_tile = RunXtune("run " + module + " --config=gemm_fusion:nr=5");
  EXPECT_EQ(bad_tile.exit_code, 1);
  EXPECT_THAT(bad_tile.output, HasSubstr("register tile"));
  Result huge =
      RunXtune("run " + module + " --config=gemm_fusion:split_k=1000000");
  EXPECT_EQ(huge.exit_code, 1) << huge.output;  // not a crash
  EXPECT_THAT(huge.output, HasSubstr("split_k must be <= 48"));
  Result bench = RunXtune("run " + module + " --benchmark=0");
  EXPECT_EQ(bench.exit_code, 1);
}

TEST_F(CliTest, CompileTunesAndPrintsTheTable) {
  std::string module = Write("g.hlo", kGemmModule);
  std::string log = dir_ + "/tuning.textproto";
  Result r =
      RunXtune("compile " + module + " --xla_gpu_dump_autotune_logs_to=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fusion           kind"));
  EXPECT_THAT(r.output, HasSubstr("gemm_fusion      gemm      f32[32,40]"));
  EXPECT_THAT(r.output, HasSubstr(" tuned"));
  EXPECT_THAT(r.output, HasSubstr("xtune: autotuning: 1 fusions (1 unique): 0 "
                                  "from the cache, 1 tuned"));
  absl::StatusOr<std::string> text = ReadFile(log);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("selected: \"cpu_gemm"));
  EXPECT_THAT(*text, HasSubstr("candidates {"));
  // Every timed candidate's rounds, to replay the choice: at least one
  // round median per run_time, three for the winner.
  EXPECT_THAT(*text, HasSubstr("    round_medians { nanos: "));
  auto count = [&](const char* what) {
    int n = 0;
    for (size_t at = text->find(what); at != std::string::npos;
         at = text->find(what, at + 1)) {
      ++n;
    }
    return n;
  };
  // (Candidates' run times only: an in-module re-timing, which happens
  // or not by the timings, logs its finalists' run times on one line.)
  EXPECT_GE(count("round_medians"), count("\n    run_time ") + 2);
}

TEST_F(CliTest, XlaFlagsFromTheEnvironmentAndTheCommandLine) {
  std::string module = Write("g.hlo", kGemmModule);
  // Level 0 from XLA_FLAGS: no tuning. Unknown flags there only warn.
  Result level0 = RunXtune(
      "compile " + module,
      "XLA_FLAGS='--xla_gpu_autotune_level=0 --xla_dump_to=/tmp/nowhere'");
  ASSERT_EQ(level0.exit_code, 0) << level0.output;
  EXPECT_THAT(level0.output,
              HasSubstr("ignoring unknown flag '--xla_dump_to'"));
  EXPECT_THAT(level0.output, HasSubstr(" default"));
  // The command line wins over XLA_FLAGS.
  Result wins = RunXtune("compile " + module + " --xla_gpu_autotune_level=2",
                         "XLA_FLAGS=--xla_gpu_autotune_level=0");
  ASSERT_EQ(wins.exit_code, 0) << wins.output;
  EXPECT_THAT(wins.output, HasSubstr(" tuned"));
  // An override forces the gemm config; a field without CPU meaning is
  // refused by name, not dropped.
  Result gpu_only = RunXtune("compile " + module +
                             " '--xla_gpu_override_gemm_autotuner=block_m:8 "
                             "block_k:16 num_warps:4'");
  EXPECT_EQ(gpu_only.exit_code, 1);
  EXPECT_THAT(gpu_only.output,
              HasSubstr("'num_warps' has no meaning on the cpu backend"));
  Result forced = RunXtune("compile " + module +
                           " '--xla_gpu_override_gemm_autotuner=block_m:8 "
                           "block_k:16'");
  ASSERT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_THAT(forced.output, HasSubstr("cpu_gemm:mc=8,"));
  EXPECT_THAT(forced.output, HasSubstr("kc=16,"));
  EXPECT_THAT(forced.output, HasSubstr(" override"));
  // Unknown or bad XLA flags on the command line are errors.
  Result unknown = RunXtune("compile " + module + " --xla_gpu_nonsense=1");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.output,
              HasSubstr("unknown XLA flag '--xla_gpu_nonsense'"));
  Result bad = RunXtune("run " + module + " --xla_gpu_autotune_level=7");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("expected an integer in [0, 5]"));
  Result bad_env =
      RunXtune("run " + module, "XLA_FLAGS=--xla_gpu_cublas_fallback=maybe");
  EXPECT_EQ(bad_env.exit_code, 1);
  EXPECT_THAT(bad_env.output,
              HasSubstr("XLA_FLAGS: --xla_gpu_cublas_fallback"));
}

TEST_F(CliTest, MissingCompilerIsAClearError) {
  std::string module = Write("g.hlo", kGemmModule);
  std::string command = "CXX=/nonexistent/c++ XTUNE_CACHE_DIR=" + dir_ +
                        "/cache " + std::string(XTUNE_BINARY) + " run " +
                        module + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[1024];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  int status = pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_THAT(output, HasSubstr("no C++ compiler"));
  EXPECT_THAT(output, HasSubstr("/nonexistent/c++"));
  // The interpreter needs no compiler.
  command = "CXX=/nonexistent/c++ " + std::string(XTUNE_BINARY) + " run " +
            module + " --backend=interpreter 2>&1";
  pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  while (fread(buffer, 1, sizeof(buffer), pipe) > 0) {
  }
  EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 0);
}

TEST_F(CliTest, UnwritableKernelCacheFallsBackWithAWarning) {
  std::string module = Write("g.hlo", kGemmModule);
  std::string file = Write("not_a_dir", "x");
  std::string command = "XTUNE_CACHE_DIR=" + file + "/sub " +
                        std::string(XTUNE_BINARY) + " run " + module +
                        " --verify 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[1024];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 0) << output;
  EXPECT_THAT(output, HasSubstr("is not writable"));
  EXPECT_THAT(output, HasSubstr("verify: every output matches"));
}

// What a new user hit (issue 9), end to end.
TEST_F(CliTest, RealHloPrecisionAndHonestSummaries) {
  // XLA's tests write modules without the HloModule line.
  std::string bare = Write("bare.hlo",
                           "ENTRY e {\n  p = f32[4] parameter(0)\n"
                           "  ROOT n = f32[4] negate(p)\n}\n");
  Result run = RunXtune("run " + bare + " --backend=interpreter");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("out_0: f32[4]"));

  // bf16 (x + 0.001) - x at x = 1: 0 under HLO semantics, 0.000999 with
  // the excess precision XLA allows by default; --verify compares like
  // with like, --verify_exact against HLO semantics.
  std::string bf = Write("bf.hlo", R"hlo(HloModule bf
ENTRY e {
  x = bf16[4] parameter(0)
  c = bf16[] constant(0.001)
  cb = bf16[4] broadcast(c), dimensions={}
  a = bf16[4] add(x, cb)
  ROOT s = bf16[4] subtract(a, x)
})hlo");
  std::string ones = dir_ + "/ones.npy";
  Literal one(Shape(DType::kF32, {4}));
  for (int i = 0; i < 4; ++i) one.SetDouble(i, 1);
  ASSERT_THAT(WriteNpy(ones, one), IsOk());
  const std::string quick = " --xla_gpu_autotune_level=2 --input=" + ones;
  Result excess = RunXtune("run " + bf + quick + " --verify");
  EXPECT_EQ(excess.exit_code, 0) << excess.output;
  EXPECT_THAT(excess.output, HasSubstr("min=0.000999451"));
  Result exact = RunXtune("run " + bf + quick +
                          " --xla_allow_excess_precision=false --verify");
  EXPECT_EQ(exact.exit_code, 0) << exact.output;
  EXPECT_THAT(exact.output, HasSubstr("min=0 max=0"));

  // A long f16 sum into an f16 accumulator: consistent in both modes; the
  // f32-accumulated result is not HLO's sequential f16 sum, and a
  // verification mismatch has its own exit code.
  std::string sum = Write("sum.hlo", R"hlo(HloModule sum
add {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT s = f16[] add(x, y)
}
ENTRY e {
  p = f16[262144] parameter(0)
  z = f16[] constant(0)
  ROOT r = f16[] reduce(p, z), dimensions={0}, to_apply=add
})hlo");
  const std::string level = " --xla_gpu_autotune_level=4";
  Result wide = RunXtune("run " + sum + level + " --verify");
  EXPECT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_THAT(wide.output, HasSubstr("0 wrong"));
  Result narrow = RunXtune("run " + sum + level +
                           " --xla_allow_excess_precision=false --verify");
  EXPECT_EQ(narrow.exit_code, 0) << narrow.output;
  EXPECT_THAT(narrow.output, HasSubstr("0 wrong"));
  Result mismatch = RunXtune("run " + sum + level + " --verify_exact");
  EXPECT_EQ(mismatch.exit_code, 3) << mismatch.output;
  EXPECT_THAT(mismatch.output, HasSubstr("verification failed"));

  // A fusion with a tuple result runs on the evaluator: not counted tuned.
  std::string tuple = Write("tuple.hlo", R"hlo(HloModule tf
fused (p: f32[64]) -> (f32[64], f32[64]) {
  p = f32[64] parameter(0)
  e = f32[64] exponential(p)
  n = f32[64] negate(p)
  ROOT t = (f32[64], f32[64]) tuple(e, n)
}
ENTRY main {
  x = f32[64] parameter(0)
  ROOT f = (f32[64], f32[64]) fusion(x), kind=kLoop, calls=fused
})hlo");
  Result t = RunXtune("compile " + tuple);
  EXPECT_EQ(t.exit_code, 0) << t.output;
  EXPECT_THAT(t.output, HasSubstr("0 tuned, 0 default, 0 overridden, 1 on the "
                                  "evaluator"));

  // --config fixes a fusion: it is not tuned, and the summary says so.
  std::string loop = Write("loop.hlo",
                           "HloModule l\nENTRY e {\n  a = f32[256] parameter(0)\n"
                           "  ROOT n = f32[256] exponential(a)\n}\n");
  Result forced =
      RunXtune("compile " + loop + " --config=loop_fusion:vector_width=8");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_THAT(forced.output, HasSubstr("0 tuned, 0 default, 1 overridden"));
  EXPECT_THAT(forced.output, HasSubstr("0 candidates compiled"));
}

// The CUDA backends from the command line, without a GPU: a deviceless
// compile for the H200 keeps every non-gemm kernel (cubin and manifest) and
// reports the fusions the cache missed; the emulator checks every candidate
// at compile time and runs with --verify; bad targets are exit 1 and leave
// the cache file as it was.
TEST_F(CliTest, CudaBackendsWithoutAGpu) {
  XTUNE_NVRTC_OR_SKIP();
  std::string module = std::string(XTUNE_SOURCE_DIR) + "/examples/layer_norm.hlo";
  std::string kernels = dir_ + "/kernels";
  Result compiled = RunXtune("compile " + module +
                             " --backend=cuda --xtune_gpu_target=h200"
                             " --xtune_dump_kernels_to=" + kernels +
                             " --cache_report=" + dir_ + "/report.txt");
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("cannot run kernels here, so it uses the default config"));
  absl::StatusOr<std::string> manifest = ReadFile(kernels + "/manifest.txt");
  ASSERT_THAT(manifest, IsOk());
  EXPECT_THAT(*manifest, HasSubstr("fusion=reduce_fusion arch=sm_90a config=cuda_row_reduce:"));
  EXPECT_TRUE(std::filesystem::exists(kernels + "/reduce_fusion.cubin"));
  absl::StatusOr<std::string> report = ReadFile(dir_ + "/report.txt");
  ASSERT_THAT(report, IsOk());
  EXPECT_THAT(*report, HasSubstr("missed: 1"));
  EXPECT_THAT(*report, HasSubstr("- fusion: reduce_fusion"));

  std::string cache = Write("cache.txt", "version: 3\n");
  Result checked = RunXtune("compile " + module + " --backend=cuda_emulator"
                            " --xla_gpu_dump_autotune_results_to=" + cache);
  ASSERT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_THAT(checked.output, HasSubstr("candidates run once and checked, not timed"));
  EXPECT_THAT(checked.output, HasSubstr(" 0 wrong, 0 failed to run"));
  Result run = RunXtune("run " + module + " --backend=cuda_emulator --verify");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("verify: every output matches"));

  absl::StatusOr<std::string> before = ReadFile(cache);
  ASSERT_THAT(before, IsOk());
  for (const char* bad : {"--xtune_gpu_target=v100",
                          "--xla_gpu_target_config_filename=/nonexistent.txtpb",
                          "--xtune_gpu_target=h100 --xla_gpu_target_config_filename=x"}) {
    Result r = RunXtune("compile " + module + " --backend=cuda " + bad +
                        " --xla_gpu_dump_autotune_results_to=" + cache);
    EXPECT_EQ(r.exit_code, 1) << bad << "\n" << r.output;
  }
  EXPECT_THAT(RunXtune("compile " + module + " --backend=cuda --xtune_gpu_target=v100").output,
              HasSubstr("unknown GPU target 'v100' (shipped: a100"));
  EXPECT_EQ(ReadFile(cache).value_or(""), *before);
}

// Gemm fusions on the CUDA backends: the generated gemm (its default, XLA's
// 32x32x32 tiling clamped to the problem) is compiled for a target and run
// in the emulator; and
// --verify's excess-precision reference rounds at fusion outputs as the
// kernels do (half_types.hlo shares an f16 value between two fusions: the
// unfused reference kept it in f32 and disagreed by one bf16 ulp).
TEST_F(CliTest, CudaGemmFusionsAndExcessPrecisionVerify) {
  XTUNE_NVRTC_OR_SKIP();
  std::string mlp = std::string(XTUNE_SOURCE_DIR) + "/examples/mlp_bf16.hlo";
  std::string kernels = dir_ + "/gemm_kernels";
  Result compiled = RunXtune("compile " + mlp +
                             " --backend=cuda --xtune_gpu_target=a100"
                             " --xtune_dump_kernels_to=" + kernels);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("triton_gemm:block_m=16,block_n=32,block_k=32,"
                                         "split_k=1,num_stages=1,num_warps=4,num_ctas=1"));
  EXPECT_THAT(compiled.output, Not(HasSubstr("runs on the evaluator")));
  absl::StatusOr<std::string> manifest = ReadFile(kernels + "/manifest.txt");
  ASSERT_THAT(manifest, IsOk());
  EXPECT_THAT(*manifest, HasSubstr("fusion=gemm_fusion arch=sm_80 config=triton_gemm:"));
  EXPECT_THAT(*manifest, HasSubstr("spill_store_bytes=0"));
  Result run = RunXtune("run " + mlp + " --backend=cuda_emulator --verify");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, Not(HasSubstr("runs on the evaluator")));
  std::string half = std::string(XTUNE_SOURCE_DIR) + "/tests/numpy/cases/half_types.hlo";
  Result verified = RunXtune("run " + half + " --backend=cuda_emulator --verify");
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_THAT(verified.output, HasSubstr("verify: every output matches"));
}

// XLA's cache entries run as they are: the fused module of the entry in
// XLA's test cache (A100), compiled deviceless for the A100 with that file
// loaded and require-complete, is a hit, and the entry's 32x32x32, 1-stage,
// 4-warp kernel is compiled for sm_80; the same module under the emulator
// matches the evaluator.
TEST_F(CliTest, XlasTritonCacheEntryRunsAsItIs) {
  XTUNE_NVRTC_OR_SKIP();
  std::string module = std::string(XTUNE_SOURCE_DIR) + "/tests/data/xla_triton_entry.hlo";
  std::string cache = std::string(XTUNE_SOURCE_DIR) + "/tests/data/test_autotune_cache.textproto";
  std::string kernels = dir_ + "/xla_entry_kernels";
  std::string flags = " --xtune_gpu_target=a100 --xla_gpu_load_autotune_results_from=" +
                      cache + " --xla_gpu_require_complete_aot_autotune_results";
  Result compiled = RunXtune("compile " + module + " --backend=cuda" + flags +
                             " --xtune_dump_kernels_to=" + kernels);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("1 from the cache"));
  absl::StatusOr<std::string> manifest = ReadFile(kernels + "/manifest.txt");
  ASSERT_THAT(manifest, IsOk());
  EXPECT_THAT(*manifest, HasSubstr("fusion=gemm arch=sm_80 config=triton_gemm:block_m=32,"
                                   "block_n=32,block_k=32,split_k=1,num_stages=1,"
                                   "num_warps=4,num_ctas=1 registers="));
  EXPECT_TRUE(std::filesystem::exists(kernels + "/gemm.cubin"));
  Result run = RunXtune("run " + module + " --backend=cuda_emulator --verify" + flags);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("1 from the cache"));
  EXPECT_THAT(run.output, HasSubstr("verify: every output matches"));
  // For another GPU the entry does not apply: require-complete is a miss.
  Result h100 = RunXtune("compile " + module + " --backend=cuda --xtune_gpu_target=h100"
                         " --xla_gpu_load_autotune_results_from=" + cache +
                         " --xla_gpu_require_complete_aot_autotune_results");
  EXPECT_EQ(h100.exit_code, 1) << h100.output;
}

// `gemm { algorithm: -1 }` on a fusion key is how XLA records that cuBLAS
// won the fusion with the library's default algorithm: used as it is
// (require-complete passes), run in the emulator, and dumped back
// unchanged.
TEST_F(CliTest, XlasCublasDefaultAlgorithmEntryRunsAsItIs) {
  XTUNE_NVRTC_OR_SKIP();
  std::string module = std::string(XTUNE_SOURCE_DIR) + "/tests/data/xla_triton_entry.hlo";
  absl::StatusOr<std::string> xla = ReadFile(
      std::string(XTUNE_SOURCE_DIR) + "/tests/data/test_autotune_cache.textproto");
  ASSERT_THAT(xla, IsOk());
  std::string text = *xla;
  const size_t at = text.find("    triton {");
  ASSERT_NE(at, std::string::npos);
  text = text.substr(0, at) + "    gemm {\n      algorithm: -1\n    }\n  }\n}\n";
  std::string cache = Write("cublas.textproto", text);
  std::string dumped = dir_ + "/dumped.textproto";
  std::string kernels = dir_ + "/kernels";
  std::string flags = " --xtune_gpu_target=a100 --xla_gpu_load_autotune_results_from=" +
                      cache + " --xla_gpu_require_complete_aot_autotune_results";
  Result compiled = RunXtune("compile " + module + " --backend=cuda" + flags +
                             " --xtune_dump_kernels_to=" + kernels +
                             " --xla_gpu_dump_autotune_results_to=" + dumped);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("1 from the cache"));
  EXPECT_THAT(compiled.output, HasSubstr("cuda_cublaslt:algorithm=-1"));
  absl::StatusOr<std::string> manifest = ReadFile(kernels + "/manifest.txt");
  ASSERT_THAT(manifest, IsOk());
  EXPECT_THAT(*manifest, HasSubstr("arch=sm_80 config=cuda_cublaslt:algorithm=-1"));
  absl::StatusOr<std::string> back = ReadFile(dumped);
  ASSERT_THAT(back, IsOk());
  EXPECT_THAT(*back, HasSubstr("gemm {\n      algorithm: -1\n    }"));
  Result run = RunXtune("run " + module + " --backend=cuda_emulator --verify" + flags);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("verify: every output matches"));
  // The cache tools say what the entry means.
  Result show = RunXtune("cache show " + cache);
  EXPECT_THAT(show.output, HasSubstr("means:   the cuBLAS library gemm with the "
                                     "library's default algorithm (XLA's -1"));
  Result explain = RunXtune("cache explain " + module + " --cache=" + cache +
                            " --backend=cuda --xtune_gpu_target=a100");
  EXPECT_EQ(explain.exit_code, 0) << explain.output;
  EXPECT_THAT(explain.output, HasSubstr("hit: gemm {algorithm: -1}\n  means: "
                                        "the cuBLAS library gemm"));
}

// XLA's newer autotuner (tests/xla_compat/xla_gpu_compiler_test_autotune_db.
// textproto, an H100's): `other { name: "CUBLASLT_FISSION" }` with a packed
// GemmKey, devices that end in the cuDNN version, and entries that carry
// XLA's cache-key version. The fission entry is used for its fusion
// (require-complete passes deviceless); a dump writes every entry back as
// it was loaded; the tools say what each one means.
TEST_F(CliTest, XlasNewerAutotunerEntriesRunAsTheyAre) {
  XTUNE_NVRTC_OR_SKIP();
  // Not in tests/data: the module's shapes are a real model's (GiBs), for
  // deviceless compiles only.
  const std::string data = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/";
  std::string module = data + "xla_cublas_fission_entry.hlo";
  absl::StatusOr<std::string> xla =
      ReadFile(data + "xla_gpu_compiler_test_autotune_db.textproto");
  ASSERT_THAT(xla, IsOk());
  // The same file as XLA writes it today: each entry with its version.
  std::string versioned = absl::StrReplaceAll(
      *xla, {{"\n  result {", "\n  version: 23\n  result {"}});
  for (const std::string& text : {*xla, versioned}) {
    std::string cache = Write("xla.textproto", text);
    std::string dumped = dir_ + "/dumped.textproto";
    std::filesystem::remove(dumped);
    Result compiled = RunXtune(
        "compile " + module + " --backend=cuda --xtune_gpu_target=h100"
        " --xla_gpu_require_complete_aot_autotune_results"
        " --xla_gpu_load_autotune_results_from=" + cache +
        " --xla_gpu_dump_autotune_results_to=" + dumped);
    ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
    EXPECT_THAT(compiled.output, HasSubstr("1 from the cache"));
    EXPECT_THAT(compiled.output, HasSubstr("cuda_cublaslt:algorithm=-1"));
    absl::StatusOr<std::string> back = ReadFile(dumped);
    ASSERT_THAT(back, IsOk());
    EXPECT_THAT(*back, HasSubstr("L2 cache: 50 MB, DNN version: 9.10.0\""));
    EXPECT_THAT(*back, HasSubstr("name: \"CUBLASLT_FISSION\""));
    EXPECT_THAT(*back, HasSubstr("value: \"\\010\\377"));
    if (text == versioned) {
      EXPECT_THAT(*back, HasSubstr("version: 23"));
    }
    Result diff = RunXtune("cache diff " + cache + " " + dumped);
    EXPECT_THAT(diff.output, HasSubstr("0 added, 0 removed, 0 changed config"))
        << diff.output;
  }
  Result show = RunXtune("cache show " + data +
                         "xla_gpu_compiler_test_autotune_db.textproto");
  EXPECT_THAT(show.output, HasSubstr("means:   XLA's CUBLASLT_FISSION: the cuBLAS "
                                     "library gemm with the library's default"));
  EXPECT_THAT(show.output, HasSubstr("means:   XLA's NATIVE_EMITTER"));
  EXPECT_THAT(show.output, Not(HasSubstr("WARNING")));
}

// XLA's __cublas$gemm entry (the same H100 file) is keyed by the
// custom-call as XLA's gemm algorithm picker keys it: a module holding
// that call (as XLA's optimized dump does) finds it, a require-complete
// deviceless compile passes, and the dump writes it back unchanged.
TEST_F(CliTest, XlasCublasCustomCallEntryIsUsedAsItIs) {
  XTUNE_NVRTC_OR_SKIP();
  const std::string data = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/";
  const std::string module = data + "xla_cublas_gemm_entry.hlo";
  const std::string cache = data + "xla_gpu_compiler_test_autotune_db.textproto";
  std::string dumped = dir_ + "/dumped.textproto";
  Result compiled = RunXtune(
      "compile " + module + " --backend=cuda --xtune_gpu_target=h100"
      " --xla_gpu_require_complete_aot_autotune_results"
      " --xla_gpu_load_autotune_results_from=" + cache +
      " --xla_gpu_dump_autotune_results_to=" + dumped);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("1 from the cache"));
  EXPECT_THAT(compiled.output, HasSubstr("cuda_cublaslt:algorithm=-1"));
  Result diff = RunXtune("cache diff " + cache + " " + dumped);
  EXPECT_THAT(diff.output, HasSubstr("0 added, 0 removed, 0 changed config"))
      << diff.output;
  EXPECT_THAT(diff.output, Not(HasSubstr("libprotobuf")));
  Result explain = RunXtune("cache explain " + module + " --cache=" + cache +
                            " --backend=cuda --xtune_gpu_target=h100");
  EXPECT_EQ(explain.exit_code, 0) << explain.output;
  EXPECT_THAT(explain.output, HasSubstr("hit: gemm {algorithm: -1}"));
  // A target xtune does not run is refused by name, exit 1.
  std::string other = Write(
      "other.hlo",
      "HloModule m\nENTRY e {\n  p = f32[4,4] parameter(0)\n"
      "  ROOT c = f32[4,4] custom-call(p), custom_call_target=\"my_kernel\"\n}\n");
  Result refused = RunXtune("run " + other + " --backend=cpu");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.output, HasSubstr("the custom_call_target 'my_kernel' is "
                                        "not one xtune runs"));
}

// XLA's cuDNN convolution results (tests/xla_compat/xla_conv_entries.textproto):
// a deviceless compile finds the entry of a module's __cudnn$ call under
// XLA's conv key, sorted or in an older XLA's unsorted form (the call of
// XLA's own AOT test results), runs its algorithm as xtune's cuDNN
// candidate, and dumps the entries back unchanged; the emulator runs that
// config and verifies it. A cuDNN frontend engine (with knobs) belongs to
// its cuDNN version and is not used.
TEST_F(CliTest, XlasConvEntriesAreUsedAsTheyAre) {
  XTUNE_NVRTC_OR_SKIP();
  const std::string data = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/";
  const std::string cache = data + "xla_conv_entries.textproto";
  const std::string load = " --xla_gpu_load_autotune_results_from=" + cache;
  const std::string bias = data + "h200/conv/conv_bias_relu.default.hlo";
  Result compiled =
      RunXtune("compile " + bias + " --backend=cuda --xtune_gpu_target=h200" + load);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("1 from the cache"));
  EXPECT_THAT(compiled.output, HasSubstr("cuda_cudnn:algorithm=1,tensor_ops=1"));
  std::string dumped = dir_ + "/dumped.textproto";
  Result aot = RunXtune("compile " + data + "xla_aot_conv_entry.hlo --backend=cuda"
                        " --xtune_gpu_target=h200 --xla_gpu_require_complete_aot_autotune_results" +
                        load + " --xla_gpu_dump_autotune_results_to=" + dumped);
  ASSERT_EQ(aot.exit_code, 0) << aot.output;
  EXPECT_THAT(aot.output, HasSubstr("cuda_cudnn:algorithm=0,tensor_ops=1"));
  Result diff = RunXtune("cache diff " + cache + " " + dumped);
  EXPECT_THAT(diff.output, HasSubstr("0 added, 0 removed, 0 changed config")) << diff.output;
  Result explain = RunXtune("cache explain " + data + "xla_aot_conv_entry.hlo --cache=" + cache +
                            " --backend=cuda --xtune_gpu_target=h200");
  EXPECT_EQ(explain.exit_code, 0) << explain.output;
  EXPECT_THAT(explain.output, HasSubstr("hit in older XLA's key form (the config unsorted)"));
  Result run = RunXtune("run " + bias + " --backend=cuda_emulator --verify" + load);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("1 from the cache"));
  EXPECT_THAT(run.output, HasSubstr("verify: every output matches"));
  Result engine = RunXtune("compile " + data + "h200/conv/conv_depthwise.default.hlo"
                           " --backend=cuda --xtune_gpu_target=h200" + load);
  ASSERT_EQ(engine.exit_code, 0) << engine.output;
  EXPECT_THAT(engine.output, HasSubstr("0 from the cache"));
  EXPECT_THAT(engine.output, HasSubstr("cuda_cudnn:algorithm=-1,tensor_ops=0"));
  // Every candidate of hand-written calls (cuDNN's and the generated
  // kernels) agrees with the reference in the emulator.
  Result every = RunXtune("compile " + data + "cudnn_calls.hlo --backend=cuda_emulator"
                          " --xla_gpu_crash_on_verification_failures");
  ASSERT_EQ(every.exit_code, 0) << every.output;
  EXPECT_THAT(every.output, HasSubstr("(0 failed), 0 timed, 0 wrong"));
  EXPECT_THAT(every.output, HasSubstr("cuda_cudnn:algorithm=-1,tensor_ops=1"));  // bf16
}

}  // namespace
}  // namespace xtune
