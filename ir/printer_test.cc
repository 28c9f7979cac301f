#include "ir/printer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::xtune::testing::IsOk;

std::string DataPath(const std::string& name) {
  return std::string(XTUNE_SOURCE_DIR) + "/tests/data/" + name;
}

class RoundTripTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RoundTripTest, PrintThenParseGivesAnEquivalentModule) {
  absl::StatusOr<std::string> text = ReadFile(DataPath(GetParam()));
  ASSERT_THAT(text, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> first = ParseModule(*text, GetParam());
  ASSERT_THAT(first, IsOk());
  std::string printed = ToString(**first);
  absl::StatusOr<std::unique_ptr<Module>> second =
      ParseModule(printed, "printed");
  ASSERT_THAT(second, IsOk()) << printed;
  std::string why;
  EXPECT_TRUE((*first)->Equivalent(**second, &why)) << why << "\n" << printed;
  // Printing is a fixed point.
  EXPECT_EQ(ToString(**second), printed);
}

INSTANTIATE_TEST_SUITE_P(Files, RoundTripTest,
                         ::testing::Values("all_ops.hlo",
                                           "simple_optimization_test.hlo",
                                           "single_gemm_fusion.hlo"));

TEST(PrinterTest, EquivalenceNoticesDifferences) {
  auto a = ParseModule("HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                       " ROOT n = f32[2] negate(p)\n}");
  auto b = ParseModule("HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                       " ROOT n = f32[2] abs(p)\n}");
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  std::string why;
  EXPECT_FALSE((*a)->Equivalent(**b, &why));
  EXPECT_EQ(why, "computation e: instruction n differs");
}

TEST(PrinterTest, InstructionFormat) {
  auto m = ParseModule(R"hlo(
HloModule m
ENTRY e {
  p = f32[4,6]{1,0} parameter(0), metadata={op_name="p"}
  z = f32[] constant(0)
  s = f32[2,2]{1,0} slice(p), slice={[1:3], [0:6:3]}
  ROOT q = f32[4,8]{1,0} pad(p, z), padding=0_0x1_1
}
)hlo");
  ASSERT_THAT(m, IsOk());
  const Computation* e = (*m)->entry();
  EXPECT_EQ(ToString(*e->FindInstruction("p")),
            "p = f32[4,6]{1,0} parameter(0), metadata={op_name=\"p\"}");
  EXPECT_EQ(ToString(*e->FindInstruction("s")),
            "s = f32[2,2]{1,0} slice(f32[4,6]{1,0} p), "
            "slice={[1:3:1], [0:6:3]}");
  EXPECT_EQ(ToString(*e->FindInstruction("q")),
            "q = f32[4,8]{1,0} pad(f32[4,6]{1,0} p, f32[] z), padding=0_0x1_1");
}

constexpr char kGemmFusionModule[] = R"hlo(
HloModule named

%fused_computation (param_0.1: f16[1,16,17,3], param_1.2: s8[16,17,3]) -> f16[1,16,16] {
  %param_1.2 = s8[16,17,3]{2,1,0} parameter(1)
  %param_0.1 = f16[1,16,17,3]{3,2,1,0} parameter(0)
  %bitcast.10 = f16[16,51]{1,0} bitcast(f16[1,16,17,3]{3,2,1,0} %param_0.1)
  %bitcast.11 = s8[51,16]{0,1} bitcast(s8[16,17,3]{2,1,0} %param_1.2)
  %convert.3 = f16[51,16]{0,1} convert(s8[51,16]{0,1} %bitcast.11), metadata={op_name="c"}
  %dot.7 = f16[16,16]{1,0} dot(f16[16,51]{1,0} %bitcast.10, f16[51,16]{0,1} %convert.3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %bitcast.12 = f16[1,16,16]{2,1,0} bitcast(f16[16,16]{1,0} %dot.7)
}

ENTRY %main (p0: f16[1,16,17,3], p1: s8[16,17,3]) -> f16[1,16,16] {
  %p0 = f16[1,16,17,3]{3,2,1,0} parameter(0)
  %p1 = s8[16,17,3]{2,1,0} parameter(1)
  ROOT %fusion = f16[1,16,16]{2,1,0} fusion(%p0, %p1), kind=kCustom, calls=%fused_computation, backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}
}
)hlo";

TEST(CanonicalTextTest, ReproducesXlaCacheKeyFromANamedFusion) {
  auto m = ParseModule(kGemmFusionModule, "named.hlo");
  ASSERT_THAT(m, IsOk());
  const Computation* fused = (*m)->FindComputation("fused_computation");
  EXPECT_EQ(
      CanonicalText(*fused),
      "{\n"
      "  tmp_0 = f16[1,16,17,3]{3,2,1,0} parameter(0)\n"
      "  tmp_1 = f16[16,51]{1,0} bitcast(f16[1,16,17,3]{3,2,1,0} tmp_0)\n"
      "  tmp_2 = s8[16,17,3]{2,1,0} parameter(1)\n"
      "  tmp_3 = s8[51,16]{0,1} bitcast(s8[16,17,3]{2,1,0} tmp_2)\n"
      "  tmp_4 = f16[51,16]{0,1} convert(s8[51,16]{0,1} tmp_3)\n"
      "  tmp_5 = f16[16,16]{1,0} dot(f16[16,51]{1,0} tmp_1, f16[51,16]{0,1} "
      "tmp_4), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  ROOT tmp_6 = f16[1,16,16]{2,1,0} bitcast(f16[16,16]{1,0} tmp_5)\n"
      "}");
}

TEST(CanonicalTextTest, NamesDoNotMatterButStructureDoes) {
  const char* a = R"hlo(HloModule a
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] exponential(x)
  ROOT z = f32[8] add(y, x)
})hlo";
  const char* b = R"hlo(HloModule b
ENTRY other {
  %in = f32[8]{0} parameter(0), metadata={op_name="foo"}
  %exp.1 = f32[8]{0} exponential(f32[8]{0} %in)
  ROOT %add.2 = f32[8]{0} add(f32[8]{0} %exp.1, f32[8]{0} %in)
})hlo";
  const char* c = R"hlo(HloModule c
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] exponential(x)
  ROOT z = f32[8] multiply(y, x)
})hlo";
  auto ma = ParseModule(a);
  auto mb = ParseModule(b);
  auto mc = ParseModule(c);
  ASSERT_THAT(ma, IsOk());
  ASSERT_THAT(mb, IsOk());
  ASSERT_THAT(mc, IsOk());
  EXPECT_EQ(CanonicalText(*(*ma)->entry()), CanonicalText(*(*mb)->entry()));
  EXPECT_NE(CanonicalText(*(*ma)->entry()), CanonicalText(*(*mc)->entry()));
}

TEST(CanonicalTextTest, NestedComputationsAndConstants) {
  auto m = ParseModule(R"hlo(HloModule r
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p = f32[4,8] parameter(0)
  init = f32[] constant(-inf)
  half = f32[] constant(0.5)
  one = s32[2] constant({1, 1})
  ints = s32[2] constant({3, 4})
  s = f32[4,8] multiply(p, f32[4,8] broadcast(half), dimensions={})
  ROOT r = f32[4] reduce(p, init), dimensions={1}, to_apply=max
})hlo");
  // The broadcast written inline above is not HLO: expect a parse error.
  EXPECT_FALSE(m.ok());

  m = ParseModule(R"hlo(HloModule r
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p = f32[4,8] parameter(0)
  init = f32[] constant(-inf)
  half = f32[] constant(0.5)
  ints = s32[2] constant({3, 4})
  one = s32[2] constant({1, 1})
  b = f32[4,8] broadcast(half), dimensions={}
  s = f32[4,8] multiply(p, b)
  ROOT r = f32[4] reduce(s, init), dimensions={1}, to_apply=max
})hlo");
  ASSERT_THAT(m, IsOk());
  std::string text = CanonicalText(*(*m)->entry());
  EXPECT_EQ(text,
            "{\n"
            "  tmp_0 = s32[2]{0} constant({3, 4})\n"
            "  tmp_1 = s32[2]{0} constant(1)\n"
            "  tmp_2 = f32[4,8]{1,0} parameter(0)\n"
            "  tmp_3 = f32[] constant({...})\n"
            "  tmp_4 = f32[4,8]{1,0} broadcast(f32[] tmp_3), dimensions={}\n"
            "  tmp_5 = f32[4,8]{1,0} multiply(f32[4,8]{1,0} tmp_2, "
            "f32[4,8]{1,0} tmp_4)\n"
            "  tmp_6 = f32[] constant({...})\n"
            "  ROOT tmp_7 = f32[4]{0} reduce(f32[4,8]{1,0} tmp_5, f32[] tmp_6), "
            "dimensions={1}, to_apply=\n"
            "  {\n"
            "    tmp_0 = f32[] parameter(0)\n"
            "    tmp_1 = f32[] parameter(1)\n"
            "    ROOT tmp_2 = f32[] maximum(f32[] tmp_0, f32[] tmp_1)\n"
            "  }\n"
            "}");
  // The canonical text, nested body and elided constants included, parses
  // back and prints identically.
  auto back = ParseCanonicalComputation(text);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(CanonicalText(*(*back)->entry()), text);
  CanonicalOptions full;
  full.essential_constants_only = false;
  EXPECT_THAT(CanonicalText(*(*m)->entry(), full),
              ::testing::HasSubstr("tmp_6 = f32[] constant(-inf)"));
}

}  // namespace
}  // namespace xtune
