// Every default candidate of every loop and reduction fusion of examples/,
// tests/data/ and tests/golden/ runs in the emulator and matches the
// evaluator, with and without --xla_allow_excess_precision.
#include "codegen/cuda/emulator/emulator_backend.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "codegen/cuda/cuda_candidates.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "eval/evaluator.h"
#include "fusion/fusion_pass.h"
#include "fusion/in_place.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "codegen/cuda/test_source_dir.h"
#include "ir/parser.h"
#include "runtime/compare.h"
#include "runtime/random_inputs.h"
#include "util/status_macros.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

EmulatorBackend& Backend(bool excess) {
  static EmulatorBackend* backends[2] = {nullptr, nullptr};
  EmulatorBackend*& b = backends[excess ? 1 : 0];
  if (b == nullptr) {
    BackendOptions options;
    options.excess_precision = excess;
    auto made = EmulatorBackend::Create(options);
    EXPECT_THAT(made, IsOk());
    b = made->release();
  }
  return *b;
}

class DefaultCandidateTest
    : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(DefaultCandidateTest, MatchesTheEvaluator) {
  const auto& [path, excess] = GetParam();
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(path);
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  EmulatorBackend& backend = Backend(excess);
  int generated = 0;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    const Computation& comp = *inst->called_computations()[0];
    KernelConfig def = backend.DefaultConfig(*inst);
    std::vector<KernelConfig> all = backend.Candidates(*inst, false);
    // cuDNN's heuristic's choice (algorithm -1, a conv's default) is one of
    // the algorithms the candidates name.
    const bool heuristic = def.kind() == "cuda_cudnn" && def.Get("algorithm", 0) == -1;
    if (heuristic) {
      EXPECT_EQ(all[0].kind(), "cuda_cudnn") << inst->name();
    } else {
      EXPECT_NE(std::find(all.begin(), all.end(), def), all.end()) << def.ToString();
    }
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = backend.Compile(*inst, def);
    if (!kernel.ok() &&
        kernel.status().code() == absl::StatusCode::kUnimplemented) {
      // Tuple results, non-simple reductions and dots the cuBLASLt
      // candidate cannot express run on the evaluator; no other fusion of
      // these files may be among them.
      std::string kind = CudaKernelKind(comp);
      bool expected = inst->shape().IsTuple() ||
                      absl::StrContains(kernel.status().message(), "reduce '");
      EXPECT_TRUE(expected) << inst->name() << ": " << kernel.status();
      continue;
    }
    ASSERT_THAT(kernel, IsOk()) << inst->name() << " " << def.ToString();
    ++generated;
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
    }
    EvaluatorOptions eo;
    eo.excess_precision = excess;
    eo.tf32_dots = backend.Tf32Dots();
    absl::StatusOr<Literal> expected = EvaluateComputation(comp, args, eo);
    ASSERT_THAT(expected, IsOk());
    Literal out(inst->shape());
    ASSERT_THAT((*kernel)->Run(HostBuffers(args), HostBuffer(out)), IsOk())
        << inst->name() << " " << def.ToString();
    // As --verify: f32 within kTf32Tolerance where dots may run in TF32
    // (the reference rounds their operands as the TF32 path does; an FP8
    // dot on FP8 tensor cores multiplies exactly instead).
    EXPECT_THAT(CompareLiterals(*expected, out, inst->name() + " " + def.ToString(),
                                VerifyTolerance(**fused, backend.Tf32Dots())),
                IsOk());
  }
  // Every file has at least one fusion the emulator runs, except those made
  // of gemms only.
  if (generated == 0) {
    for (const auto& inst : (*fused)->entry()->instructions()) {
      if (inst->opcode() == Opcode::kFusion) {
        EXPECT_EQ(CudaKernelKind(*inst->called_computations()[0]), "cuda_cublaslt")
            << inst->name();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modules, DefaultCandidateTest,
    ::testing::Combine(::testing::ValuesIn(TestModuleFiles()), ::testing::Bool()),
    [](const auto& info) {
      std::string name =
          std::filesystem::path(std::get<0>(info.param)).stem().string();
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name + (std::get<1>(info.param) ? "_excess" : "_exact");
    });

// Every candidate (not only the default) of the layer norm and of the
// column sums, so every generator path (vector widths, unrolls, several
// warps or rows a block) runs in the emulator.
TEST(EmulatorBackendTest, EveryCandidateOfTheLayerNormAndColumnSums) {
  EmulatorBackend& backend = Backend(true);
  for (const char* rel : {"/examples/layer_norm.hlo", "/tests/golden/column_reduce.hlo"}) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModuleFile(TestSourceDir() + rel);
    ASSERT_THAT(m, IsOk());
    absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
    ASSERT_THAT(fused, IsOk());
    for (const auto& inst : (*fused)->entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      std::vector<Literal> args;
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
      }
      absl::StatusOr<Literal> expected =
          EvaluateComputation(*inst->called_computations()[0], args);
      ASSERT_THAT(expected, IsOk());
      for (const KernelConfig& c : backend.Candidates(*inst, false)) {
        absl::StatusOr<std::unique_ptr<Kernel>> kernel = backend.Compile(*inst, c);
        ASSERT_THAT(kernel, IsOk()) << inst->name() << " " << c.ToString();
        Literal out(inst->shape());
        ASSERT_THAT((*kernel)->Run(HostBuffers(args), HostBuffer(out)), IsOk())
            << inst->name() << " " << c.ToString();
        EXPECT_THAT(CompareLiterals(*expected, out, inst->name() + " " + c.ToString()),
                    IsOk());
      }
    }
  }
}

// An in-place dynamic-update-slice fusion (fusion/in_place.h), every
// candidate: into a fresh output (the kernel copies the operand first) and
// into the operand's own buffer (only the window is written), with start
// indices that need clamping.
TEST(EmulatorBackendTest, InPlaceDynamicUpdateSliceBothWays) {
  EmulatorBackend& backend = Backend(true);
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[5,7,33]{1,2,0} parameter(0)
  u = bf16[2,7,9] parameter(1)
  i = s32[] parameter(2)
  j = s32[] constant(-3)
  k = s32[] constant(30)
  ue = bf16[2,7,9] exponential(u)
  uf = f32[2,7,9] convert(ue)
  ROOT d = f32[5,7,33]{1,2,0} dynamic-update-slice(x, uf, i, j, k)
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction* inst = (*fused)->entry()->root();
  ASSERT_EQ(inst->opcode(), Opcode::kFusion);
  const std::optional<int64_t> x = InPlaceOperand(*inst);
  ASSERT_TRUE(x.has_value());
  for (int32_t start : {-4, 1, 4, 100}) {
    std::vector<Literal> args;
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      args.push_back(RandomLiteral(inst->operand(i)->shape(), 100 + i));
    }
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      if (inst->operand(i)->shape().dtype() == DType::kS32) {
        std::memcpy(args[i].bytes().data(), &start, 4);
      }
    }
    absl::StatusOr<Literal> expected =
        EvaluateComputation(*inst->called_computations()[0], args,
                            EvaluatorOptions{.max_value_bytes = int64_t{8} << 30, .excess_precision = true});
    ASSERT_THAT(expected, IsOk());
    for (const KernelConfig& c : backend.Candidates(*inst, false)) {
      const std::string what = absl::StrCat("start ", start, " ", c.ToString());
      absl::StatusOr<std::unique_ptr<Kernel>> kernel = backend.Compile(*inst, c);
      ASSERT_THAT(kernel, IsOk()) << what;
      Literal out(inst->shape());
      ASSERT_THAT((*kernel)->Run(HostBuffers(args), HostBuffer(out)), IsOk())
          << what;
      EXPECT_THAT(CompareLiterals(*expected, out, what), IsOk());
      std::vector<Literal> in_place = args;
      ASSERT_THAT((*kernel)->Run(HostBuffers(in_place), HostBuffer(in_place[*x])),
                  IsOk())
          << what;
      EXPECT_THAT(CompareLiterals(*expected, in_place[*x], what + " in place"),
                  IsOk());
    }
  }
}

// Configs from a cache made elsewhere need not be in this search space,
// only legal for the generator.
TEST(EmulatorBackendTest, CheckConfigTakesAnyLegalConfigOfTheKind) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(TestSourceDir() + "/examples/layer_norm.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction* f = nullptr;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) f = inst.get();
  }
  ASSERT_NE(f, nullptr);
  EmulatorBackend& b = Backend(true);
  KernelConfig outside("cuda_row_reduce", {{"block_size", 256},
                                           {"rows_per_block", 1},
                                           {"vector_width", 2},
                                           {"unroll", 2}});
  std::vector<KernelConfig> all = b.Candidates(*f, true);
  EXPECT_EQ(std::find(all.begin(), all.end(), outside), all.end());
  EXPECT_THAT(b.CheckConfig(*f, outside), IsOk());
  KernelConfig bad = outside;
  bad.Set("block_size", 48);
  EXPECT_THAT(b.CheckConfig(*f, bad),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("multiple of 32")));
  EXPECT_THAT(b.CheckConfig(*f, KernelConfig("cuda_loop", {{"block_size", 256},
                                                          {"vector_width", 1},
                                                          {"unroll", 1}})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("takes cuda_row_reduce configs")));
  KernelConfig extra = outside;
  extra.Set("stages", 2);
  EXPECT_THAT(b.CheckConfig(*f, extra),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("takes the parameters")));
}

// cuBLASLt algorithms share the library candidate's pack and epilogue
// kernels (one compile); a different Triton tile is different code.
TEST(EmulatorBackendTest, CodeKeyGroupsConfigsThatShareKernels) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(TestSourceDir() + "/examples/mlp.hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  EmulatorBackend& b = Backend(true);
  const Instruction* gemm = nullptr;
  for (const auto& inst : (*fused)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion &&
        b.DefaultConfig(*inst).kind() == "triton_gemm") {
      gemm = inst.get();
      break;
    }
  }
  ASSERT_NE(gemm, nullptr);
  KernelConfig lib0("cuda_cublaslt", {{"algorithm", 0}});
  KernelConfig lib3("cuda_cublaslt", {{"algorithm", 3}});
  EXPECT_EQ(b.CodeKey(*gemm, lib0), b.CodeKey(*gemm, lib3));
  KernelConfig tile = b.DefaultConfig(*gemm);
  KernelConfig other = tile;
  other.Set("block_k", tile.Get("block_k") == 32 ? 64 : 32);
  EXPECT_NE(b.CodeKey(*gemm, tile), b.CodeKey(*gemm, other));
  EXPECT_NE(b.CodeKey(*gemm, tile), b.CodeKey(*gemm, lib0));
  // What cannot be generated keys on its text.
  KernelConfig bad = tile;
  bad.Set("block_m", 3);
  EXPECT_EQ(b.CodeKey(*gemm, bad), bad.ToString());
}

TEST(EmulatorBackendTest, DeviceIsTheNamedTarget) {
  EXPECT_EQ(Backend(true).DeviceDescription(),
            "CUDA: 9.0, Cores: 132, GPU clock: 1.98 GHz, Memory bandwidth: 4800 "
            "GB/s, L2 cache: 50 MB");
  BackendOptions a100;
  a100.gpu_target = "a100";
  auto b = EmulatorBackend::Create(a100);
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ((*b)->DeviceDescription(),
            "CUDA: 8.0, Cores: 108, GPU clock: 1.41 GHz, Memory bandwidth: 1555 "
            "GB/s, L2 cache: 40 MB");
  BackendOptions bad;
  bad.gpu_target = "v100";
  EXPECT_THAT(EmulatorBackend::Create(bad),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("v100")));
  BackendOptions both;
  both.gpu_target = "h100";
  both.gpu_target_config_file = "/nonexistent.txtpb";
  EXPECT_THAT(EmulatorBackend::Create(both),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("give one")));
  EXPECT_TRUE(Backend(true).ChecksOnly());
}

// The generated gemm on shapes that cover what its tiling must get right:
// masked edges (M, N, K not multiples of the tiles), batches, transposed
// operand layouts, split-k (with its second kernel), the register prefetch
// (num_stages 2 without cp.async), cp.async pipelines of 1 to 4 buffers
// with K-major and M/N-major tiles (ldmatrix and ldmatrix.trans), two
// contracting dimensions, one to eight warps, and the dtype pairs f32 x f32
// (TF32, and exact f32 at highest precision), bf16 x bf16, f16 x f16, and
// f16 x s8 (converted in the loader) with a bias + relu epilogue; and the
// cuBLASLt candidate's kernels on the same fusions. Each config's result
// matches the evaluator's (TF32 where the backend uses it).
TEST(EmulatorBackendTest, GeneratedGemmCoversEdgesBatchesSplitKAndDtypes) {
  EmulatorBackend& backend = Backend(true);
  const char* modules[] = {
      R"hlo(HloModule edges
ENTRY e {
  a = f32[37,45] parameter(0)
  b = f32[45,29]{0,1} parameter(1)
  ROOT d = f32[37,29] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
      R"hlo(HloModule batched_bf16
ENTRY e {
  a = bf16[3,20,70] parameter(0)
  b = bf16[3,70,18] parameter(1)
  ROOT d = bf16[3,20,18] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2},
    rhs_batch_dims={0}, rhs_contracting_dims={1}
})hlo",
      R"hlo(HloModule f16_s8_bias_relu
ENTRY e {
  a = f16[24,40] parameter(0)
  q = s8[40,33] parameter(1)
  c = f16[40,33] convert(q)
  d = f16[24,33] dot(a, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bias = f16[33] parameter(2)
  bb = f16[24,33] broadcast(bias), dimensions={1}
  s = f16[24,33] add(d, bb)
  z = f16[] constant(0)
  zb = f16[24,33] broadcast(z), dimensions={}
  ROOT r = f16[24,33] maximum(s, zb)
})hlo",
      // cp.async: A K-major, B N-major (ldmatrix.trans), masked M rows.
      R"hlo(HloModule async_bf16
ENTRY e {
  a = bf16[40,64] parameter(0)
  b = bf16[64,24] parameter(1)
  ROOT d = bf16[40,24] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
      // cp.async: A M-major (a transposed layout), B K-major.
      R"hlo(HloModule async_f16_layouts
ENTRY e {
  a = f16[48,32]{0,1} parameter(0)
  b = f16[24,32] parameter(1)
  ROOT d = f32[48,24] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})hlo",
      // TF32 with cp.async: both tiles M/N-major (32-bit fragment loads),
      // each thread rounding its landed chunks.
      R"hlo(HloModule async_tf32
ENTRY e {
  a = f32[40,64]{0,1} parameter(0)
  b = f32[64,24] parameter(1)
  ROOT d = f32[40,24] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
      // Two contracting dimensions, cp.async on the flattened K.
      R"hlo(HloModule two_contracting_bf16
ENTRY e {
  a = bf16[20,4,16] parameter(0)
  b = bf16[4,16,24] parameter(1)
  ROOT d = f32[20,24] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
})hlo",
      // Two contracting dimensions at highest precision: exact f32 on CUDA
      // cores, not TF32.
      R"hlo(HloModule two_contracting_f32_highest
ENTRY e {
  a = f32[2,6,5,3] parameter(0)
  b = f32[2,3,5,10] parameter(1)
  ROOT d = f32[2,6,10] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={3,2},
    rhs_batch_dims={0}, rhs_contracting_dims={1,2}, operand_precision={highest,highest}
})hlo",
  };
  auto triton = [](int64_t bm, int64_t bn, int64_t bk, int64_t sk, int64_t st,
                   int64_t nw) {
    return KernelConfig("triton_gemm", {{"block_m", bm}, {"block_n", bn},
                                        {"block_k", bk}, {"split_k", sk},
                                        {"num_stages", st}, {"num_warps", nw},
                                        {"num_ctas", 1}});
  };
  const KernelConfig configs[] = {
      triton(16, 16, 16, 1, 1, 2), triton(32, 32, 16, 1, 2, 4),
      triton(16, 32, 32, 4, 1, 2), triton(64, 32, 16, 2, 2, 8),
      triton(32, 16, 64, 1, 1, 1),
      // cp.async pipelines of 3 and 4 buffers.
      triton(32, 32, 16, 1, 3, 4), triton(16, 32, 16, 2, 4, 2),
      // The library candidate: its pack and epilogue kernels around the
      // emulator's host gemm.
      KernelConfig("cuda_cublaslt", {{"algorithm", 0}})};
  int ran = 0;
  for (const char* text : modules) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
    ASSERT_THAT(m, IsOk());
    absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
    ASSERT_THAT(fused, IsOk());
    for (const auto& inst : (*fused)->entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      ASSERT_EQ(backend.DefaultConfig(*inst).kind(), "triton_gemm") << inst->name();
      std::vector<Literal> args;
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        args.push_back(RandomLiteral(inst->operand(i)->shape(), 300 + i));
      }
      EvaluatorOptions eo;
      eo.excess_precision = true;
      eo.tf32_dots = backend.Tf32Dots();
      absl::StatusOr<Literal> expected =
          EvaluateComputation(*inst->called_computations()[0], args, eo);
      ASSERT_THAT(expected, IsOk());
      // All at once, as the autotuner compiles them: one bundle of every
      // config's kernels (split-k epilogues, the library's pack kernels).
      std::vector<Backend::KernelRequest> requests;
      for (const KernelConfig& c : configs) requests.push_back({inst.get(), c});
      std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels =
          backend.CompileKernels(requests);
      ASSERT_EQ(kernels.size(), std::size(configs));
      for (size_t i = 0; i < std::size(configs); ++i) {
        const KernelConfig& c = configs[i];
        std::string what = (*m)->name() + " " + c.ToString();
        absl::StatusOr<std::unique_ptr<Kernel>>& k = kernels[i];
        ASSERT_THAT(k, IsOk()) << what;
        Literal out(inst->shape());
        ASSERT_THAT((*k)->Run(HostBuffers(args), HostBuffer(out)), IsOk()) << what;
        EXPECT_THAT(CompareLiterals(*expected, out, what), IsOk());
        ++ran;
      }
    }
  }
  EXPECT_EQ(ran, 8 * 8);
}

// FP8 on tensor cores (the emulator's H200, sm_90): e4m3 x e4m3 straight
// from parameters (cp.async), XLA's scaled pattern with e4m3 x e5m2 (the
// converts and f32 scales of `before/fp8_scaled_f32`, scales applied to
// the accumulators, B N-major through registers), and odd sizes (register
// tiles, masked K). bk = 16 takes the CUDA-core path, and the pattern with
// bf16 scales (`before/fp8_scaled_bf16`) the bf16 one. Each matches the
// evaluator; on the A100 (sm_80) the same fusions run by conversion.
TEST(EmulatorBackendTest, Fp8GemmsOnTensorCoresMatchTheEvaluator) {
  const char* modules[] = {
      R"hlo(HloModule f8_params
ENTRY e {
  a = f8e4m3fn[40,64] parameter(0)
  b = f8e4m3fn[24,64] parameter(1)
  ROOT d = f32[40,24] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})hlo",
      R"hlo(HloModule f8_scaled
ENTRY e {
  a = f8e4m3fn[32,96] parameter(0)
  b = f8e5m2[96,40] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  ca = f32[32,96] convert(a)
  cb = f32[96,40] convert(b)
  ba = f32[32,96] broadcast(sa), dimensions={}
  bb = f32[96,40] broadcast(sb), dimensions={}
  ma = f32[32,96] multiply(ca, ba)
  mb = f32[96,40] multiply(bb, cb)
  ROOT d = f32[32,40] dot(ma, mb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
      R"hlo(HloModule f8_scaled_in_bf16
ENTRY e {
  a = f8e4m3fn[32,96] parameter(0)
  b = f8e5m2[96,40] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  ca = bf16[32,96] convert(a)
  cb = bf16[96,40] convert(b)
  sab = bf16[] convert(sa)
  sbb = bf16[] convert(sb)
  ba = bf16[32,96] broadcast(sab), dimensions={}
  bb = bf16[96,40] broadcast(sbb), dimensions={}
  ma = bf16[32,96] multiply(ca, ba)
  mb = bf16[96,40] multiply(cb, bb)
  ROOT d = bf16[32,40] dot(ma, mb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})hlo",
      R"hlo(HloModule f8_odd
ENTRY e {
  a = f8e5m2[19,40] parameter(0)
  b = f8e4m3fn[13,40] parameter(1)
  ca = f32[19,40] convert(a)
  cb = f32[13,40] convert(b)
  ROOT d = f32[19,13] dot(ca, cb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})hlo",
  };
  auto triton = [](int64_t bm, int64_t bn, int64_t bk, int64_t sk, int64_t st,
                   int64_t nw) {
    return KernelConfig("triton_gemm", {{"block_m", bm}, {"block_n", bn},
                                        {"block_k", bk}, {"split_k", sk},
                                        {"num_stages", st}, {"num_warps", nw},
                                        {"num_ctas", 1}});
  };
  const KernelConfig configs[] = {triton(16, 16, 32, 1, 1, 1), triton(32, 32, 32, 1, 3, 4),
                                  triton(16, 32, 64, 2, 2, 2), triton(32, 16, 16, 1, 2, 2)};
  int ran = 0, native = 0;
  for (const char* target : {"h200", "a100"}) {
    BackendOptions options;
    options.gpu_target = target;
    absl::StatusOr<std::unique_ptr<EmulatorBackend>> backend = EmulatorBackend::Create(options);
    ASSERT_THAT(backend, IsOk());
    for (const char* text : modules) {
      absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
      ASSERT_THAT(m, IsOk());
      absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
      ASSERT_THAT(fused, IsOk());
      const Instruction* inst = nullptr;
      for (const auto& i : (*fused)->entry()->instructions()) {
        if (i->opcode() == Opcode::kFusion) inst = i.get();
      }
      ASSERT_NE(inst, nullptr);
      std::vector<Literal> args;
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        args.push_back(RandomLiteral(inst->operand(i)->shape(), 700 + i));
      }
      EvaluatorOptions eo;
      eo.excess_precision = true;
      absl::StatusOr<Literal> expected =
          EvaluateComputation(*inst->called_computations()[0], args, eo);
      ASSERT_THAT(expected, IsOk());
      for (const KernelConfig& c : configs) {
        std::string what = absl::StrCat(target, " ", (*m)->name(), " ", c.ToString());
        absl::StatusOr<TritonGemm> src = (*backend)->TritonSource(*inst, c);
        ASSERT_THAT(src, IsOk()) << what;
        const bool fp8 = absl::StrContains(src->main.body, "XT_MMA_M16N8K32_");
        EXPECT_EQ(fp8, std::string(target) == "h200" && c.Get("block_k", 0) >= 32 &&
                           (*m)->name() != "f8_scaled_in_bf16")
            << what;
        native += fp8;
        absl::StatusOr<std::unique_ptr<Kernel>> k = (*backend)->Compile(*inst, c);
        ASSERT_THAT(k, IsOk()) << what;
        Literal out(inst->shape());
        ASSERT_THAT((*k)->Run(HostBuffers(args), HostBuffer(out)), IsOk()) << what;
        EXPECT_THAT(CompareLiterals(*expected, out, what), IsOk());
        ++ran;
      }
    }
  }
  EXPECT_EQ(ran, 2 * 4 * 4);
  EXPECT_EQ(native, 3 * 3);
}

}  // namespace
}  // namespace xtune::cuda
