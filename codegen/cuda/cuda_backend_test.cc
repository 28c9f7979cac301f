// Deviceless compiles: every fusion's default kernel of the example and
// test modules NVRTC-compiles for sm_80 (A100) and sm_90a (H200) within the
// device's limits, every candidate of the layer norm too, and the dump has
// the source, PTX, cubin and a manifest line.
#include "codegen/cuda/cuda_backend.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "fusion/fusion_pass.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "codegen/cuda/test_source_dir.h"
#include "ir/parser.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

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

void ExpectWithinLimits(const CudaBackend& b, const Instruction& fusion,
                        const KernelConfig& config) {
  std::string source;
  absl::StatusOr<NvrtcOutput> out = b.CompileToCubin(fusion, config, &source);
  if (!out.ok() && out.status().code() == absl::StatusCode::kUnimplemented) return;
  ASSERT_THAT(out, IsOk()) << fusion.name() << " " << config.ToString();
  EXPECT_FALSE(out->cubin.empty());
  EXPECT_THAT(out->ptx, HasSubstr(".target " + b.device().Arch()));
  bool found = false;
  for (const KernelResources& r : out->resources) {
    if (r.function != "xt_kernel") continue;
    found = true;
    EXPECT_GT(r.registers, 0);
    EXPECT_LE(r.registers, 255);
    EXPECT_EQ(r.spill_store_bytes, 0) << fusion.name() << " " << config.ToString();
    EXPECT_LE(r.shared_bytes, b.device().shared_memory_per_block_optin);
  }
  EXPECT_TRUE(found) << out->log;
}

TEST(CudaBackendTest, EveryDefaultKernelCompilesForSm80AndSm90a) {
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    for (const char* rel : {"examples/attention.hlo", "examples/layer_norm.hlo",
                            "examples/mlp.hlo", "examples/mlp_bf16.hlo",
                            "tests/data/all_ops.hlo",
                            "tests/data/simple_optimization_test.hlo",
                            "tests/golden/column_reduce.hlo"}) {
      std::unique_ptr<Module> m = Fused(rel);
      for (const auto& inst : m->entry()->instructions()) {
        if (inst->opcode() != Opcode::kFusion) continue;
        SCOPED_TRACE(absl::StrCat(target, " ", rel, " ", inst->name()));
        ExpectWithinLimits(*b, *inst, b->DefaultConfig(*inst));
      }
    }
  }
}

TEST(CudaBackendTest, EveryCandidateOfTheLayerNormAndColumnSums) {
  for (const char* target : {"a100", "h200"}) {
    std::unique_ptr<CudaBackend> b = Make(target);
    ASSERT_NE(b, nullptr);
    for (const char* rel : {"examples/layer_norm.hlo", "tests/golden/column_reduce.hlo"}) {
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
  std::string dir = ::testing::TempDir() + "/xtune_dump_test";
  std::filesystem::remove_all(dir);
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

TEST(CudaBackendTest, GemmsAreUnimplementedAndNoTargetNoDriverIsUnavailable) {
  std::unique_ptr<CudaBackend> b = Make("h100");
  ASSERT_NE(b, nullptr);
  std::unique_ptr<Module> m = Fused("examples/mlp.hlo");
  for (const auto& inst : m->entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion || inst->name().find("gemm") == std::string::npos) continue;
    EXPECT_THAT(b->Compile(*inst, b->DefaultConfig(*inst)),
                StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("evaluator")));
  }
  if (!std::filesystem::exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1")) {
    EXPECT_THAT(CudaBackend::Create(BackendOptions()),
                StatusIs(absl::StatusCode::kUnavailable,
                         HasSubstr("--xtune_gpu_target")));
  }
}

}  // namespace
}  // namespace xtune::cuda
