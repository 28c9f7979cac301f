#include "fusion/fusion_pass.h"

#include <filesystem>

#include "eval/evaluator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/library_call.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/random_inputs.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::ElementsAre;
using ::xtune::testing::IsOk;

std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t.hlo");
  EXPECT_THAT(m, IsOk());
  return m.ok() ? std::move(*m) : nullptr;
}

std::unique_ptr<Module> Fuse(const Module& m) {
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(m);
  EXPECT_THAT(fused, IsOk());
  if (!fused.ok()) return nullptr;
  EXPECT_THAT(VerifyModule(**fused), IsOk()) << ToString(**fused);
  return std::move(*fused);
}

// "kind:root-opcode" of each fusion in the entry, in order.
std::vector<std::string> Summary(const Module& m) {
  std::vector<std::string> out;
  for (const auto& i : m.entry()->instructions()) {
    if (i->opcode() != Opcode::kFusion) continue;
    out.push_back(std::string(FusionKindName(ClassifyFusion(*i))) + ":" +
                  std::string(OpcodeName(
                      i->called_computations()[0]->root()->opcode())));
  }
  return out;
}

int64_t CountOps(const Module& m, const std::string& fusion, Opcode op) {
  const Instruction* f = m.entry()->FindInstruction(fusion);
  if (f == nullptr) return -1;
  int64_t n = 0;
  for (const auto& i : f->called_computations()[0]->instructions()) {
    n += i->opcode() == op;
  }
  return n;
}

std::string Example(const std::string& name) {
  return std::string(XTUNE_SOURCE_DIR) + "/examples/" + name;
}

TEST(FusionPassTest, MlpIsTwoGemmFusionsWithEpilogues) {
  auto m = ParseModuleFile(Example("mlp.hlo"));
  ASSERT_THAT(m, IsOk());
  auto fused = Fuse(**m);
  ASSERT_NE(fused, nullptr);
  EXPECT_THAT(Summary(*fused), ElementsAre("gemm:multiply", "gemm:add"));
  // The whole GELU sits in the first gemm's epilogue, the bias broadcast
  // too, so the bias vector is a fusion parameter.
  EXPECT_EQ(CountOps(*fused, "gemm_fusion", Opcode::kTanh), 1);
  EXPECT_EQ(CountOps(*fused, "gemm_fusion", Opcode::kBroadcast), 5);
  const Instruction* g = fused->entry()->FindInstruction("gemm_fusion");
  EXPECT_EQ(g->attrs().fusion_kind, "kCustom");
  EXPECT_EQ(g->attrs().backend_config,
            R"({"fusion_backend_config":{"kind":"__triton_gemm"}})");
  EXPECT_EQ(g->operand_count(), 3);  // x, w1, b1
  EXPECT_EQ(g->operand(2)->shape().ToString(false), "f32[512]");
}

TEST(FusionPassTest, SoftmaxAndLayerNormAreOneFusionEach) {
  auto att = ParseModuleFile(Example("attention.hlo"));
  ASSERT_THAT(att, IsOk());
  auto fused = Fuse(**att);
  ASSERT_NE(fused, nullptr);
  EXPECT_THAT(Summary(*fused),
              ElementsAre("gemm:divide", "reduction:divide", "gemm:dot"));
  EXPECT_EQ(CountOps(*fused, "reduce_fusion", Opcode::kReduce), 2);

  auto ln = ParseModuleFile(Example("layer_norm.hlo"));
  ASSERT_THAT(ln, IsOk());
  auto fused_ln = Fuse(**ln);
  ASSERT_NE(fused_ln, nullptr);
  EXPECT_THAT(Summary(*fused_ln), ElementsAre("reduction:add"));
  EXPECT_EQ(CountOps(*fused_ln, "reduce_fusion", Opcode::kReduce), 2);
}

TEST(FusionPassTest, ExistingFusionsAreKept) {
  auto m = ParseModuleFile(std::string(XTUNE_SOURCE_DIR) +
                           "/tests/data/single_gemm_fusion.hlo");
  ASSERT_THAT(m, IsOk());
  auto fused = Fuse(**m);
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->entry()->instructions().size(), 3u);
  const Instruction* f = fused->entry()->root();
  EXPECT_EQ(f->name(), "f");
  EXPECT_EQ(f->attrs().fusion_kind, "kCustom");
  EXPECT_EQ(ClassifyFusion(*f), FusionKind::kGemm);
}

// An ungrouped deep convolution is a conv fusion (an implicit gemm) with
// its operands' cheap producers and its bias and activation; a shallow or
// depthwise one a loop fusion; a grouped deep one im2col + a batched dot.
TEST(FusionPassTest, ConvolutionsFuseByKind) {
  auto m = Parse(R"hlo(HloModule m
ENTRY e {
  x = bf16[2,8,8,16] parameter(0)
  xf = f32[2,8,8,16] convert(x)
  w = f32[3,3,16,32] parameter(1)
  b = f32[32] parameter(2)
  c = f32[2,8,8,32] convolution(xf, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,8,8,32] broadcast(b), dimensions={3}
  s = f32[2,8,8,32] add(c, bb)
  z = f32[] constant(0)
  zb = f32[2,8,8,32] broadcast(z), dimensions={}
  r = f32[2,8,8,32] maximum(s, zb)
  dw = f32[3,3,1,32] parameter(3)
  d = f32[2,8,8,32] convolution(r, dw), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32
  gw = f32[3,3,16,32] parameter(4)
  g = f32[2,8,8,32] convolution(d, gw), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  ROOT n = f32[2,8,8,32] negate(g)
}
)hlo");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  // The depthwise convolution is computed inside the loop writing the
  // grouped one's patches.
  EXPECT_THAT(Summary(*fused),
              ElementsAre("conv:maximum", "loop:concatenate", "gemm:dot", "loop:negate"))
      << ToString(*fused);
  EXPECT_EQ(CountOps(*fused, "loop_fusion", Opcode::kConvolution), 1);
  const Instruction* conv = fused->entry()->FindInstruction("conv_fusion");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->attrs().fusion_kind, "kOutput");
  EXPECT_EQ(CountOps(*fused, "conv_fusion", Opcode::kConvert), 1);
  EXPECT_EQ(CountOps(*fused, "conv_fusion", Opcode::kConvolution), 1);
}

TEST(FusionPassTest, CallsAreInlinedAndOutputsAreSingle) {
  auto m = Parse(R"hlo(HloModule m
sq {
  a = f32[8] parameter(0)
  ROOT m = f32[8] multiply(a, a)
}
ENTRY e {
  x = f32[8] parameter(0)
  c = f32[8] call(x), to_apply=sq
  n = f32[8] negate(c)
  e = f32[8] exponential(c)
  ROOT t = (f32[8], f32[8]) tuple(n, e)
})hlo");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  // c has two users in different fusions, so it is its own fusion.
  EXPECT_THAT(Summary(*fused),
              ElementsAre("loop:multiply", "loop:negate", "loop:exponential"));
}

TEST(FusionPassTest, GemmOperandProducersAndResidualEpilogue) {
  auto m = Parse(R"hlo(HloModule m
ENTRY e {
  a = s8[16,32] parameter(0)
  b = f32[16,32] parameter(1)
  r = f32[32,32] parameter(2)
  ca = f32[16,32] convert(a)
  t = f32[32,16] transpose(ca), dimensions={1,0}
  d = f32[32,32] dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[32,32] add(d, r)
  z = f32[] constant(0)
  zb = f32[32,32] broadcast(z), dimensions={}
  ROOT y = f32[32,32] maximum(s, zb)
})hlo");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_THAT(Summary(*fused), ElementsAre("gemm:maximum"));
  const Instruction* g = fused->entry()->root();
  // a (s8, converted and transposed inside), b, and the residual r.
  ASSERT_EQ(g->operand_count(), 3);
  EXPECT_EQ(g->operand(0)->name(), "a");
  EXPECT_EQ(CountOps(*fused, "gemm_fusion", Opcode::kConvert), 1);
  EXPECT_EQ(CountOps(*fused, "gemm_fusion", Opcode::kTranspose), 1);
}

// XLA's scaled-FP8 pattern: each operand converted and multiplied by a
// broadcast scalar scale; all of it is the gemm's operand loading, the
// scales fusion parameters. A multiply by a full array is not taken.
TEST(FusionPassTest, ScaledOperandsAreGemmProducers) {
  auto m = Parse(R"hlo(HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e5m2[8,32] parameter(1)
  sa = bf16[] parameter(2)
  sb = bf16[] parameter(3)
  ca = bf16[16,32] convert(a)
  cb = bf16[8,32] convert(b)
  bsa = bf16[16,32] broadcast(sa), dimensions={}
  bsb = bf16[8,32] broadcast(sb), dimensions={}
  x = bf16[16,32] multiply(ca, bsa)
  y = bf16[8,32] multiply(bsb, cb)
  ROOT d = bf16[16,8] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})hlo");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_THAT(Summary(*fused), ElementsAre("gemm:dot"));
  const Instruction* g = fused->entry()->root();
  ASSERT_EQ(g->operand_count(), 4);
  EXPECT_EQ(CountOps(*fused, "gemm_fusion", Opcode::kMultiply), 2);
  EXPECT_EQ(CountOps(*fused, "gemm_fusion", Opcode::kBroadcast), 2);

  auto full = Parse(R"hlo(HloModule m
ENTRY e {
  a = bf16[16,32] parameter(0)
  s = bf16[16,32] parameter(1)
  b = bf16[32,8] parameter(2)
  x = bf16[16,32] multiply(a, s)
  ROOT d = bf16[16,8] dot(x, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo");
  ASSERT_NE(full, nullptr);
  auto fused_full = Fuse(*full);
  ASSERT_NE(fused_full, nullptr);
  EXPECT_EQ(CountOps(*fused_full, "gemm_fusion", Opcode::kMultiply), 0);
}

// XLA's cuBLAS custom-calls (ir/library_call.h) become one gemm fusion
// each, whatever surrounds them, keyed by the call; an unread workspace
// costs nothing; an aux output is a second gemm fusion.
TEST(FusionPassTest, LibraryCallsBecomeTheirOwnGemmFusions) {
  auto m = Parse(R"hlo(HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  y = f32[8,6] parameter(1)
  bias = f32[6] parameter(2)
  nx = f32[4,8] negate(x)
  g = (f32[4,6], f32[4,6], s8[64]) custom-call(nx, y, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"BIAS_GELU_AUX"}}
  d = f32[4,6] get-tuple-element(g), index=0
  aux = f32[4,6] get-tuple-element(g), index=1
  e = f32[4,6] exponential(d)
  ROOT t = (f32[4,6], f32[4,6]) tuple(e, aux)
}
)hlo");
  ASSERT_NE(m, nullptr);
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_THAT(Summary(*fused),
              ElementsAre("loop:negate", "gemm:multiply", "gemm:add",
                          "loop:exponential"))
      << ToString(*fused);
  const Instruction* g = FindFusion(*fused, "g");
  ASSERT_NE(g, nullptr);
  std::optional<LibraryFusion> call = LibraryFusionOf(*g);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->target, "__cublas$lt$matmul");
  EXPECT_EQ(call->key, *LibraryCallKeyText(*m->entry()->FindInstruction("g")));
  EXPECT_EQ(CountOps(*fused, "g", Opcode::kTanh), 1);
  const Instruction* aux = FindFusion(*fused, "g.aux");
  ASSERT_NE(aux, nullptr);
  EXPECT_FALSE(LibraryFusionOf(*aux).has_value());
  EXPECT_EQ(CountOps(*fused, "g.aux", Opcode::kTanh), 0);
  // The printed fused module reads back with the call's key.
  absl::StatusOr<std::unique_ptr<Module>> again = ParseModule(ToString(*fused));
  ASSERT_THAT(again, IsOk());
  std::optional<LibraryFusion> reread =
      LibraryFusionOf(*FindFusion(**again, "g"));
  ASSERT_TRUE(reread.has_value());
  EXPECT_EQ(reread->key, call->key);
}

// The fused module computes exactly what the original does.
class FusionEquivalenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FusionEquivalenceTest, FusedModuleEvaluatesTheSame) {
  auto m = ParseModuleFile(GetParam());
  ASSERT_THAT(m, IsOk());
  auto fused = Fuse(**m);
  ASSERT_NE(fused, nullptr);
  std::vector<Literal> args = RandomArguments(**m, 7);
  absl::StatusOr<Literal> want = Evaluate(**m, args);
  absl::StatusOr<Literal> got = Evaluate(*fused, args);
  ASSERT_THAT(want, IsOk());
  ASSERT_THAT(got, IsOk());
  EXPECT_TRUE(*want == *got) << ToString(*fused);
}

std::vector<std::string> AllModules() {
  std::vector<std::string> files;
  for (const char* dir : {"/examples", "/tests/data", "/tests/numpy/cases",
                          "/tests/golden"}) {
    std::string path = std::string(XTUNE_SOURCE_DIR) + dir;
    if (!std::filesystem::exists(path)) continue;
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      std::string p = e.path().string();
      if (e.path().extension() == ".hlo" &&
          p.find(".fused.hlo") == std::string::npos) {
        files.push_back(p);
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(
    Modules, FusionEquivalenceTest, ::testing::ValuesIn(AllModules()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = std::filesystem::path(info.param).parent_path()
                             .filename().string() + "_" +
                         std::filesystem::path(info.param).stem().string();
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace xtune
