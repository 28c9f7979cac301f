#include "ir/library_call.h"

#include <fstream>
#include <regex>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/dot_precision.h"
#include "ir/parser.h"
#include "util/json.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

constexpr char kDims[] =
    R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
    R"("rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],)"
    R"("rhs_batch_dimensions":[]})";

// A module whose root is `call` on x f32[4,8], y f32[8,6], c f32[4,6],
// bias f32[6].
absl::StatusOr<std::unique_ptr<Module>> WithCall(const std::string& call) {
  return ParseModule(absl::StrCat(R"hlo(HloModule m
ENTRY e {
  x = f32[4,8] parameter(0)
  y = f32[8,6] parameter(1)
  c = f32[4,6] parameter(2)
  bias = f32[6] parameter(3)
  ROOT r = )hlo", call, "\n}\n"));
}

std::string Lt(const std::string& shape, const std::string& operands,
               const std::string& config) {
  return absl::StrCat(shape, " custom-call(", operands,
                      R"(), custom_call_target="__cublas$lt$matmul", )",
                      "backend_config={\"gemm_backend_config\":{", kDims, ",",
                      config, "}}");
}

TEST(LibraryCallTest, ReadsEveryFieldOfXlasGemmConfig) {
  auto m = WithCall(Lt("(f32[4,6], f32[4,6], s8[1024])", "x, y, c, bias",
                       R"("alpha_real":0.5,"alpha_imag":0,"beta":2,)"
                       R"("epilogue":"BIAS_GELU_AUX","selected_algorithm":"7",)"
                       R"("precision_config":{"operand_precision":["HIGHEST","DEFAULT"]})"));
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<GemmCall> call = ReadGemmCall(*(*m)->entry()->root());
  ASSERT_THAT(call, IsOk());
  EXPECT_EQ(call->target, kCublasLtMatmulTarget);
  EXPECT_EQ(call->dot.lhs_contracting, std::vector<int64_t>{1});
  EXPECT_EQ(call->dot.rhs_contracting, std::vector<int64_t>{0});
  EXPECT_EQ(call->alpha, 0.5);
  EXPECT_EQ(call->beta, 2);
  EXPECT_EQ(call->epilogue, GemmEpilogue::kBiasGeluAux);
  EXPECT_EQ(call->c_operand, 2);
  EXPECT_EQ(call->bias_operand, 3);
  EXPECT_EQ(call->aux_index, 1);
  EXPECT_EQ(call->workspace_index, 2);
  EXPECT_EQ(call->selected_algorithm, 7);
  EXPECT_EQ(call->operand_precision, "{highest,default}");
  EXPECT_EQ(call->algorithm, "");
  EXPECT_EQ(call->result.ToString(false), "f32[4,6]");
}

// A named dot algorithm (precision_config.algorithm) is kept and rules out
// TF32, as on a dot.
TEST(LibraryCallTest, ADotAlgorithmRulesOutTf32) {
  auto named = WithCall(Lt("f32[4,6]", "x, y",
                           R"("precision_config":{"algorithm":"ALG_DOT_F32_F32_F32",)"
                           R"("operand_precision":["DEFAULT","DEFAULT"]})"));
  auto unset = WithCall(Lt("f32[4,6]", "x, y",
                           R"("precision_config":{"algorithm":"ALG_UNSET",)"
                           R"("operand_precision":["DEFAULT","DEFAULT"]})"));
  ASSERT_THAT(named, IsOk());
  ASSERT_THAT(unset, IsOk());
  EXPECT_EQ(ReadGemmCall(*(*named)->entry()->root())->algorithm, "dot_f32_f32_f32");
  EXPECT_FALSE(LibraryCallAllowsTf32(*(*named)->entry()->root()));
  EXPECT_TRUE(LibraryCallAllowsTf32(*(*unset)->entry()->root()));
}

// XLA's __cublas$lt$matmul$f8 in the operand forms its versions write.
absl::StatusOr<GemmCall> F8Call(const std::string& result, const std::string& operands,
                                const std::string& config) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(absl::StrCat(R"hlo(HloModule m
ENTRY e {
  a = f8e4m3fn[4,8] parameter(0)
  b = f8e5m2[6,8] parameter(1)
  s0 = f32[] parameter(2)
  s1 = f32[] parameter(3)
  s2 = f32[] parameter(4)
  s3 = f32[] parameter(5)
  c = bf16[4,6] parameter(6)
  bias = bf16[6] parameter(7)
  x = f32[4,8] parameter(8)
  ROOT r = )hlo", result, " custom-call(", operands,
      R"(), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":)",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)",
      R"("rhs_contracting_dimensions":["1"]})", config, "}}\n}\n"));
  if (!m.ok()) return m.status();
  return ReadGemmCall(*(*m)->entry()->root());
}

TEST(LibraryCallTest, Fp8CallsInEveryOperandForm) {
  // Recent XLA: A, B, a_scale, b_scale.
  absl::StatusOr<GemmCall> call = F8Call("(bf16[4,6], s8[16])", "a, b, s0, s1", "");
  ASSERT_THAT(call, IsOk());
  EXPECT_EQ(call->a_scale_operand, 2);
  EXPECT_EQ(call->b_scale_operand, 3);
  EXPECT_EQ(call->c_scale_operand, -1);
  EXPECT_EQ(call->d_scale_operand, -1);
  EXPECT_EQ(call->amax_index, -1);
  EXPECT_EQ(call->workspace_index, 1);
  // With d_scale, an 8-bit result and amax.
  call = F8Call("(f8e4m3fn[4,6], f32[], s8[16])", "a, b, s0, s1, s2",
                R"(,"damax_output":true)");
  ASSERT_THAT(call, IsOk());
  EXPECT_EQ(call->d_scale_operand, 4);
  EXPECT_TRUE(call->amax);
  EXPECT_EQ(call->amax_index, 1);
  EXPECT_EQ(call->workspace_index, 2);
  // Older XLA: A, B, C, a_scale, b_scale, c_scale, d_scale, then the bias.
  call = F8Call("bf16[4,6]", "a, b, c, s0, s1, s2, s3, bias",
                R"(,"beta":1,"epilogue":"BIAS")");
  ASSERT_THAT(call, IsOk());
  EXPECT_EQ(call->c_operand, 2);
  EXPECT_EQ(call->a_scale_operand, 3);
  EXPECT_EQ(call->c_scale_operand, 5);
  EXPECT_EQ(call->d_scale_operand, 6);
  EXPECT_EQ(call->bias_operand, 7);
  // Refused, saying why.
  EXPECT_THAT(F8Call("bf16[4,6]", "x, b, s0, s1", ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("its A and B must be 8-bit float arrays")));
  EXPECT_THAT(F8Call("bf16[4,6]", "a, b, s0", ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("takes 2 to 4 f32[] scales after A, B, found 1")));
  EXPECT_THAT(F8Call("bf16[4,6]", "a, b, s0, s1", R"(,"beta":1)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("beta != 0 needs a C operand")));
  EXPECT_THAT(F8Call("bf16[4,6]", "a, b, s0, s1", R"(,"epilogue":"GELU_AUX")"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("an FP8 gemm takes no *_AUX epilogue")));
}

TEST(LibraryCallTest, BadCallsAreRefusedWithWhatIsWrong) {
  struct Case {
    std::string call;
    absl::StatusCode code;
    const char* error;
  };
  const Case cases[] = {
      {R"(f32[4,6] custom-call(x, y), custom_call_target="my$kernel")",
       absl::StatusCode::kUnimplemented,
       "the custom_call_target 'my$kernel' is not one xtune runs (it runs "
       "__cublas$gemm, __cublas$lt$matmul, __cublas$lt$matmul$f8 and the __cudnn$conv* "
       "convolutions)"},
      {Lt("f32[4,6]", "x, y", R"("epilogue":"BIAS")"),
       absl::StatusCode::kInvalidArgument,
       "a BIAS gemm with beta 0 takes 3 operands, not 2"},
      {Lt("f32[4,6]", "x, y, c", R"("epilogue":"BIAS")"),
       absl::StatusCode::kInvalidArgument,
       "its bias must be a vector of the result's last dimension, got f32[4,6]"},
      {Lt("f32[4,6]", "x, y", R"("alpha_imag":1)"),
       absl::StatusCode::kUnimplemented, "a complex alpha"},
      {Lt("f32[4,6]", "x, y", R"("epilogue":"SILU")"),
       absl::StatusCode::kUnimplemented, "the epilogue 'SILU' is not one"},
      {Lt("(f32[4,6], s8[16])", "x, y, bias", R"("epilogue":"GELU_AUX")"),
       absl::StatusCode::kInvalidArgument, "takes 2 operands, not 3"},
      {Lt("f32[4,6]", "x, y", R"("epilogue":"GELU_AUX")"),
       absl::StatusCode::kInvalidArgument,
       "an *_AUX epilogue or amax returns a tuple"},
      {Lt("(f32[4,6], f32[], s8[16])", "x, y", R"("damax_output":true)"),
       absl::StatusCode::kInvalidArgument, "only an FP8 gemm returns amax"},
      {Lt("f32[6,4]", "x, y", R"("beta":0)"),
       absl::StatusCode::kInvalidArgument,
       "its result f32[6,4] is not the shape of its dot"},
      {Lt("(f32[4,6], f32[16])", "x, y", R"("beta":0)"),
       absl::StatusCode::kInvalidArgument,
       "its last result must be the s8[n] workspace"},
      {R"(f32[4,6] custom-call(x, y), custom_call_target="__cublas$gemm", )"
       R"(backend_config={"not":"a gemm"})",
       absl::StatusCode::kInvalidArgument,
       "its backend_config holds no gemm_backend_config"},
      {R"(f32[4,6] custom-call(x, y), custom_call_target="__cublas$gemm", )"
       R"(backend_config={"gemm_backend_config":{)" + std::string(kDims) +
           R"(,"epilogue":"RELU"}})",
       absl::StatusCode::kInvalidArgument, "__cublas$gemm takes no epilogue"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.call);
    EXPECT_THAT(WithCall(c.call),
                StatusIs(c.code, AllOf(HasSubstr("custom-call 'r': "),
                                       HasSubstr(c.error))));
  }
  // custom-call needs its target.
  EXPECT_THAT(WithCall("f32[4,6] custom-call(x, y)"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs the attribute 'custom_call_target'")));
}

// XLA's own entry for a __cublas$gemm call (its GPU compiler test's H100
// results): xtune's key for the same custom-call is byte for byte the
// entry's `hlo`.
TEST(LibraryCallTest, KeyIsXlasGemmAlgorithmPickerKey) {
  const std::string dir = std::string(XTUNE_SOURCE_DIR) + "/tests/xla_compat/";
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(dir + "xla_cublas_gemm_entry.hlo");
  ASSERT_THAT(m, IsOk());
  const Instruction* call = (*m)->entry()->FindInstruction("gemm");
  ASSERT_NE(call, nullptr);
  absl::StatusOr<std::string> key = LibraryCallKeyText(*call);
  ASSERT_THAT(key, IsOk());
  std::ifstream in(dir + "xla_gpu_compiler_test_autotune_db.textproto");
  std::stringstream text;
  text << in.rdbuf();
  // The entry's hlo, unescaped as protobuf's text format writes it.
  std::smatch found;
  std::string db = text.str();
  ASSERT_TRUE(std::regex_search(
      db, found, std::regex(R"re(hlo: "(\([^\n]*__cublas\$gemm[^\n]*)"\n)re")));
  std::string xla = found[1];
  size_t at;
  while ((at = xla.find("\\\"")) != std::string::npos) xla.replace(at, 2, "\"");
  EXPECT_EQ(*key, xla);
}

// Older XLA modules (its kernel_reuse.hlo test) write the config as a
// string holding the JSON.
TEST(LibraryCallTest, ConfigAsAStringHoldingJsonIsRead) {
  auto m = WithCall(
      R"(f32[4,6] custom-call(x, y), custom_call_target="__cublas$gemm", )"
      R"(backend_config="{ \"gemm_backend_config\": {\"alpha_real\":3,)"
      R"(\"beta\":0,\"dot_dimension_numbers\":{)"
      R"(\"lhs_contracting_dimensions\":[\"1\"],)"
      R"(\"rhs_contracting_dimensions\":[\"0\"]}}}")");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<GemmCall> call = ReadGemmCall(*(*m)->entry()->root());
  ASSERT_THAT(call, IsOk());
  EXPECT_EQ(call->alpha, 3);
  absl::StatusOr<std::string> key = LibraryCallKeyText(*(*m)->entry()->root());
  ASSERT_THAT(key, IsOk());
  EXPECT_THAT(*key, HasSubstr("backend_config={\"gemm_backend_config\":"
                              "{\"alpha_real\":3,"));
}

TEST(LibraryCallTest, KeyLeavesOutTheChosenAlgorithmAndSortsTheConfig) {
  auto a = WithCall(Lt("f32[4,6]", "x, y", R"("beta":0,"selected_algorithm":"3")"));
  auto b = WithCall(Lt("f32[4,6]", "x, y", R"("beta":0)"));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  absl::StatusOr<std::string> ka = LibraryCallKeyText(*(*a)->entry()->root());
  absl::StatusOr<std::string> kb = LibraryCallKeyText(*(*b)->entry()->root());
  ASSERT_THAT(ka, IsOk());
  EXPECT_EQ(*ka, *kb);
  EXPECT_EQ(*ka,
            "f32[4,6]{1,0} custom-call(f32[4,8]{1,0}, f32[8,6]{1,0}), "
            "custom_call_target=\"__cublas$lt$matmul\", backend_config="
            "{\"gemm_backend_config\":{\"beta\":0,\"dot_dimension_numbers\":{"
            "\"lhs_batch_dimensions\":[],\"lhs_contracting_dimensions\":[\"1\"],"
            "\"rhs_batch_dimensions\":[],\"rhs_contracting_dimensions\":[\"0\"]}}}");
}

// A cuDNN call is keyed as XLA's conv picker sees it: before it writes its
// algorithm and sizes the scratch. The unsorted form keeps the config's
// own order (older XLA's keys).
TEST(LibraryCallTest, ConvCallKeyLeavesOutThePickersAnswer) {
  auto m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[1,4,4,2] parameter(0)
  w = f32[3,3,2,5] parameter(1)
  ROOT c = (f32[1,2,2,5], u8[4096]) custom-call(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convForward", backend_config={"operation_queue_id":"0","cudnn_conv_backend_config":{"conv_result_scale":1,"algorithm":{"algo_id":"3","math_type":"TENSOR_OP_MATH"},"activation_mode":"kNone"}}
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::string> sorted = LibraryCallKeyText(*(*m)->entry()->root());
  absl::StatusOr<std::string> legacy =
      LibraryCallKeyText(*(*m)->entry()->root(), /*sort_config=*/false);
  ASSERT_THAT(sorted, IsOk());
  ASSERT_THAT(legacy, IsOk());
  const std::string head =
      "(f32[1,2,2,5]{3,2,1,0}, u8[0]{0}) custom-call(f32[1,4,4,2]{3,2,1,0}, "
      "f32[3,3,2,5]{3,2,1,0}), window={size=3x3}, dim_labels=b01f_01io->b01f, "
      "custom_call_target=\"__cudnn$convForward\", backend_config=";
  EXPECT_EQ(*sorted, head + "{\"cudnn_conv_backend_config\":{\"activation_mode\":\"kNone\","
                            "\"conv_result_scale\":1},\"operation_queue_id\":\"0\"}");
  EXPECT_EQ(*legacy, head + "{\"operation_queue_id\":\"0\",\"cudnn_conv_backend_config\":"
                            "{\"conv_result_scale\":1,\"activation_mode\":\"kNone\"}}");
}

TEST(LibraryCallTest, LibraryFusionConfigRoundTrips) {
  LibraryFusion call{"__cublas$lt$matmul", "f32[2]{0} custom-call(\"q\")\n", ""};
  Instruction fusion("f", Opcode::kFusion, Shape(DType::kF32, {2}));
  fusion.mutable_attrs()->backend_config = LibraryFusionBackendConfig(call);
  std::optional<LibraryFusion> back = LibraryFusionOf(fusion);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->target, call.target);
  EXPECT_EQ(back->key, call.key);
  fusion.mutable_attrs()->backend_config =
      R"({"fusion_backend_config":{"kind":"__triton_gemm"}})";
  EXPECT_FALSE(LibraryFusionOf(fusion).has_value());
}

}  // namespace
}  // namespace xtune
