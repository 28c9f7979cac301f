// The real profiler: candidates run in forked workers, so crashing and
// looping kernels are survived.
#include "autotune/isolated_profiler.h"

#include <chrono>

#include "codegen/cpu/cpu_backend.h"
#include "codegen/fake_backend.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::unique_ptr<Module> FusedModule() {
  auto m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[16,32] parameter(0)
  b = f32[32,8] parameter(1)
  ROOT d = f32[16,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo");
  EXPECT_THAT(m, IsOk());
  auto fused = FuseModule(**m);
  EXPECT_THAT(fused, IsOk());
  return std::move(*fused);
}

ProfileOptions Quick() {
  ProfileOptions o;
  o.min_repetitions = 3;
  o.time_budget = absl::Milliseconds(1);
  o.timeout = absl::Milliseconds(1500);
  return o;
}

TEST(IsolatedProfilerTest, SurvivesCrashingAndLoopingKernels) {
  std::unique_ptr<Module> m = FusedModule();
  const Instruction& f = *m->entry()->root();
  FakeBackend backend({{KernelConfig("fake", {{"x", 1}}), FakeBehavior::kCorrect},
                       {KernelConfig("fake", {{"x", 2}}), FakeBehavior::kCrash},
                       {KernelConfig("fake", {{"x", 3}}), FakeBehavior::kHang}});
  IsolatedProfiler profiler(&backend);
  std::vector<Literal> inputs = {RandomLiteral(f.operand(0)->shape(), 1),
                                 RandomLiteral(f.operand(1)->shape(), 2)};
  auto crash = backend.Compile(f, KernelConfig("fake", {{"x", 2}}));
  ASSERT_THAT(crash, IsOk());
  EXPECT_THAT(profiler.Profile(**crash, KernelConfig("fake", {{"x", 2}}), inputs,
                               f.shape(), Quick()),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("signal 11")));
  auto hang = backend.Compile(f, KernelConfig("fake", {{"x", 3}}));
  ASSERT_THAT(hang, IsOk());
  auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(profiler.Profile(**hang, KernelConfig("fake", {{"x", 3}}), inputs,
                               f.shape(), Quick()),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("killed")));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count(),
            10.0);
  // The process is fine and the correct kernel still profiles.
  auto good = backend.Compile(f, KernelConfig("fake", {{"x", 1}}));
  ASSERT_THAT(good, IsOk());
  absl::StatusOr<ProfileResult> r = profiler.Profile(
      **good, KernelConfig("fake", {{"x", 1}}), inputs, f.shape(), Quick());
  ASSERT_THAT(r, IsOk());
  EXPECT_GE(r->seconds.size(), 3u);
  absl::StatusOr<Literal> want =
      EvaluateComputation(*f.called_computations()[0], inputs);
  EXPECT_THAT(CompareLiterals(*want, r->output, "fake"), IsOk());
}

TEST(IsolatedProfilerTest, MultiThreadedCpuKernelsRunInTheWorker) {
  std::unique_ptr<Module> m = FusedModule();
  const Instruction& f = *m->entry()->root();
  absl::StatusOr<std::unique_ptr<cpu::CpuBackend>> cpu = cpu::CpuBackend::Create();
  ASSERT_THAT(cpu, IsOk());
  KernelConfig config = (*cpu)->DefaultConfig(f);
  config.Set("threads", 2);
  config.Set("mc", 8);
  auto kernel = (*cpu)->Compile(f, config);
  ASSERT_THAT(kernel, IsOk());
  IsolatedProfiler profiler(cpu->get());
  std::vector<Literal> inputs = {RandomLiteral(f.operand(0)->shape(), 1),
                                 RandomLiteral(f.operand(1)->shape(), 2)};
  ProfileOptions o = Quick();
  o.flush_bytes = 1 << 20;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<ProfileResult> r =
        profiler.Profile(**kernel, config, inputs, f.shape(), o);
    ASSERT_THAT(r, IsOk());
    absl::StatusOr<Literal> want =
        EvaluateComputation(*f.called_computations()[0], inputs);
    EXPECT_THAT(CompareLiterals(*want, r->output, "cpu"), IsOk());
  }
}

}  // namespace
}  // namespace xtune
