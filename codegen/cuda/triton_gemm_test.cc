// Which path and which device primitives the generated gemm picks for a
// dot (tensor cores in f16/bf16 or TF32, cp.async or registers, ldmatrix
// with or without .trans, CUDA-core FMAs at highest precision), and that
// each compiles for sm_80 and sm_90a without spills and with the shared
// memory its pipeline needs. The emulator checks their results
// (emulator_backend_test.cc).
#include "codegen/cuda/triton_gemm.h"

#include "absl/strings/match.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/nvrtc_or_skip.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::IsOk;

KernelConfig Triton(int64_t bm, int64_t bn, int64_t bk, int64_t sk, int64_t st,
                    int64_t nw) {
  return KernelConfig("triton_gemm", {{"block_m", bm}, {"block_n", bn},
                                      {"block_k", bk}, {"split_k", sk},
                                      {"num_stages", st}, {"num_warps", nw},
                                      {"num_ctas", 1}});
}

struct Generated {
  std::unique_ptr<Module> fused;
  const Instruction* fusion = nullptr;
  TritonGemm gemm;
};

// The one gemm fusion of `dot_module` and its kernels for `config`.
Generated Generate(const std::string& dot_module, const KernelConfig& config,
                   bool tf32 = true, bool fp8 = false) {
  Generated out;
  auto m = ParseModule(dot_module, "t.hlo");
  EXPECT_THAT(m, IsOk());
  auto f = FuseModule(**m);
  EXPECT_THAT(f, IsOk());
  out.fused = std::move(*f);
  for (const auto& inst : out.fused->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) out.fusion = inst.get();
  }
  EXPECT_NE(out.fusion, nullptr);
  CudaKernelOptions options;
  options.tf32 = tf32;
  options.fp8_mma = fp8;
  absl::StatusOr<TritonGemm> g =
      TritonGemmKernels(*out.fusion->called_computations()[0], config, options);
  EXPECT_THAT(g, IsOk());
  if (g.ok()) out.gemm = std::move(*g);
  return out;
}

std::string Dot(const std::string& a, const std::string& b, const std::string& out,
                const std::string& attrs = "lhs_contracting_dims={1}, "
                                           "rhs_contracting_dims={0}") {
  return "HloModule m\nENTRY e {\n  a = " + a + " parameter(0)\n  b = " + b +
         " parameter(1)\n  ROOT d = " + out + " dot(a, b), " + attrs + "\n}\n";
}

// ptxas's report of the main kernel for both targets: no spills, and the
// shared memory `shared` bytes.
void ExpectCompiles(const Generated& g, const KernelConfig& config, int64_t shared,
                    std::vector<const char*> targets = {"a100", "h200"}) {
  for (const char* target : targets) {
    BackendOptions options;
    options.gpu_target = target;
    absl::StatusOr<std::unique_ptr<CudaBackend>> b = CudaBackend::Create(options);
    ASSERT_THAT(b, IsOk());
    std::string source;
    absl::StatusOr<NvrtcOutput> out =
        (*b)->CompileToCubin("gemm", config, g.gemm.main, &source);
    ASSERT_THAT(out, IsOk()) << target;
    bool found = false;
    for (const KernelResources& r : out->resources) {
      if (r.function != "xt_kernel") continue;
      found = true;
      EXPECT_EQ(r.spill_store_bytes, 0) << target;
      EXPECT_EQ(r.shared_bytes, shared) << target;
    }
    EXPECT_TRUE(found) << out->log;
  }
}

TEST(TritonGemmTest, Bf16ParametersUseACpAsyncPipelineAndLdmatrix) {
  XTUNE_NVRTC_OR_SKIP();
  // A is K-major, B N-major: ldmatrix x4 for A, x2.trans for B.
  KernelConfig c = Triton(64, 64, 32, 1, 3, 4);
  Generated g = Generate(Dot("bf16[128,256]", "bf16[256,96]", "bf16[128,96]"), c);
  const std::string& src = g.gemm.main.body;
  EXPECT_THAT(src, HasSubstr("XT_CP_ASYNC16(xt_as"));
  EXPECT_THAT(src, HasSubstr("XT_CP_ASYNC16(xt_bs"));
  EXPECT_THAT(src, HasSubstr("XT_CP_ASYNC_WAIT(1)"));  // 3 buffers
  EXPECT_THAT(src, HasSubstr("XT_LDMATRIX_X4(xt_fa"));
  EXPECT_THAT(src, HasSubstr("XT_LDMATRIX_X2_T(xt_fb"));
  EXPECT_THAT(src, HasSubstr("XT_MMA_M16N8K16_BF16"));
  EXPECT_THAT(src, Not(HasSubstr("xt_load_a")));
  // Three buffers of (64 + 64) x 32 bf16.
  ExpectCompiles(g, c, 3 * (64 + 64) * 32 * 2);
}

TEST(TritonGemmTest, Fp8OperandsUseFp8TensorCoresFromSm89) {
  XTUNE_NVRTC_OR_SKIP();
  // e4m3 x e5m2 parameters, both K-major: byte tiles by cp.async, ldmatrix
  // without .trans, mma m16n8k32; the scales multiply the accumulators.
  const std::string module = R"(HloModule m
ENTRY e {
  a = f8e4m3fn[128,256] parameter(0)
  b = f8e5m2[96,256] parameter(1)
  s = f32[] parameter(2)
  ca = f32[128,256] convert(a)
  sb = f32[128,256] broadcast(s), dimensions={}
  ma = f32[128,256] multiply(ca, sb)
  cb = f32[96,256] convert(b)
  ROOT d = f32[128,96] dot(ma, cb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})";
  KernelConfig c = Triton(64, 64, 64, 1, 3, 4);
  Generated g = Generate(module, c, true, true);
  const std::string& src = g.gemm.main.body;
  EXPECT_THAT(src, HasSubstr("XT_MMA_M16N8K32_E4M3_E5M2"));
  EXPECT_THAT(src, HasSubstr("XT_CP_ASYNC16(xt_as"));
  EXPECT_THAT(src, HasSubstr("XT_CP_ASYNC16(xt_bs"));
  EXPECT_THAT(src, HasSubstr("XT_LDMATRIX_X4(xt_fa"));
  EXPECT_THAT(src, HasSubstr("XT_LDMATRIX_X2(xt_fb"));
  EXPECT_THAT(src, HasSubstr("xt_acc[xt_x] * (xt_scale0)"));
  EXPECT_THAT(src, Not(HasSubstr("xt_load_a")));
  // Three buffers of (64 + 64) x 64 bytes; NVRTC takes it for sm_90a only.
  ExpectCompiles(g, c, 3 * (64 + 64) * 64, {"h200"});
  // Without FP8 tensor cores (before sm_89): converted to f32 (TF32 path).
  Generated old = Generate(module, c, true, false);
  EXPECT_THAT(old.gemm.main.body, Not(HasSubstr("XT_MMA_M16N8K32")));
  EXPECT_THAT(old.gemm.main.body, HasSubstr("XT_MMA_M16N8K8_TF32"));
  // That path for sm_80 (and 90a), at a tile that does not spill there.
  KernelConfig small = Triton(32, 32, 32, 1, 2, 4);
  ExpectCompiles(Generate(module, small, true, false), small, (32 + 32) * 32 * 4,
                 {"a100", "h200"});
  // B N-major: its bytes go through registers (ldmatrix has no 8-bit .trans).
  Generated nmajor = Generate(
      Dot("f8e4m3fn[64,128]", "f8e4m3fn[128,64]", "f32[64,64]"), Triton(32, 32, 32, 1, 2, 4),
      true, true);
  EXPECT_THAT(nmajor.gemm.main.body, HasSubstr("XT_MMA_M16N8K32_E4M3_E4M3"));
  EXPECT_THAT(nmajor.gemm.main.body, HasSubstr("XT_CP_ASYNC16(xt_as"));
  EXPECT_THAT(nmajor.gemm.main.body, HasSubstr("xt_load_b"));
  ExpectCompiles(nmajor, Triton(32, 32, 32, 1, 2, 4), 2 * 32 * 32 + 32 * 32, {"h200"});
}

TEST(TritonGemmTest, PipelineDepthIsCappedByStaticSharedMemory) {
  // 4 stages of (128 + 128) x 64 bf16 = 128 KiB: one buffer of 32 KiB fits
  // once in 48 KiB.
  KernelConfig c = Triton(128, 128, 64, 1, 4, 8);
  Generated g = Generate(Dot("bf16[256,256]", "bf16[256,256]", "f32[256,256]"), c);
  EXPECT_THAT(g.gemm.main.body, HasSubstr("XT_CP_ASYNC_WAIT(0)"));
  EXPECT_THAT(g.gemm.main.body, Not(HasSubstr("pipeline of")));
}

TEST(TritonGemmTest, OddSizesGoThroughRegisters) {
  XTUNE_NVRTC_OR_SKIP();
  // K and N not multiples of 8: K-major register tiles stored swizzled,
  // ldmatrix without .trans.
  KernelConfig c = Triton(32, 32, 32, 1, 2, 4);
  Generated g = Generate(Dot("bf16[64,60]", "bf16[60,44]", "bf16[64,44]"), c);
  const std::string& src = g.gemm.main.body;
  EXPECT_THAT(src, HasSubstr("xt_load_a"));
  EXPECT_THAT(src, HasSubstr("xt_load_b"));
  EXPECT_THAT(src, HasSubstr("XT_S(xt_as32)[(xt_swz_a(xt_rr, xt_x >> 2) >> 1)"));
  EXPECT_THAT(src, HasSubstr("XT_LDMATRIX_X2(xt_fb"));
  EXPECT_THAT(src, Not(HasSubstr("XT_CP_ASYNC16")));
  ExpectCompiles(g, c, (32 + 32) * 32 * 2);
}

TEST(TritonGemmTest, AConvertedOperandLoadsThroughRegistersBesideACpAsyncOne) {
  XTUNE_NVRTC_OR_SKIP();
  // f16 x convert(s8): A by cp.async into 2 buffers, B through registers
  // (converted in the loader) into one.
  KernelConfig c = Triton(32, 32, 32, 1, 2, 4);
  Generated g = Generate(R"hlo(HloModule m
ENTRY e {
  a = f16[64,64] parameter(0)
  q = s8[64,48] parameter(1)
  b = f16[64,48] convert(q)
  ROOT d = f16[64,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo", c);
  const std::string& src = g.gemm.main.body;
  EXPECT_THAT(src, HasSubstr("XT_CP_ASYNC16(xt_as"));
  EXPECT_THAT(src, Not(HasSubstr("XT_CP_ASYNC16(xt_bs")));
  EXPECT_THAT(src, Not(HasSubstr("xt_load_a")));
  EXPECT_THAT(src, HasSubstr("xt_load_b"));
  EXPECT_THAT(src, HasSubstr("XT_S(xt_bs32)[(xt_swz_b(xt_rr, xt_x >> 2) >> 1)"));
  ExpectCompiles(g, c, 2 * 32 * 32 * 2 + 32 * 32 * 2);
}

TEST(TritonGemmTest, F32DotsUseTf32UnlessTheyAskForF32) {
  XTUNE_NVRTC_OR_SKIP();
  KernelConfig c = Triton(64, 64, 32, 1, 1, 4);
  Generated tf32 = Generate(Dot("f32[128,128]", "f32[128,128]", "f32[128,128]"), c);
  EXPECT_THAT(tf32.gemm.main.body, HasSubstr("XT_MMA_M16N8K8_TF32"));
  EXPECT_THAT(tf32.gemm.main.body, HasSubstr("xt_round_tf32"));
  ExpectCompiles(tf32, c, (64 + 64) * 32 * 4);
  for (const std::string& attrs :
       {std::string(", operand_precision={highest,highest}"),
        std::string(", algorithm=dot_f32_f32_f32")}) {
    Generated exact = Generate(
        Dot("f32[128,128]", "f32[128,128]", "f32[128,128]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}" + attrs),
        c);
    EXPECT_THAT(exact.gemm.main.body, Not(HasSubstr("XT_MMA"))) << attrs;
  }
  // Before Ampere (CudaKernelOptions::tf32 off): CUDA cores.
  Generated old = Generate(Dot("f32[128,128]", "f32[128,128]", "f32[128,128]"), c,
                           /*tf32=*/false);
  EXPECT_THAT(old.gemm.main.body, Not(HasSubstr("XT_MMA")));
}

}  // namespace
}  // namespace xtune::cuda
