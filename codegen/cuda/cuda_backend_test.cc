// Deviceless compiles: every fusion's default kernel of the example and
// test modules NVRTC-compiles for sm_80 (A100) and sm_90a (H200) within the
// device's limits, every candidate of the layer norm too, and the dump has
// the source, PTX, cubin and a manifest line.
#include "codegen/cuda/cuda_backend.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "codegen/cuda/nvrtc_or_skip.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "codegen/cuda/test_source_dir.h"
#include "ir/library_call.h"
#include "ir/parser.h"
#include "util/file.h"
#include "util/status_matchers.h"
#include "util/test_temp_dir.h"

namespace xtune::cuda {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::unique_ptr<CudaBackend> Make(const std::string& target,
                                  const std::string& dump = "") {
  BackendOptions options;
  options.gpu_target = target;
  options.dump_kernels_to = dump;
  absl::StatusOr<std::unique_ptr<CudaBackend>> b = CudaBackend::Create(options);
  if (!b.ok()) {
    ADD_FAILURE() << b.status();
    return nullptr;
  }
  return std::move(*b);
}

std::unique_ptr<Module> Fused(const std::string& rel) {
  auto m = ParseModuleFile(TestSourceDir() + "/" + rel);
  EXPECT_THAT(m, IsOk());
  auto f = FuseModule(**m);
  EXPECT_THAT(f, IsOk());
  return std::move(*f);
}

void ExpectKernelWithinLimits(const CudaBackend& b, const std::string& name,
                              const KernelConfig& config,
                              const CudaKernelSource& kernel,
                              bool may_spill = false) {
  std::string source;
  absl::StatusOr<NvrtcOutput> out = b.CompileToCubin(name, config, kernel, &source);
  ASSERT_THAT(out, IsOk()) << name << " " << config.ToString();
  const std::string& fusion_name = name;
  EXPECT_FALSE(out->cubin.empty());
  EXPECT_THAT(out->ptx, HasSubstr(".target " + b.device().Arch()));
  bool found = false;
  for (const KernelResources& r : out->resources) {
    if (r.function != "xt_kernel") continue;
    found = true;
    EXPECT_GT(r.registers, 0);
    EXPECT_LE(r.registers, 255);
    if (may_spill) {
      // Recorded: when tuning, the backend drops spilling gemm candidates
      // (CompileCandidate).
      std::cout << "ptxas " << b.device().Arch() << " " << fusion_name << " "
                << config.ToString() << ": registers=" << r.registers
                << " shared=" << r.shared_bytes << " spill_store=" << r.spill_store_bytes
                << "\n";
    } else {
      EXPECT_EQ(r.spill_store_bytes, 0) << fusion_name << " " << config.ToString();
    }
    EXPECT_LE(r.shared_bytes, b.device().shared_memory_per_block_optin);
  }
  EXPECT_TRUE(found) << out->log;
}

// Every kernel of (fusion, config): one, or a gemm's pack and epilogue
// kernels. Only fusions the generators cannot express are skipped.
void ExpectWithinLimits(const CudaBackend& b, const Instruction& fusion,
                        const KernelConfig& config) {
  if (config.kind() == "cuda_cublaslt") {
    absl::StatusOr<LibraryGemm> g = b.LibrarySource(fusion, config);
    ASSERT_THAT(g, IsOk()) << fusion.name();
    ExpectKernelWithinLimits(b, fusion.name() + ".pack_a", config, g->pack_a);
    ExpectKernelWithinLimits(b, fusion.name() + ".pack_b", config, g->pack_b);
    if (g->has_epilogue) {
      ExpectKernelWithinLimits(b, fusion.name() + ".epilogue", config, g->epilogue);
    }
    return;
  }
  if (config.kind() == "cuda_cudnn") {
    absl::StatusOr<LibraryConv> c = b.ConvSource(fusion, config);
    ASSERT_THAT(c, IsOk()) << fusion.name();
    ExpectKernelWithinLimits(b, fusion.name() + ".pack_x", config, c->pack_x);
    ExpectKernelWithinLimits(b, fusion.name() + ".pack_w", config, c->pack_w);
    ExpectKernelWithinLimits(b, fusion.name() + ".epilogue", config, c->epilogue);
    return;
  }
  if (config.kind() == "triton_gemm" || config.kind() == kImplicitGemmKind) {
    absl::StatusOr<TritonGemm> g = b.TritonSource(fusion, config);
    ASSERT_THAT(g, IsOk()) << fusion.name() << " " << config.ToString();
    ExpectKernelWithinLimits(b, fusion.name(), config, g->main, /*may_spill=*/true);
    if (g->splits > 1) {
      ExpectKernelWithinLimits(b, fusion.name() + ".epilogue", config, g->epilogue);
    }
    return;
  }
  absl::StatusOr<CudaKernelSource> kernel = b.Source(fusion, config);
  if (!kernel.ok() && kernel.status().code() == absl::StatusCode::kUnimplemented) {
    return;  // tuple results, non-simple reductions: the evaluator
  }
  ASSERT_THAT(kernel, IsOk()) << fusion.name();
  ExpectKernelWithinLimits(b, fusion.name(), config, *kernel);
}

TEST(CudaBackendTest, EveryDefaultKernelCompilesForSm80AndSm90a) {
  XTUNE_NVRTC_OR_SKIP();
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    for (const char* rel : {"examples/attention.hlo", "examples/layer_norm.hlo",
                            "examples/mlp.hlo", "examples/mlp_bf16.hlo",
                            "tests/data/all_ops.hlo",
                            "tests/data/simple_optimization_test.hlo",
                            "tests/data/rng_bit_generator.hlo",
                            "tests/golden/column_reduce.hlo",
                            "tests/numpy/cases/fp8.hlo",
                            "tests/numpy/cases/cublas_calls.hlo",
                            "tests/numpy/cases/float_special.hlo",
                            "tests/xla_compat/cudnn_calls.hlo"}) {
      std::unique_ptr<Module> m = Fused(rel);
      for (const auto& inst : m->entry()->instructions()) {
        if (inst->opcode() != Opcode::kFusion) continue;
        SCOPED_TRACE(absl::StrCat(target, " ", rel, " ", inst->name()));
        ExpectWithinLimits(*b, *inst, b->DefaultConfig(*inst));
      }
    }
  }
}

// A cuDNN call's kernels: the cuDNN candidate's pack and epilogue kernels,
// the implicit gemm (on tensor cores for bf16; not for the depthwise call,
// which is no single gemm) and the generated direct convolution, for sm_80
// and sm_90a.
TEST(CudaBackendTest, CudnnCallKernelsCompileForSm80AndSm90a) {
  XTUNE_NVRTC_OR_SKIP();
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    std::unique_ptr<Module> m = Fused("tests/xla_compat/cudnn_calls.hlo");
    int cudnn = 0, implicit = 0, generated = 0;
    for (const auto& inst : m->entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      std::vector<KernelConfig> configs = b->Candidates(*inst, /*exhaustive=*/false);
      ASSERT_FALSE(configs.empty());
      SCOPED_TRACE(absl::StrCat(target, " ", inst->name()));
      ExpectWithinLimits(*b, *inst, configs[0]);
      ExpectWithinLimits(*b, *inst, configs.back());
      cudnn += configs[0].kind() == "cuda_cudnn";
      generated += configs.back().kind() == "cuda_loop";
      for (const KernelConfig& c : configs) {
        if (c.kind() != kImplicitGemmKind) continue;
        ExpectWithinLimits(*b, *inst, c);
        if (inst->name() == "e") {  // bf16: tensor cores
          absl::StatusOr<TritonGemm> g = b->TritonSource(*inst, c);
          ASSERT_THAT(g, IsOk());
          EXPECT_THAT(g->main.body, HasSubstr("XT_MMA_M16N8K16_BF16"));
        }
        ++implicit;
        break;
      }
    }
    EXPECT_EQ(cudnn, 4);
    EXPECT_EQ(implicit, 3);
    EXPECT_EQ(generated, 4);
  }
}

// A conv fusion's kernels (a plain HLO convolution with its producers and
// epilogue): cuDNN's pack and epilogue kernels for an f32 result, the
// implicit gemm (on tensor cores for f16 and bf16) and the direct
// convolution, for sm_80 and sm_90a.
TEST(CudaBackendTest, ConvFusionKernelsCompileForSm80AndSm90a) {
  XTUNE_NVRTC_OR_SKIP();
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    int convs = 0, cudnn = 0, mma = 0;
    for (const char* rel : {"tests/golden/windowed.hlo",
                            "tests/xla_compat/h200/conv/conv_bias_relu.before.hlo",
                            "tests/xla_compat/h200/conv/conv_nhwc_bf16.before.hlo"}) {
      std::unique_ptr<Module> m = Fused(rel);
      for (const Instruction* inst : FusionsOf(*m)) {
        if (ClassifyFusion(*inst) != FusionKind::kConv) continue;
        SCOPED_TRACE(absl::StrCat(target, " ", rel, " ", inst->name()));
        ++convs;
        std::vector<KernelConfig> configs = b->Candidates(*inst, /*exhaustive=*/false);
        ASSERT_FALSE(configs.empty());
        ExpectWithinLimits(*b, *inst, configs[0]);
        // The first direct convolution (the largest unrolled ones may spill:
        // tuning refuses a candidate that spills).
        auto loop = std::find_if(configs.begin(), configs.end(),
                                 [](const KernelConfig& c) { return c.kind() == "cuda_loop"; });
        ASSERT_NE(loop, configs.end());
        ExpectWithinLimits(*b, *inst, *loop);
        cudnn += configs[0].kind() == "cuda_cudnn";
        auto implicit = std::find_if(configs.begin(), configs.end(), [](const KernelConfig& c) {
          return c.kind() == kImplicitGemmKind;
        });
        ASSERT_NE(implicit, configs.end());
        ExpectWithinLimits(*b, *inst, *implicit);
        absl::StatusOr<TritonGemm> g = b->TritonSource(*inst, *implicit);
        ASSERT_THAT(g, IsOk());
        mma += absl::StrContains(g->main.body, "XT_MMA_M16N8K16");
      }
    }
    EXPECT_EQ(convs, 4);  // windowed 2, conv_bias_relu 1 (f16), conv_nhwc_bf16 1
    EXPECT_EQ(cudnn, 2);  // the f32 results
    EXPECT_EQ(mma, 2);    // the f16 and bf16 ones
  }
}

// Every default kernel of the NumPy-checked cases (every opcode, dtype and
// special value they hold: NaN and infinity in constant arrays, say) compiles
// for sm_90a: the emulator runs the same source through the host compiler,
// which accepts what NVRTC refuses.
TEST(CudaBackendTest, EveryNumpyCaseDefaultKernelCompilesForSm90a) {
  XTUNE_NVRTC_OR_SKIP();
  std::unique_ptr<CudaBackend> b = Make("h200");
  ASSERT_NE(b, nullptr);
  std::vector<std::string> cases;
  for (const auto& e :
       std::filesystem::directory_iterator(TestSourceDir() + "/tests/numpy/cases")) {
    if (e.path().extension() == ".hlo") cases.push_back(e.path().filename().string());
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 17u);
  for (const std::string& name : cases) {
    std::unique_ptr<Module> m = Fused("tests/numpy/cases/" + name);
    for (const auto& inst : m->entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      SCOPED_TRACE(absl::StrCat(name, " ", inst->name()));
      ExpectWithinLimits(*b, *inst, b->DefaultConfig(*inst));
    }
  }
}

// The in-place dynamic-update-slice kernel (fusion/in_place.h), every
// candidate, compiles for both targets within their limits.
TEST(CudaBackendTest, InPlaceDynamicUpdateSliceCompilesForSm80AndSm90a) {
  XTUNE_NVRTC_OR_SKIP();
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(HloModule m
ENTRY e {
  x = f32[5,7,33]{1,2,0} parameter(0)
  u = bf16[2,7,9] parameter(1)
  i = s32[] parameter(2)
  j = s32[] constant(-3)
  ue = bf16[2,7,9] exponential(u)
  uf = f32[2,7,9] convert(ue)
  ROOT d = f32[5,7,33]{1,2,0} dynamic-update-slice(x, uf, i, j, i)
})hlo");
  ASSERT_THAT(m, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> fused = FuseModule(**m);
  ASSERT_THAT(fused, IsOk());
  const Instruction& inst = *(*fused)->entry()->root();
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    for (const KernelConfig& c : b->Candidates(inst, false)) {
      SCOPED_TRACE(absl::StrCat(target, " ", c.ToString()));
      absl::StatusOr<CudaKernelSource> kernel = b->Source(inst, c);
      ASSERT_THAT(kernel, IsOk());
      EXPECT_GE(kernel->in_place_input, 0);
      ExpectKernelWithinLimits(*b, inst.name(), c, *kernel);
    }
  }
}

// Every candidate of the layer norm, the column sums and some gemm fusions
// (XLA's Triton configs for the shape, and the cuBLASLt candidate's
// kernels) compiles for both targets within their limits (gemms: spills
// recorded). With XTUNE_NVRTC_EVERY_GEMM_MODULE=1, also every other module
// with a dot in examples/ and tests/ (minutes with an empty cubin cache).
TEST(CudaBackendTest, EveryCandidateOfTheLayerNormAndColumnSums) {
  XTUNE_NVRTC_OR_SKIP();
  std::vector<std::string> modules = {
      "examples/layer_norm.hlo", "tests/golden/column_reduce.hlo",
      "examples/mlp_bf16.hlo",   "examples/mlp.hlo",
      "tests/data/xla_triton_entry.hlo", "tests/golden/gemm_patterns.hlo"};
  const char* every = getenv("XTUNE_NVRTC_EVERY_GEMM_MODULE");
  if (every != nullptr && std::string(every) == "1") {
    for (const char* rel : {"examples/attention.hlo", "tests/data/all_ops.hlo",
                            "tests/data/single_gemm_fusion.hlo", "tests/xla_style/model.hlo",
                            "tests/numpy/cases/dots.hlo", "tests/numpy/cases/layouts2.hlo",
                            "tests/numpy/cases/half_types.hlo"}) {
      modules.push_back(rel);
    }
  }
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    for (const std::string& rel : modules) {
      std::unique_ptr<Module> m = Fused(rel);
      for (const auto& inst : m->entry()->instructions()) {
        if (inst->opcode() != Opcode::kFusion) continue;
        for (const KernelConfig& c : b->Candidates(*inst, false)) {
          SCOPED_TRACE(absl::StrCat(target, " ", inst->name(), " ", c.ToString()));
          ExpectWithinLimits(*b, *inst, c);
        }
      }
    }
  }
}

TEST(CudaBackendTest, DumpsSourcePtxCubinAndManifest) {
  XTUNE_NVRTC_OR_SKIP();
  std::string dir = xtune::testing::TestTempDir("xtune_dump_test");
  std::unique_ptr<CudaBackend> b = Make("h200", dir);
  ASSERT_NE(b, nullptr);
  std::unique_ptr<Module> m = Fused("examples/layer_norm.hlo");
  const Instruction* fusion = nullptr;
  for (const auto& inst : m->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) fusion = inst.get();
  }
  ASSERT_NE(fusion, nullptr);
  absl::StatusOr<std::unique_ptr<Kernel>> k = b->Compile(*fusion, b->DefaultConfig(*fusion));
  ASSERT_THAT(k, IsOk());
  // Compiled only: running needs a GPU.
  EXPECT_THAT((*k)->Run({}, DeviceBuffer()),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("compiled for a target GPU")));
  std::string base = dir + "/" + fusion->name();
  absl::StatusOr<std::string> cu = ReadFile(base + ".cu");
  ASSERT_THAT(cu, IsOk());
  EXPECT_THAT(*cu, HasSubstr("XT_KERNEL(")); 
  EXPECT_THAT(ReadFile(base + ".ptx"), IsOk());
  absl::StatusOr<std::string> cubin = ReadFile(base + ".cubin");
  ASSERT_THAT(cubin, IsOk());
  EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");
  absl::StatusOr<std::string> manifest = ReadFile(dir + "/manifest.txt");
  ASSERT_THAT(manifest, IsOk());
  EXPECT_THAT(*manifest, HasSubstr("fusion=" + fusion->name() + " arch=sm_90a config=cuda_row_reduce:"));
  EXPECT_THAT(*manifest, HasSubstr("registers="));
  EXPECT_THAT(*manifest, HasSubstr("spill_store_bytes=0"));
  // Compiling again replaces the fusion's line, not adds one.
  ASSERT_THAT(b->Compile(*fusion, b->DefaultConfig(*fusion)), IsOk());
  manifest = ReadFile(dir + "/manifest.txt");
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(*manifest, '\n', absl::SkipEmpty())).size(), 1u);
}

// A gemm fusion's default is the generated Triton-style gemm; the cuBLASLt
// candidate is among its candidates. Deviceless, both compile and dump their
// cubins (the library candidate's pack and epilogue kernels); the configs
// are XLA's TritonGemmKey and GemmKey.
TEST(CudaBackendTest, GemmsCompileTheirPackAndEpilogueKernelsAndNoDriverIsUnavailable) {
  XTUNE_NVRTC_OR_SKIP();
  std::string dir = ::testing::TempDir() + "/cuda_gemm_dump";
  std::filesystem::remove_all(dir);
  std::unique_ptr<CudaBackend> b = Make("h100", dir);
  ASSERT_NE(b, nullptr);
  std::unique_ptr<Module> m = Fused("examples/mlp.hlo");
  int gemms = 0;
  for (const auto& inst : m->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    KernelConfig def = b->DefaultConfig(*inst);
    if (def.kind() != "triton_gemm") continue;
    ++gemms;
    EXPECT_FALSE(b->IsLibraryCall(def));
    std::vector<KernelConfig> all = b->Candidates(*inst, false);
    ASSERT_GE(all.size(), 2u);
    EXPECT_EQ(all.front(), def);
    KernelConfig lib = all.back();
    EXPECT_EQ(lib.ToString(), "cuda_cublaslt:algorithm=0");
    EXPECT_TRUE(b->IsLibraryCall(lib));
    xla::AutotuneResult r;
    ASSERT_THAT(b->ConfigToResult(KernelConfig("cuda_cublaslt", {{"algorithm", 3}}), &r),
                IsOk());
    EXPECT_EQ(r.gemm().algorithm(), 3);
    EXPECT_EQ(b->ConfigFromResult(r)->Get("algorithm", -1), 3);
    ASSERT_THAT(b->ConfigToResult(def, &r), IsOk());
    EXPECT_TRUE(r.has_triton());
    EXPECT_EQ(r.triton().block_k(), def.Get("block_k", -1));
    EXPECT_EQ(*b->ConfigFromResult(r), def);
    // -1 is XLA's "the library's default" (gemm { algorithm: -1 }): used as
    // it is and written back unchanged.
    EXPECT_THAT(b->CheckConfig(*inst, KernelConfig("cuda_cublaslt", {{"algorithm", -1}})),
                IsOk());
    ASSERT_THAT(b->ConfigToResult(KernelConfig("cuda_cublaslt", {{"algorithm", -1}}), &r),
                IsOk());
    EXPECT_EQ(r.gemm().algorithm(), -1);
    EXPECT_EQ(b->ConfigFromResult(r)->Get("algorithm", 0), -1);
    EXPECT_THAT(b->CheckConfig(*inst, KernelConfig("cuda_cublaslt", {{"algorithm", -2}})),
                StatusIs(absl::StatusCode::kInvalidArgument));
    for (const KernelConfig& c : {def, lib}) {
      absl::StatusOr<std::unique_ptr<Kernel>> k = b->Compile(*inst, c);
      ASSERT_THAT(k, IsOk()) << c.ToString();
      EXPECT_THAT((*k)->Run({}, DeviceBuffer()),
                  StatusIs(absl::StatusCode::kUnavailable));
    }
    for (const char* part : {"", ".pack_a", ".pack_b"}) {
      absl::StatusOr<std::string> cubin = ReadFile(dir + "/" + inst->name() + part + ".cubin");
      ASSERT_THAT(cubin, IsOk()) << part;
      EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");
    }
  }
  EXPECT_GT(gemms, 0);
  absl::StatusOr<std::string> manifest = ReadFile(dir + "/manifest.txt");
  ASSERT_THAT(manifest, IsOk());
  EXPECT_THAT(*manifest, HasSubstr(" arch=sm_90a config=triton_gemm:block_m="));
  EXPECT_THAT(*manifest, HasSubstr(".pack_a arch=sm_90a config=cuda_cublaslt:algorithm=0 registers="));
  if (!std::filesystem::exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1")) {
    EXPECT_THAT(CudaBackend::Create(BackendOptions()),
                StatusIs(absl::StatusCode::kUnavailable,
                         HasSubstr("--xtune_gpu_target")));
  }
}

// XLA's cuBLAS custom-calls stay library calls: cuBLASLt only, legacy
// cuBLAS at the library's default (XLA's picker numbers its algorithms as
// cublasGemmAlgo_t, which name nothing in cuBLASLt's list).
TEST(CudaBackendTest, LibraryCallsRunAsCuBlasLtOnly) {
  XTUNE_NVRTC_OR_SKIP();
  std::unique_ptr<CudaBackend> b = Make("h100");
  ASSERT_NE(b, nullptr);
  std::unique_ptr<Module> m = Fused("tests/numpy/cases/cublas_calls.hlo");
  int calls = 0;
  for (const Instruction* inst : FusionsOf(*m)) {
    std::optional<LibraryFusion> call = LibraryFusionOf(*inst);
    if (!call.has_value()) continue;
    ++calls;
    SCOPED_TRACE(inst->name());
    const bool legacy = call->target == "__cublas$gemm";
    const KernelConfig only("cuda_cublaslt", {{"algorithm", legacy ? -1 : 0}});
    EXPECT_THAT(b->Candidates(*inst, true), ElementsAre(only));
    EXPECT_EQ(b->DefaultConfig(*inst), only);
    EXPECT_THAT(b->CheckConfig(*inst, KernelConfig("triton_gemm", {})),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("is XLA's " + call->target +
                                   " call: it takes cuda_cublaslt configs")));
    xla::AutotuneResult r;
    r.mutable_gemm()->set_algorithm(5);
    absl::StatusOr<KernelConfig> from = b->ConfigFromResultFor(*inst, r);
    ASSERT_THAT(from, IsOk());
    EXPECT_EQ(from->Get("algorithm", 0), legacy ? -1 : 5);
    absl::StatusOr<std::unique_ptr<Kernel>> k = b->Compile(*inst, only);
    ASSERT_THAT(k, IsOk());
  }
  EXPECT_EQ(calls, 5);
  // The aux output of BIAS_GELU_AUX is an ordinary gemm fusion.
  const Instruction* aux = FindFusion(*m, "gelu.aux");
  ASSERT_NE(aux, nullptr);
  EXPECT_EQ(b->DefaultConfig(*aux).kind(), "triton_gemm");
}

// NVRTC's outputs are kept by content: the second compile of a kernel is a
// hit with the same bytes and resources; an entry whose bytes changed is a
// miss and is compiled again.
TEST(CudaBackendTest, CubinsAreCachedByContentAndCheckedOnRead) {
  XTUNE_NVRTC_OR_SKIP();
  std::string root = xtune::testing::TestTempDir("cubin_cache_test");
  const char* old = getenv("XTUNE_CACHE_DIR");
  std::string saved = old ? old : "";
  setenv("XTUNE_CACHE_DIR", root.c_str(), 1);
  std::unique_ptr<CudaBackend> b = Make("h200");
  if (saved.empty()) {
    unsetenv("XTUNE_CACHE_DIR");
  } else {
    setenv("XTUNE_CACHE_DIR", saved.c_str(), 1);
  }
  ASSERT_NE(b, nullptr);
  std::unique_ptr<Module> m = Fused("examples/layer_norm.hlo");
  const Instruction* fusion = nullptr;
  for (const auto& inst : m->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) fusion = inst.get();
  }
  ASSERT_NE(fusion, nullptr);
  KernelConfig c = b->DefaultConfig(*fusion);
  absl::StatusOr<CudaKernelSource> k = b->Source(*fusion, c);
  ASSERT_THAT(k, IsOk());
  std::string source;
  absl::StatusOr<NvrtcOutput> first = b->CompileToCubin(fusion->name(), c, *k, &source);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(b->cubin_cache().misses(), 1);
  absl::StatusOr<NvrtcOutput> second = b->CompileToCubin(fusion->name(), c, *k, &source);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(b->cubin_cache().hits(), 1);
  EXPECT_EQ(second->cubin, first->cubin);
  ASSERT_EQ(second->resources.size(), first->resources.size());
  EXPECT_EQ(second->resources[0].registers, first->resources[0].registers);
  // Corrupt the cached cubin: the digest no longer matches, so it is
  // compiled again and the entry rewritten.
  int corrupted = 0;
  for (const auto& e : std::filesystem::directory_iterator(root + "/cubins")) {
    if (e.path().extension() == ".cubin") {
      ASSERT_THAT(WriteFileAtomically(e.path().string(), "not a cubin"), IsOk());
      ++corrupted;
    }
  }
  EXPECT_EQ(corrupted, 1);
  absl::StatusOr<NvrtcOutput> third = b->CompileToCubin(fusion->name(), c, *k, &source);
  ASSERT_THAT(third, IsOk());
  EXPECT_EQ(b->cubin_cache().misses(), 2);
  EXPECT_EQ(third->cubin, first->cubin);
}

// A golden file of the generated gemm's source for one config: the
// 32x32x32/1 stage/4 warps kernel XLA's test cache holds for
// tests/data/xla_triton_entry.hlo (f16 x s8->f16, bitcast operands), for the
// A100. `make golden` rewrites it (XTUNE_REGENERATE_GOLDEN=1); review the
// diff.
TEST(CudaGoldenTest, TritonGemmSourceOfXlasCacheEntry) {
  XTUNE_NVRTC_OR_SKIP();
  std::unique_ptr<CudaBackend> b = Make("a100");
  ASSERT_NE(b, nullptr);
  std::unique_ptr<Module> m = Fused("tests/data/xla_triton_entry.hlo");
  const Instruction* fusion = nullptr;
  for (const auto& inst : m->entry()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) fusion = inst.get();
  }
  ASSERT_NE(fusion, nullptr);
  KernelConfig c("triton_gemm", {{"block_m", 32}, {"block_n", 32}, {"block_k", 32},
                                 {"split_k", 1}, {"num_stages", 1}, {"num_warps", 4},
                                 {"num_ctas", 1}});
  absl::StatusOr<TritonGemm> g = b->TritonSource(*fusion, c);
  ASSERT_THAT(g, IsOk());
  EXPECT_EQ(g->main.grid, 1);
  EXPECT_EQ(g->main.block, 128);
  std::string path = TestSourceDir() + "/tests/golden/cuda/xla_triton_entry.gemm.cu";
  const char* regenerate = getenv("XTUNE_REGENERATE_GOLDEN");
  if (regenerate != nullptr && *regenerate == '1') {
    ASSERT_THAT(WriteFileAtomically(path, g->main.body), IsOk());
    GTEST_SKIP() << "wrote " << path;
  }
  absl::StatusOr<std::string> golden = ReadFile(path);
  ASSERT_THAT(golden, IsOk()) << "run `make golden` to write it";
  EXPECT_EQ(g->main.body, *golden) << "the generated source changed: run `make golden` "
                                      "and review the diff of " << path;
}

}  // namespace
}  // namespace xtune::cuda
