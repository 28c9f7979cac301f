// The row kernel's phases on their own, on a softmax and a layer norm.
#include "codegen/cpu/row_reduction_kernel.h"

#include "absl/strings/match.h"
#include "codegen/cpu/kernel_source.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/parser.h"
#include "util/status_matchers.h"

namespace xtune::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

// A fused softmax over rows of 100: max, then sum of exp(x - max), then
// exp(x - max) / sum.
constexpr char kSoftmax[] = R"hlo(HloModule softmax
max_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY softmax {
  x = f32[4,100] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[4] reduce(x, ninf), dimensions={1}, to_apply=max_f
  mxb = f32[4,100] broadcast(mx), dimensions={0}
  d = f32[4,100] subtract(x, mxb)
  e = f32[4,100] exponential(d)
  zero = f32[] constant(0)
  s = f32[4] reduce(e, zero), dimensions={1}, to_apply=add_f
  sb = f32[4,100] broadcast(s), dimensions={0}
  ROOT y = f32[4,100] divide(e, sb)
})hlo";

KernelConfig Config(int width, int unroll) {
  return KernelConfig("cpu_row_reduce", {{"vector_width", width},
                                         {"unroll", unroll},
                                         {"rows_per_task", 1},
                                         {"threads", 1}});
}

class RowKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = ParseModule(kSoftmax);
    ASSERT_THAT(m, IsOk());
    module_ = std::move(*m);
    auto f = AnalyzeRowFusion(*module_->entry());
    ASSERT_THAT(f, IsOk());
    fusion_ = *f;
  }
  const Computation& fused() const { return *module_->entry(); }
  std::unique_ptr<Module> module_;
  RowFusion fusion_;
};

TEST_F(RowKernelTest, PlanRowBuffersKeepsOnlyWhatLaterPassesReuse) {
  ASSERT_EQ(fusion_.passes.size(), 2u);
  // Pass 0 reduces the parameter (cheap: re-read); pass 1 reduces exp(),
  // which the root needs again: buffered.
  EXPECT_THAT(PlanRowBuffers(fused(), fusion_),
              ElementsAre(ElementsAre(""), ElementsAre("xt_buf0")));
}

TEST_F(RowKernelTest, StreamedParametersAreTheFullSizeOnes) {
  EXPECT_THAT(StreamedParameters(fused(), fusion_), ElementsAre(0));
}

TEST_F(RowKernelTest, PrologueOpensTheRowLoopWithItsBuffers) {
  auto w = RowKernelWriter::Create(fused(), Config(8, 2));
  ASSERT_THAT(w, IsOk());
  CodeBuffer body;
  (*w)->EmitPrologue(&body);
  EXPECT_THAT(body.text(), HasSubstr("float* xt_buf0 = (float*)malloc(sizeof(float) * 100);"));
  EXPECT_THAT(body.text(), HasSubstr("for (int64_t xt_row = xt_begin; xt_row < xt_end; ++xt_row)"));
  EXPECT_THAT(body.text(), HasSubstr("const int64_t xt_i0 = (xt_row / 1) % 4;"));
}

TEST_F(RowKernelTest, VectorPassAccumulatesInLanesThenCombines) {
  auto w = RowKernelWriter::Create(fused(), Config(8, 2));
  ASSERT_THAT(w, IsOk());
  CodeBuffer body;
  (*w)->EmitPrologue(&body);
  std::string before = body.text();
  ASSERT_THAT((*w)->EmitPass(0, &body), IsOk());
  std::string pass0 = body.text().substr(before.size());
  // Two vector accumulators (unroll 2) from the identity, a tail, the loop
  // by 16, and the lanes combined into the row's max.
  EXPECT_THAT(pass0, HasSubstr("xt_vf xt_red0_v0 = xt_vsplat((-__builtin_inff()))"));
  EXPECT_THAT(pass0, HasSubstr("xt_vf xt_red0_v1"));
  EXPECT_THAT(pass0, HasSubstr("for (; xt_j + 16 <= 100; xt_j += 16)"));
  EXPECT_THAT(pass0, HasSubstr("xt_red0 = xt_max(xt_red0, xt_red0_v1[l])"));
  // The first pass does not prefetch; the second (streaming again) does.
  EXPECT_THAT(pass0, Not(HasSubstr("__builtin_prefetch")));
  std::string upto = body.text();
  ASSERT_THAT((*w)->EmitPass(1, &body), IsOk());
  std::string pass1 = body.text().substr(upto.size());
  EXPECT_THAT(pass1, HasSubstr("__builtin_prefetch(xt_p0 + (xt_row + 1) * 100"));
  EXPECT_THAT(pass1, HasSubstr("xt_store(xt_buf0 + xt_j"));  // exp buffered
}

TEST_F(RowKernelTest, ScalarPassInlinesTheCombiner) {
  auto w = RowKernelWriter::Create(fused(), Config(1, 1));
  ASSERT_THAT(w, IsOk());
  CodeBuffer body;
  (*w)->EmitPrologue(&body);
  ASSERT_THAT((*w)->EmitPass(0, &body), IsOk());
  EXPECT_THAT(body.text(), Not(HasSubstr("xt_vf")));
  EXPECT_THAT(body.text(), HasSubstr("for (; xt_j < 100; ++xt_j)"));
}

TEST_F(RowKernelTest, RootReadsTheBufferAndStoresEveryElement) {
  auto w = RowKernelWriter::Create(fused(), Config(8, 1));
  ASSERT_THAT(w, IsOk());
  CodeBuffer body;
  (*w)->EmitPrologue(&body);
  ASSERT_THAT((*w)->EmitPass(0, &body), IsOk());
  ASSERT_THAT((*w)->EmitPass(1, &body), IsOk());
  std::string upto = body.text();
  ASSERT_THAT((*w)->EmitRoot(&body), IsOk());
  std::string root = body.text().substr(upto.size());
  EXPECT_THAT(root, HasSubstr("xt_store(xt_out + xt_row * 100 + xt_j"));
  EXPECT_THAT(root, HasSubstr("xt_buf0"));
  (*w)->EmitEpilogue(&body);
  EXPECT_THAT(body.text(), HasSubstr("free(xt_buf0);"));
}

TEST_F(RowKernelTest, WriteIsTheKernelSourceAndRefusesBadConfigs) {
  auto w = RowKernelWriter::Create(fused(), Config(8, 2));
  ASSERT_THAT(w, IsOk());
  auto whole = (*w)->Write();
  ASSERT_THAT(whole, IsOk());
  EXPECT_THAT(*whole, HasSubstr("extern \"C\" void xtune_kernel("));
  EXPECT_EQ(*whole, *RowReductionKernelSource(fused(), Config(8, 2)));
  EXPECT_THAT(RowKernelWriter::Create(fused(), Config(0, 1)).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace xtune::cpu
