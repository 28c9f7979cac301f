#include "runtime/executable.h"

#include "codegen/cpu/cpu_backend.h"
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

cpu::CpuBackend& Cpu() {
  static cpu::CpuBackend* b = cpu::CpuBackend::Create()->release();
  return *b;
}

absl::StatusOr<std::unique_ptr<Executable>> Build(const Module& m) {
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(m);
  if (!fused.ok()) return fused.status();
  return Executable::Create(std::move(*fused), &Cpu(),
                            [](const Instruction& f) -> absl::StatusOr<KernelConfig> {
                              return Cpu().DefaultConfig(f);
                            });
}

TEST(ExecutableTest, RunsTuplesConstantsAndReusesBuffers) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,4]{0,1} parameter(1)
  c = f32[] constant(2)
  cb = f32[8,4] broadcast(c), dimensions={}
  d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[8,4] multiply(d, cb)
  t = (f32[8,4], f32[]) tuple(s, c)
  g = f32[8,4] get-tuple-element(t), index=0
  ROOT r = (f32[8,4], f32[8,16]) tuple(g, a)
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Executable>> exe = Build(**m);
  ASSERT_THAT(exe, IsOk());
  for (uint64_t seed : {1, 2}) {
    std::vector<Literal> args = RandomArguments(**m, seed);
    absl::StatusOr<Literal> want = Evaluate(**m, args);
    absl::StatusOr<Literal> got = (*exe)->Run(args);
    ASSERT_THAT(got, IsOk());
    EXPECT_THAT(CompareLiterals(*want, *got, "result"), IsOk());
  }
}

TEST(ExecutableTest, UnsupportedFusionsFallBackToTheEvaluator) {
  // A variadic reduce (argmax) has a tuple result: no generated kernel.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(bv, av), direction=GT
  v = f32[] select(gt, bv, av)
  i = s32[] select(gt, bi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[4,8] parameter(0)
  idx = s32[4,8] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[4], s32[4]) reduce(x, idx, ninf, zero), dimensions={1}, to_apply=argmax
  ROOT i = s32[4] get-tuple-element(r), index=1
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Executable>> exe = Build(**m);
  ASSERT_THAT(exe, IsOk());
  bool fell_back = false;
  for (const CompiledFusion& f : (*exe)->fusions()) {
    fell_back |= !f.fallback_reason.empty();
  }
  EXPECT_TRUE(fell_back);
  std::vector<Literal> args = RandomArguments(**m, 3);
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(CompareLiterals(*Evaluate(**m, args), *got, "argmax"), IsOk());
}

TEST(ExecutableTest, ChooserErrorsNameTheFusion) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(
      "HloModule m\nENTRY e {\n a = f32[4] parameter(0)\n ROOT n = f32[4] "
      "negate(a)\n}");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  EXPECT_THAT(Executable::Create(std::move(*fused), &Cpu(),
                                 [](const Instruction&) -> absl::StatusOr<KernelConfig> {
                                   return absl::InvalidArgumentError("no config");
                                 }),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("fusion 'loop_fusion': no config")));
}

}  // namespace
}  // namespace xtune
