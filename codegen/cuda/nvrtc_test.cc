#include "codegen/cuda/nvrtc.h"

#include "codegen/cuda/nvrtc_or_skip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune::cuda {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

// As ptxas (CUDA 13) prints it for a kernel with a static shared array.
constexpr char kLog[] = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90a'
ptxas info    : Function properties for k
    8 bytes stack frame, 16 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem
ptxas info    : Compile time = 20.680 ms
ptxas info    : Function properties for other
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 255 registers
)";

TEST(PtxasReportTest, ParsesEveryFunction) {
  ASSERT_OK_AND_ASSIGN(std::vector<KernelResources> r, ParsePtxasReport(kLog));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].function, "k");
  EXPECT_EQ(r[0].registers, 10);
  EXPECT_EQ(r[0].barriers, 1);
  EXPECT_EQ(r[0].shared_bytes, 1024);
  EXPECT_EQ(r[0].stack_bytes, 8);
  EXPECT_EQ(r[0].spill_store_bytes, 16);
  EXPECT_EQ(r[0].spill_load_bytes, 24);
  EXPECT_EQ(r[1].function, "other");
  EXPECT_EQ(r[1].registers, 255);
  EXPECT_EQ(r[1].shared_bytes, 0);
  EXPECT_THAT(ParsePtxasReport("nothing here"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

constexpr char kKernel[] = R"cu(
extern "C" __global__ void k(float* x, int n) {
  __shared__ float s[256];
  int i = threadIdx.x;
  s[i] = x[i];
  __syncthreads();
  if (i < n) x[i] = s[255 - i] * 2.0f;
}
)cu";

// Compiles without a GPU wherever the toolkit's NVRTC is; skips otherwise.
TEST(NvrtcTest, CompilesForAmpereAndHopperWithoutAGpu) {
  XTUNE_NVRTC_OR_SKIP();
  absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
  ASSERT_THAT(nvrtc, IsOk());
  EXPECT_GE((*nvrtc)->major(), 12);
  for (const char* arch : {"sm_80", "sm_90a"}) {
    ASSERT_OK_AND_ASSIGN(NvrtcOutput out, (*nvrtc)->Compile(kKernel, "k.cu", arch));
    EXPECT_THAT(out.ptx, HasSubstr(".entry k("));
    EXPECT_THAT(out.ptx, HasSubstr(absl::StrCat(".target ", arch)));
    ASSERT_GT(out.cubin.size(), 4u);
    EXPECT_EQ(out.cubin.substr(1, 3), "ELF");
    ASSERT_EQ(out.resources.size(), 1u) << out.log;
    EXPECT_EQ(out.resources[0].function, "k");
    EXPECT_GT(out.resources[0].registers, 0);
    EXPECT_EQ(out.resources[0].shared_bytes, 1024);
    EXPECT_EQ(out.resources[0].spill_store_bytes, 0);
  }
}

TEST(NvrtcTest, ASyntaxErrorNamesTheLine) {
  XTUNE_NVRTC_OR_SKIP();
  absl::StatusOr<std::unique_ptr<Nvrtc>> nvrtc = Nvrtc::Load();
  ASSERT_THAT(nvrtc, IsOk());
  EXPECT_THAT((*nvrtc)->Compile("extern \"C\" __global__ void k() {\n  int x = ;\n}\n",
                                "bad.cu", "sm_90a"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bad.cu(2)")));
}

}  // namespace
}  // namespace xtune::cuda
