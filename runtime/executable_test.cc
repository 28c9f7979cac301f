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

TEST(ExecutableTest, VariadicReduceOutputsRunAsKernels) {
  // argmax used through a get-tuple-element: a fusion rooted there, whose
  // loop kernel computes both accumulators (no evaluator).
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
  for (const CompiledFusion& f : (*exe)->fusions()) {
    EXPECT_EQ(f.fallback_reason, "");
  }
  std::vector<Literal> args = RandomArguments(**m, 3);
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(CompareLiterals(*Evaluate(**m, args), *got, "argmax"), IsOk());
}

// A lax.scan-like loop writing one slice of its stacked state per
// iteration, then a dynamic-update-slice of the loop's result; `root` is
// the entry's root.
std::string ScanModule(const std::string& root) {
  return R"hlo(HloModule scan
body {
  p = (s32[], f32[6,8,16], f32[8,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  stack = f32[6,8,16] get-tuple-element(p), index=1
  h = f32[8,16] get-tuple-element(p), index=2
  h2 = f32[8,16] tanh(h)
  r = f32[1,8,16] reshape(h2)
  z = s32[] constant(0)
  stack2 = f32[6,8,16] dynamic-update-slice(stack, r, i, z, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT out = (s32[], f32[6,8,16], f32[8,16]) tuple(i2, stack2, h2)
}
cond {
  p = (s32[], f32[6,8,16], f32[8,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[8,16] parameter(0)
  s = f32[6,8,16] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[6,8,16], f32[8,16]) tuple(z, s, x)
  w = (s32[], f32[6,8,16], f32[8,16]) while(init), condition=cond, body=body
  st = f32[6,8,16] get-tuple-element(w), index=1
  u = f32[8,3] slice(x), slice={[0:8], [0:3]}
  ub = f32[2,8,3] broadcast(u), dimensions={1,2}
  e = f32[2,8,3] exponential(ub)
  a = s32[] constant(5)
  b = s32[] constant(-1)
  c = s32[] constant(20)
  d = f32[6,8,16] dynamic-update-slice(st, e, a, b, c)
  ROOT root = )hlo" + root + "\n}";
}

TEST(ExecutableTest, DynamicUpdateSlicesOfDyingOperandsRunInPlace) {
  struct Case {
    std::string root;
    int in_place;  // the loop's slice always; the entry's when st dies
  };
  for (const Case& c : std::vector<Case>{
           {"(f32[6,8,16]) tuple(d)", 2},
           // st is read after the entry's update: that one copies.
           {"(f32[6,8,16], f32[6,8,16]) tuple(d, st)", 1}}) {
    SCOPED_TRACE(c.root);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(ScanModule(c.root));
    ASSERT_THAT(m, IsOk());
    absl::StatusOr<std::unique_ptr<Executable>> exe = Build(**m);
    ASSERT_THAT(exe, IsOk());
    EXPECT_EQ((*exe)->in_place_fusions(), c.in_place);
    for (uint64_t seed : {1, 2}) {  // the second run starts from fresh state
      std::vector<Literal> args = RandomArguments(**m, seed);
      absl::StatusOr<Literal> want = Evaluate(**m, args);
      absl::StatusOr<Literal> got = (*exe)->Run(args);
      ASSERT_THAT(got, IsOk());
      EXPECT_THAT(CompareLiterals(*want, *got, "result"), IsOk());
    }
  }
}

// (A constant never reaches an in-place fusion as an operand: the planner
// copies constants into the fusions that use them, as `b` shows.)
TEST(ExecutableTest, DynamicUpdateSlicesNeverWriteIntoArgumentsOrConstants) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  k = f32[4,8] constant({...})
  u = f32[1,8] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  a = f32[4,8] dynamic-update-slice(x, u, i, z)
  b = f32[4,8] dynamic-update-slice(k, u, i, z)
  ROOT t = (f32[4,8], f32[4,8]) tuple(a, b)
})hlo", "<text>", ParseOptions{.fill_elided_constants = true});
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Executable>> exe = Build(**m);
  ASSERT_THAT(exe, IsOk());
  EXPECT_EQ((*exe)->in_place_fusions(), 0);
  std::vector<Literal> args = RandomArguments(**m, 3);
  const Literal before = args[0];
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<Literal> want = Evaluate(**m, args);
    absl::StatusOr<Literal> got = (*exe)->Run(args);
    ASSERT_THAT(got, IsOk());
    EXPECT_THAT(CompareLiterals(*want, *got, "result"), IsOk());
  }
  EXPECT_THAT(CompareLiterals(before, args[0], "argument"), IsOk());
}

TEST(ExecutableTest, UnsupportedFusionsFallBackToTheEvaluator) {
  // A reduction whose to_apply holds a conditional: the kernels generate
  // none inside a reducer, so the fusion runs on the evaluator.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
first {
  p = (f32[], f32[]) parameter(0)
  a = f32[] get-tuple-element(p), index=0
  b = f32[] get-tuple-element(p), index=1
  ROOT c = f32[] call(a, b), to_apply=add
}
second {
  p = (f32[], f32[]) parameter(0)
  a = f32[] get-tuple-element(p), index=0
  b = f32[] get-tuple-element(p), index=1
  ROOT c = f32[] call(a, b), to_apply=max
}
add_or_max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  zero = f32[] constant(0)
  pos = pred[] compare(b, zero), direction=GT
  t = (f32[], f32[]) tuple(a, b)
  ROOT c = f32[] conditional(pos, t, t), true_computation=first, false_computation=second
}
ENTRY e {
  x = f32[4,8] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[4] reduce(x, zero), dimensions={1}, to_apply=add_or_max
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
  EXPECT_THAT(CompareLiterals(*Evaluate(**m, args), *got, "result"), IsOk());
}

TEST(ExecutableTest, ReducersThatCallComputationsRunAsKernels) {
  // The fusion pass inlines the call, as it does in the entry.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add_via_call {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] call(a, b), to_apply=add
}
ENTRY e {
  x = f32[4,8] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[4] reduce(x, zero), dimensions={1}, to_apply=add_via_call
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Executable>> exe = Build(**m);
  ASSERT_THAT(exe, IsOk());
  for (const CompiledFusion& f : (*exe)->fusions()) {
    EXPECT_EQ(f.fallback_reason, "") << f.fusion->name();
  }
  std::vector<Literal> args = RandomArguments(**m, 3);
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(CompareLiterals(*Evaluate(**m, args), *got, "result"), IsOk());
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

// A probe swaps another kernel of the same fusion in for one run and times
// only the fusions it asks for.
TEST(ExecutableTest, ProbeSubstitutesKernelsAndTimesTheFusionsAskedFor) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  a = f32[64,32] parameter(0)
  b = f32[32,48] parameter(1)
  d = f32[64,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[64,48] tanh(d)
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Executable>> exe = Build(**m);
  ASSERT_THAT(exe, IsOk());
  const std::vector<CompiledFusion>& fusions = (*exe)->fusions();
  ASSERT_GE(fusions.size(), 1u);
  // Another candidate of the first fusion than the one it runs.
  const Instruction& f0 = *fusions[0].fusion;
  KernelConfig other;
  for (const KernelConfig& c : Cpu().Candidates(f0, false)) {
    if (c != fusions[0].config) other = c;
  }
  ASSERT_NE(other, fusions[0].config);
  absl::StatusOr<std::unique_ptr<Kernel>> k = Cpu().Compile(f0, other);
  ASSERT_THAT(k, IsOk());
  std::vector<Literal> args = RandomArguments(**m, 5);
  absl::StatusOr<Literal> want = Evaluate(**m, args);
  ASSERT_THAT(want, IsOk());

  RunProbe probe;
  probe.substitute.assign(fusions.size(), nullptr);
  probe.substitute[0] = k->get();
  probe.timed.assign(fusions.size(), false);
  probe.timed[0] = true;
  absl::StatusOr<Literal> got = (*exe)->Run(args, &probe);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(CompareLiterals(*want, *got, "with the substitute"), IsOk());
  ASSERT_EQ(probe.seconds.size(), fusions.size());
  EXPECT_GT(probe.seconds[0], 0);
  for (size_t i = 1; i < fusions.size(); ++i) EXPECT_EQ(probe.seconds[i], 0);

  // A kernel that fails where it is swapped in fails the run.
  class Failing : public Kernel {
   public:
    absl::Status Run(absl::Span<const DeviceBuffer>, DeviceBuffer) override {
      return absl::InternalError("swapped-in kernel failed");
    }
  } failing;
  probe.substitute[0] = &failing;
  EXPECT_THAT((*exe)->Run(args, &probe),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("swapped-in")));
  // Without a probe, its own kernels again.
  got = (*exe)->Run(args);
  ASSERT_THAT(got, IsOk());
  EXPECT_THAT(CompareLiterals(*want, *got, "its own kernels"), IsOk());
}

}  // namespace
}  // namespace xtune
