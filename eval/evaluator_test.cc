#include "eval/evaluator.h"

#include <chrono>
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/float_formats.h"
#include "util/rng.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

Literal MakeLiteral(DType t, std::vector<int64_t> dims,
                    const std::vector<double>& values) {
  Literal lit(Shape(t, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) lit.SetDouble(i, values[i]);
  return lit;
}

std::vector<double> Values(const Literal& lit) {
  std::vector<double> v;
  for (int64_t i = 0; i < lit.element_count(); ++i) v.push_back(lit.GetDouble(i));
  return v;
}

absl::StatusOr<Literal> RunModule(const std::string& text,
                                  const std::vector<Literal>& args,
                                  const EvaluatorOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  if (!m.ok()) return m.status();
  return Evaluate(**m, args, options);
}

std::vector<double> RunValues(const std::string& text,
                              const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = RunModule(text, args);
  EXPECT_THAT(r, IsOk());
  return r.ok() ? Values(*r) : std::vector<double>{};
}

TEST(EvaluatorTest, ElementwiseArithmetic) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = f32[4] add(a, b)
  m = f32[4] multiply(s, a)
  ROOT d = f32[4] divide(m, b)
})hlo",
                        {MakeLiteral(DType::kF32, {4}, {1, 2, 3, 4}),
                         MakeLiteral(DType::kF32, {4}, {1, 2, 4, 8})}),
              ElementsAre(2, 4, 5.25, 6));
}

TEST(EvaluatorTest, BitcastReadsPhysicalMemoryOfNonDefaultLayouts) {
  Literal p = MakeLiteral(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  // Column-major parameter: physical order 1 4 2 5 3 6.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[6]{0} bitcast(p)
})hlo",
                        {p}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // copy changes the layout, so the bitcast after it sees the new order.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  c = f32[2,3]{0,1} copy(p)
  ROOT b = f32[6]{0} bitcast(c)
})hlo",
                        {p}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // A row-major buffer read as a column-major 3x2 matrix is the transpose.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{0,1} bitcast(p)
})hlo",
                        {p}),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // ...while reshape keeps logical order whatever the layouts.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT r = f32[3,2]{0,1} reshape(p)
})hlo",
                        {p}),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(EvaluatorTest, ResultKeepsTheRootLayout) {
  absl::StatusOr<Literal> r = RunModule(R"hlo(HloModule m
ENTRY e {
  p = f32[2,2]{1,0} parameter(0)
  ROOT c = f32[2,2]{0,1} copy(p)
})hlo",
                                  {MakeLiteral(DType::kF32, {2, 2}, {1, 2, 3, 4})});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->shape().minor_to_major(), (std::vector<int64_t>{0, 1}));
  const float* raw = reinterpret_cast<const float*>(r->bytes().data());
  EXPECT_EQ(raw[1], 3);  // physical column-major
  EXPECT_THAT(Values(*r), ElementsAre(1, 2, 3, 4));
}

TEST(EvaluatorTest, BatchDotWithTwoContractingDimensions) {
  // lhs[b,i,j,k] . rhs[b,k,j,n] contracting (j,k) with (2,1).
  const int B = 2, I = 3, J = 2, K = 4, N = 5;
  SplitMix64 rng(7);
  std::vector<double> lv(B * I * J * K), rv(B * K * J * N);
  for (double& v : lv) v = static_cast<double>(rng.NextInt(-3, 3));
  for (double& v : rv) v = static_cast<double>(rng.NextInt(-3, 3));
  std::vector<double> expected;
  for (int b = 0; b < B; ++b) {
    for (int i = 0; i < I; ++i) {
      for (int n = 0; n < N; ++n) {
        double sum = 0;
        for (int j = 0; j < J; ++j) {
          for (int k = 0; k < K; ++k) {
            sum += lv[((b * I + i) * J + j) * K + k] *
                   rv[((b * K + k) * J + j) * N + n];
          }
        }
        expected.push_back(sum);
      }
    }
  }
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  l = f32[2,3,2,4] parameter(0)
  r = f32[2,4,2,5] parameter(1)
  ROOT d = f32[2,3,5] dot(l, r), lhs_batch_dims={0}, lhs_contracting_dims={2,3}, rhs_batch_dims={0}, rhs_contracting_dims={2,1}
})hlo",
                        {MakeLiteral(DType::kF32, {B, I, J, K}, lv),
                         MakeLiteral(DType::kF32, {B, K, J, N}, rv)}),
              ElementsAreArray(expected));
}

// With tf32_dots, default-precision f32 dots multiply TF32-rounded
// operands; a dot at highest precision and the default options do not.
TEST(EvaluatorTest, Tf32DotsRoundDefaultPrecisionOperands) {
  const char* text = R"hlo(HloModule m
ENTRY e {
  a = f32[1,2] parameter(0)
  b = f32[2,1] parameter(1)
  d = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0},
    operand_precision={highest,highest}
  ROOT t = (f32[1,1], f32[1,1]) tuple(d, h)
})hlo";
  const double x = 1.0 + std::ldexp(1.0, -12);  // below TF32's half ulp
  std::vector<Literal> args;
  args.push_back(MakeLiteral(DType::kF32, {1, 2}, {x, 1.0}));
  args.push_back(MakeLiteral(DType::kF32, {2, 1}, {1.0, 1.0}));
  EvaluatorOptions tf32;
  tf32.tf32_dots = true;
  absl::StatusOr<Literal> r = RunModule(text, args, tf32);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->elements()[0].GetDouble(0), 2.0);
  EXPECT_EQ(r->elements()[1].GetDouble(0), x + 1.0);
  absl::StatusOr<Literal> exact = RunModule(text, args);
  ASSERT_THAT(exact, IsOk());
  EXPECT_EQ(exact->elements()[0].GetDouble(0), x + 1.0);
}

TEST(EvaluatorTest, DotByHand) {
  // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]; the rhs is given
  // transposed in a column-major layout, which must not matter.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2]{0,1} parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
                        {MakeLiteral(DType::kF32, {2, 2}, {1, 2, 3, 4}),
                         MakeLiteral(DType::kF32, {2, 2}, {5, 6, 7, 8})}),
              ElementsAre(19, 22, 43, 50));
}

// --xla_allow_excess_precision's reference: f16/bf16 values stay in f32
// between ops, rounded by converts, fusion outputs and the result.
// A bitcast that changes the element type reads the operand's bits in its
// own type, with or without excess precision (XLA's emitter test
// loop/bitcast_add.hlo).
TEST(EvaluatorTest, TypeChangingBitcastReadsTheOperandsOwnBits) {
  const char* kHlo = R"hlo(HloModule m
ENTRY e {
  x = f16[4] parameter(0)
  h = f16[4] add(x, x)
  ROOT b = s16[2,2] bitcast(h)
})hlo";
  std::vector<Literal> args;
  args.push_back(MakeLiteral(DType::kF16, {4}, {0.5, -1, 2, 0}));
  EvaluatorOptions excess;
  excess.excess_precision = true;
  for (const EvaluatorOptions& options : {EvaluatorOptions(), excess}) {
    absl::StatusOr<Literal> r = RunModule(kHlo, args, options);
    ASSERT_THAT(r, IsOk());
    // f16 bits of 1, -2, 4, 0.
    EXPECT_THAT(Values(*r), ElementsAre(0x3c00, -16384, 0x4400, 0));
  }
}

TEST(EvaluatorTest, ExcessPrecisionKeepsLowPrecisionValuesInF32) {
  const char* kBf16 = R"hlo(HloModule m
ENTRY e {
  x = bf16[1] parameter(0)
  c = bf16[] constant(0.001)
  cb = bf16[1] broadcast(c), dimensions={}
  a = bf16[1] add(x, cb)
  ROOT s = bf16[1] subtract(a, x)
})hlo";
  std::vector<Literal> one;
  one.push_back(MakeLiteral(DType::kBF16, {1}, {1}));
  EvaluatorOptions excess;
  excess.excess_precision = true;
  // HLO semantics: 1 + 0.001 rounds to 1 in bf16, so the difference is 0.
  absl::StatusOr<Literal> exact = RunModule(kBf16, one);
  ASSERT_THAT(exact, IsOk());
  EXPECT_THAT(Values(*exact), ElementsAre(0));
  absl::StatusOr<Literal> wide = RunModule(kBf16, one, excess);
  ASSERT_THAT(wide, IsOk());
  // 0.001 as bf16 is 0.00099945068359375; kept through the add in f32.
  EXPECT_THAT(Values(*wide), ElementsAre(0.00099945068359375));

  // An f16 accumulator: 4096 ones stall at 2048 in f16, reach 4096 in f32.
  const char* kSum = R"hlo(HloModule m
add {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT s = f16[] add(x, y)
}
ENTRY e {
  a = f16[4096] parameter(0)
  z = f16[] constant(0)
  ROOT r = f16[] reduce(a, z), dimensions={0}, to_apply=add
})hlo";
  std::vector<Literal> ones;
  ones.push_back(MakeLiteral(DType::kF16, {4096}, std::vector<double>(4096, 1)));
  EXPECT_THAT(Values(*RunModule(kSum, ones)), ElementsAre(2048));
  EXPECT_THAT(Values(*RunModule(kSum, ones, excess)), ElementsAre(4096));

  const char* kBits = R"hlo(HloModule m
ENTRY e {
  x = f16[1] parameter(0)
  c = f16[] constant(0.0001)
  cb = f16[1] broadcast(c), dimensions={}
  a = f16[1] add(x, cb)
  w = f32[1] convert(a)
  v = f32[1] convert(x)
  ROOT d = f32[1] subtract(w, v)
})hlo";
  std::vector<Literal> x1;
  x1.push_back(MakeLiteral(DType::kF16, {1}, {1}));
  // Widening a (an f16 value) to f32 is exact, not a rounding point: the
  // excess survives the convert to f32; without excess it is rounded away.
  EXPECT_THAT(Values(*RunModule(kBits, x1)), ElementsAre(0));
  EXPECT_THAT(Values(*RunModule(kBits, x1, excess)),
              ElementsAre(::testing::DoubleNear(0.0001, 1e-6)));
}

TEST(EvaluatorTest, HalfPrecisionRoundsOnStoreAndDotAccumulatesInF32) {
  // 1 + 2^-12 is below half an f16 ulp at 1: the sum rounds back to 1.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f16[2] parameter(0)
  b = f16[2] parameter(1)
  ROOT s = f16[2] add(a, b)
})hlo",
                        {MakeLiteral(DType::kF16, {2}, {1, 1}),
                         MakeLiteral(DType::kF16, {2}, {std::ldexp(1.0, -12),
                                                        std::ldexp(3.0, -11)})}),
              ElementsAre(1, 1 + std::ldexp(1.0, -9)));
  // bf16: 1 + 3*2^-8 ties to even 1 + 2^-6.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = bf16[1] parameter(0)
  b = bf16[1] parameter(1)
  ROOT s = bf16[1] add(a, b)
})hlo",
                        {MakeLiteral(DType::kBF16, {1}, {1}),
                         MakeLiteral(DType::kBF16, {1}, {3 * std::ldexp(1.0, -8)})}),
              ElementsAre(1 + std::ldexp(1.0, -6)));
  // 4096 ones: an f16 accumulator would stall at 2048; f32 gets 4096.
  Literal ones = MakeLiteral(DType::kF16, {4096}, std::vector<double>(4096, 1));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f16[4096] parameter(0)
  b = f16[4096] parameter(1)
  ROOT d = f16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})hlo",
                        {ones, ones}),
              ElementsAre(4096));
  // exp in f16 computes in f32 and rounds: exp(1) = 2.71875 in f16.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f16[1] parameter(0)
  ROOT x = f16[1] exponential(a)
})hlo",
                        {MakeLiteral(DType::kF16, {1}, {1})}),
              ElementsAre(2.71875));
}

TEST(EvaluatorTest, ReductionsOverSeveralDimensions) {
  // x[i,j,k] = 12i + 4j + k over [2,3,4]; sum over i and k for each j:
  // sum_i sum_k (12i + 4j + k) = 4*12 + 8*4j + 2*6 = 60 + 32j.
  std::vector<double> x(24);
  for (int i = 0; i < 24; ++i) x[i] = i;
  const char* module = R"hlo(HloModule m
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
ENTRY e {
  x = f32[2,3,4] parameter(0)
  z = f32[] constant(0)
  ninf = f32[] constant(-inf)
  s = f32[3] reduce(x, z), dimensions={0,2}, to_apply=add
  m = f32[2] reduce(x, ninf), dimensions={1,2}, to_apply=max
  all = f32[] reduce(x, z), dimensions={0,1,2}, to_apply=add
  ROOT t = (f32[3], f32[2], f32[]) tuple(s, m, all)
})hlo";
  absl::StatusOr<Literal> r =
      RunModule(module, {MakeLiteral(DType::kF32, {2, 3, 4}, x)});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(Values(r->elements()[0]), ElementsAre(60, 92, 124));
  EXPECT_THAT(Values(r->elements()[1]), ElementsAre(11, 23));
  EXPECT_THAT(Values(r->elements()[2]), ElementsAre(276));
}

TEST(EvaluatorTest, VariadicReduceArgmaxUsesTheGeneralPath) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
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
  x = f32[2,4] parameter(0)
  idx = s32[2,4] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[2], s32[2]) reduce(x, idx, ninf, zero), dimensions={1}, to_apply=argmax
  ROOT i = s32[2] get-tuple-element(r), index=1
})hlo",
                        {MakeLiteral(DType::kF32, {2, 4},
                                     {1, 9, 3, 9, -5, -2, -7, -1})}),
              ElementsAre(1, 3));
}

TEST(EvaluatorTest, IntegerSemantics) {
  EXPECT_THAT(
      RunValues(R"hlo(HloModule m
ENTRY e {
  a = s32[5] constant({7, -7, 5, -2147483648, 100})
  b = s32[5] constant({2, 2, 0, -1, 3})
  d = s32[5] divide(a, b)
  r = s32[5] remainder(a, b)
  ROOT t = s32[10] concatenate(d, r), dimensions={0}
})hlo",
                {}),
      ElementsAre(3, -3, -1, -2147483648, 33, 1, -1, 5, 0, 1));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = u8[3] constant({250, 7, 0})
  b = u8[3] constant({10, 0, 1})
  s = u8[3] add(a, b)
  d = u8[3] divide(a, b)
  ROOT t = u8[6] concatenate(s, d), dimensions={0}
})hlo",
                        {}),
              ElementsAre(4, 7, 1, 25, 255, 0));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = s16[3] constant({32767, -32768, 9})
  b = s16[3] constant({1, -1, 0})
  s = s16[3] add(a, b)
  d = s16[3] divide(a, b)
  ROOT t = s16[6] concatenate(s, d), dimensions={0}
})hlo",
                        {}),
              ElementsAre(-32768, 32767, 9, 32767, -32768, -1));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  u = u16[2] constant({65535, 7})
  z = u16[2] constant({1, 0})
  us = u16[2] add(u, z)
  ud = u16[2] divide(u, z)
  ROOT t = u16[4] concatenate(us, ud), dimensions={0}
})hlo",
                        {}),
              ElementsAre(0, 7, 65535, 65535));
}

TEST(EvaluatorTest, ConvertSaturatesAndRounds) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[5] constant({1e10, -1e10, nan, -2.7, 2.7})
  ROOT c = s8[5] convert(a)
})hlo",
                        {}),
              ElementsAre(127, -128, 0, -2, 2));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[2] constant({65520, 1.00048828125})
  ROOT c = f16[2] convert(a)
})hlo",
                        {}),
              ElementsAre(INFINITY, 1));
}

TEST(EvaluatorTest, CompareTotalOrderAndNaN) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[3] constant({nan, -0, 1})
  b = f32[3] constant({nan, 0, nan})
  x = pred[3] compare(a, b), direction=LT
  y = pred[3] compare(a, b), direction=LT, type=TOTALORDER
  z = pred[3] compare(a, b), direction=NE
  ROOT t = pred[9] concatenate(x, y, z), dimensions={0}
})hlo",
                        {}),
              ElementsAre(0, 0, 0, 0, 1, 1, 1, 0, 1));
}

TEST(EvaluatorTest, DataMovement) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  i = s32[2,3] iota(), iota_dimension=1
  t = s32[3,2] transpose(i), dimensions={1,0}
  r = s32[3,2] reverse(t), dimensions={0}
  ROOT s = s32[2,2] slice(r), slice={[0:3:2], [0:2]}
})hlo",
                        {}),
              ElementsAre(2, 2, 0, 0));
  // pad: low 1, high -1 (crops), interior 1 on a 3-vector: x 1 . 2 . 3 -> [0,1,0,2,0]
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  z = f32[] constant(0)
  ROOT p = f32[5] pad(a, z), padding=1_-1_1
})hlo",
                        {}),
              ElementsAre(0, 1, 0, 2, 0));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = f32[2] constant({1, 2})
  ROOT b = f32[2,3] broadcast(a), dimensions={0}
})hlo",
                        {}),
              ElementsAre(1, 1, 1, 2, 2, 2));
}

TEST(EvaluatorTest, FusionCallTupleAndAllReduce) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  ROOT m = f32[2] multiply(p0, p1)
}
ENTRY e {
  x = f32[2] parameter(0)
  f = f32[2] fusion(x, x), kind=kLoop, calls=fused
  c = f32[2] call(f, x), to_apply=fused
  ar = f32[2] all-reduce(c), replica_groups={}, to_apply=add
  t = (f32[2], f32[2]) tuple(ar, x)
  ROOT g = f32[2] get-tuple-element(t), index=0
})hlo",
                        {MakeLiteral(DType::kF32, {2}, {2, 3})}),
              ElementsAre(8, 27));
}

TEST(EvaluatorTest, AllOpsFileEvaluates) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(
      std::string(XTUNE_SOURCE_DIR) + "/tests/data/all_ops.hlo");
  ASSERT_THAT(m, IsOk());
  std::vector<Literal> args = {
      MakeLiteral(DType::kF32, {2, 3}, {0.5, -1, 2, 0.25, 3, -0.75}),
      MakeLiteral(DType::kF32, {2, 3}, {1, 2, -3, 0.5, 1.5, 4}),
      MakeLiteral(DType::kS32, {4}, {1, -2, 3, 7})};
  absl::StatusOr<Literal> r = Evaluate(**m, args);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->elements().size(), 2u);
}

TEST(EvaluatorTest, BadArgumentsAndElidedConstantsAreErrors) {
  EXPECT_THAT(RunModule("HloModule m\nENTRY e {\n ROOT p = f32[2] parameter(0)\n}",
                  {MakeLiteral(DType::kF32, {3}, {1, 2, 3})}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("argument 0 has shape f32[3] but parameter 0 "
                                 "('p') is f32[2]")));
  EXPECT_THAT(RunModule("HloModule m\nENTRY e {\n ROOT p = f32[2] parameter(0)\n}", {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("takes 1 arguments, got 0")));
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseCanonicalComputation("{\n  ROOT tmp_0 = f32[20]{0} constant({...})\n}");
  ASSERT_THAT(m, IsOk());
  EXPECT_THAT(Evaluate(**m, {}),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("elided")));
}

TEST(EvaluatorTest, HugeValuesAreRefusedNotAllocated) {
  EXPECT_THAT(RunModule("HloModule m\nENTRY e {\n ROOT i = f32[100000,100000,100] "
                  "iota(), iota_dimension=0\n}",
                  {}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("t.hlo:3:7: instruction 'i'")));
}

TEST(EvaluatorTest, Dot512CubedIsFastAndRight) {
  const int n = 512;
  std::vector<double> a(n * n), b(n * n);
  SplitMix64 rng(1);
  for (double& v : a) v = static_cast<double>(rng.NextInt(-2, 2));
  for (double& v : b) v = static_cast<double>(rng.NextInt(-2, 2));
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Literal> r = RunModule(R"hlo(HloModule m
ENTRY e {
  a = f32[512,512] parameter(0)
  b = f32[512,512] parameter(1)
  ROOT d = f32[512,512] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
                                  {MakeLiteral(DType::kF32, {n, n}, a),
                                   MakeLiteral(DType::kF32, {n, n}, b)});
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_THAT(r, IsOk());
  for (int i : {0, 17, 511}) {
    for (int j : {0, 300, 511}) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      EXPECT_EQ(r->GetDouble(i * n + j), s);
    }
  }
  // The issue asks for "well under a second"; a loose bound keeps the test
  // robust on a loaded machine while still catching an accidental O(n^3)
  // per-element slow path.
  EXPECT_LT(seconds, 5.0);
}

// Values worked out by hand from XLA's reduce-precision algorithm: ties to
// even in the mantissa, exponents past the reduced range to infinity, at or
// below its minimum normal exponent minus one to signed zero (so f16-style
// subnormals flush), NaN kept, and NaN to +inf with no mantissa bit left.
TEST(EvaluatorTest, ReducePrecisionRoundsFlushesAndKeepsNaN) {
  std::vector<double> v = RunValues(R"hlo(HloModule m
ENTRY e {
  x = f32[9] constant({1.1875, 1.125, 1.375, 65536, 60000, 3.0517578125e-05, 6.103515625e-05, -9.5367431640625e-07, nan})
  ROOT r = f32[9] reduce-precision(x), exponent_bits=5, mantissa_bits=2
})hlo",
                                    {});
  ASSERT_EQ(v.size(), 9u);
  EXPECT_THAT(std::vector<double>(v.begin(), v.begin() + 8),
              ElementsAre(1.25, 1, 1.5, INFINITY, 57344, 0, 6.103515625e-05, 0));
  EXPECT_TRUE(std::signbit(v[7]));
  EXPECT_TRUE(std::isnan(v[8]));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  x = f32[4] constant({3, 5, 7, nan})
  ROOT r = f32[4] reduce-precision(x), exponent_bits=8, mantissa_bits=0
})hlo",
                        {}),
              ElementsAre(2, 4, 8, INFINITY));
  // On f16's own format: exponent_bits=5 keeps f16's subnormals.
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  x = f16[2] constant({3.0517578125e-05, 1.1875})
  ROOT r = f16[2] reduce-precision(x), exponent_bits=5, mantissa_bits=2
})hlo",
                        {}),
              ElementsAre(3.0517578125e-05, 1.25));
  EXPECT_THAT(RunModule(R"hlo(HloModule m
ENTRY e {
  x = s32[2] parameter(0)
  ROOT r = s32[2] reduce-precision(x), exponent_bits=5, mantissa_bits=2
})hlo",
                        {MakeLiteral(DType::kS32, {2}, {1, 2})}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("floating-point")));
}

TEST(EvaluatorTest, CountLeadingZerosAndPopcntUseTheTypesWidth) {
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = s32[4] constant({0, 1, -1, 3855})
  c = s32[4] count-leading-zeros(a)
  p = s32[4] popcnt(a)
  ROOT t = s32[8] concatenate(c, p), dimensions={0}
})hlo",
                        {}),
              ElementsAre(32, 31, 0, 20, 0, 1, 32, 8));
  EXPECT_THAT(RunValues(R"hlo(HloModule m
ENTRY e {
  a = u8[3] constant({1, 255, 0})
  c = u8[3] count-leading-zeros(a)
  p = u8[3] popcnt(a)
  ROOT t = u8[6] concatenate(c, p), dimensions={0}
})hlo",
                        {}),
              ElementsAre(7, 0, 8, 1, 8, 0));
}

TEST(EvaluatorTest, MapAppliesItsComputationPerElement) {
  const std::string axpy = R"hlo(HloModule m
axpy {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  two = f32[] constant(2)
  t = f32[] multiply(x, two)
  ROOT r = f32[] add(t, y)
}
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT m = f32[3] map(a, b), dimensions={0}, to_apply=axpy
})hlo";
  EXPECT_THAT(RunValues(axpy, {MakeLiteral(DType::kF32, {3}, {1, 2, 3}),
                               MakeLiteral(DType::kF32, {3}, {10, 20, 30})}),
              ElementsAre(12, 24, 36));
  // A body xtune cannot apply as array operations is refused by name.
  EXPECT_THAT(RunModule(R"hlo(HloModule m
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
twice {
  x = f32[] parameter(0)
  z = f32[] constant(0)
  b = f32[2] broadcast(x), dimensions={}
  ROOT r = f32[] reduce(b, z), dimensions={0}, to_apply=add
}
ENTRY e {
  a = f32[3] parameter(0)
  ROOT m = f32[3] map(a), dimensions={0}, to_apply=twice
})hlo",
                        {MakeLiteral(DType::kF32, {3}, {1, 2, 3})}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("map's to_apply 'twice' uses 'broadcast'")));
}

}  // namespace
}  // namespace xtune
