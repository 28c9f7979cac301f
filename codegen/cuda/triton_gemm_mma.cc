#include "codegen/cuda/triton_gemm_mma.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cuda/gemm_skeleton.h"
#include "codegen/cuda/kernel_frame.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

constexpr int64_t kMaxStaticShared = 48 * 1024;
constexpr int64_t kMaxAccumulators = 128;  // floats a thread

struct Mma {
  int64_t bm, bn, bk, splits, stages, warps, threads;
  int64_t wm, wn;  // warps along m and n
  int64_t mt, nt;  // a warp's 16x8 tiles along m and n
  int64_t kc;      // K per split
  DType pack;      // f16 or bf16
};

// Loads a thread's pairs of the A (bm x bk) or B^T (bn x bk) tile at k0 as
// 32-bit words (two 16-bit values along K, the lower K in the low half).
absl::Status EmitPairLoader(const Computation& fused, const cpu::GemmFusion& g,
                            const Mma& t, int operand, std::string* globals,
                            CodeBuffer* out) {
  const int64_t rows = operand == 0 ? t.bm : t.bn;
  const int64_t pairs = rows * t.bk / 2;
  const int64_t count = (pairs + t.threads - 1) / t.threads;
  out->Open(absl::StrCat("XT_DEVICE void xt_load_", operand == 0 ? "a" : "b", "(",
                         ParameterDecls(fused),
                         "int64_t xt_bi, int64_t xt_r0, int64_t xt_k0, "
                         "int64_t xt_k_end, uint32_t* xt_r)"));
  out->Line("#pragma unroll");
  out->Linef("for (int xt_i = 0; xt_i < ", count, "; ++xt_i)");
  out->Open("");
  out->Linef("const int64_t xt_p = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
  out->Line("uint32_t xt_word = 0;");
  std::string row = operand == 0 ? "xt_mi" : "xt_ni";
  out->Linef("const int64_t ", row, " = xt_r0 + xt_p / ", t.bk / 2, ";");
  out->Line("#pragma unroll");
  out->Open("for (int xt_h = 0; xt_h < 2; ++xt_h)");
  out->Linef("const int64_t xt_ki = xt_k0 + (xt_p % ", t.bk / 2, ") * 2 + xt_h;");
  out->Open(absl::StrCat("if (xt_p < ", pairs, " && ", row, " < ",
                         operand == 0 ? g.m : g.n, " && xt_ki < xt_k_end)"));
  ElementalEmitter emitter = MakeEmitter(operand == 0 ? "xt_la" : "xt_lb");
  std::vector<IndexExpr> index =
      cpu::DotOperandIndex(*g.dot, operand, "xt_bi", row, "xt_ki");
  XTUNE_ASSIGN_OR_RETURN(std::string v,
                         emitter.Emit(g.dot->operand(operand), index, out));
  out->Linef("xt_word |= (uint32_t)", ElementalEmitter::ToStorage(v, t.pack),
             " << (16 * xt_h);");
  out->Close();
  out->Close();
  out->Line("xt_r[xt_i] = xt_word;");
  out->Close();
  out->Close();
  *globals += emitter.globals();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<CudaKernelSource>> MmaGemmKernel(
    const Computation& fused, const cpu::GemmFusion& g,
    const KernelConfig& config, DType out_type,
    const CudaKernelOptions& options) {
  DType lhs = g.dot->operand(0)->shape().dtype();
  DType rhs = g.dot->operand(1)->shape().dtype();
  if (lhs != rhs || (lhs != DType::kF16 && lhs != DType::kBF16)) return std::nullopt;
  Mma t;
  t.pack = lhs;
  t.bm = config.Get("block_m", 0);
  t.bn = config.Get("block_n", 0);
  t.bk = config.Get("block_k", 0);
  t.splits = config.Get("split_k", 1);
  t.stages = config.Get("num_stages", 1);
  t.warps = config.Get("num_warps", 1);
  t.threads = t.warps * 32;
  if (t.bk % 16 != 0 || t.bm % 16 != 0 || t.bn % 8 != 0) return std::nullopt;
  // Warps along m first (each at least 16 rows), the rest along n.
  t.wm = std::min(t.warps, t.bm / 16);
  while (t.warps % t.wm != 0) --t.wm;
  t.wn = t.warps / t.wm;
  if ((t.bn / t.wn) % 8 != 0 || t.bn / t.wn < 8) return std::nullopt;
  t.mt = t.bm / t.wm / 16;
  t.nt = t.bn / t.wn / 8;
  if (t.mt * 16 * t.wm != t.bm || t.nt * 8 * t.wn != t.bn) return std::nullopt;
  int64_t shared = (t.bm + t.bn) * t.bk * 2;
  if (shared > kMaxStaticShared || t.mt * t.nt * 4 > kMaxAccumulators) {
    return absl::InvalidArgumentError(absl::StrCat(
        config.ToString(), ": ", shared, " bytes of shared memory and ",
        t.mt * t.nt * 4, " accumulators a thread (at most ", kMaxStaticShared,
        " and ", kMaxAccumulators, ")"));
  }
  t.kc = KPerSplit(g.k, t.splits, t.bk);

  std::string globals;
  CodeBuffer loaders;
  XTUNE_RETURN_IF_ERROR(EmitPairLoader(fused, g, t, 0, &globals, &loaders));
  XTUNE_RETURN_IF_ERROR(EmitPairLoader(fused, g, t, 1, &globals, &loaders));
  const char* mma = t.pack == DType::kF16 ? "XT_MMA_M16N8K16_F16" : "XT_MMA_M16N8K16_BF16";
  const int64_t row_words = t.bk / 2;
  GemmSkeleton k;
  k.bm = t.bm;
  k.bn = t.bn;
  k.bk = t.bk;
  k.splits = t.splits;
  k.stages = t.stages;
  k.threads = t.threads;
  k.kc = t.kc;
  k.accs = t.mt * t.nt * 4;
  k.word = "uint32_t";
  k.words_a = t.bm * row_words;
  k.words_b = t.bn * row_words;
  // The warp's mt x nt tiles of 16x8 start at (xt_wm0, xt_wn0) of the
  // block tile; xt_g / xt_t are the lane's groupID / threadID_in_group.
  k.thread_setup = [&](CodeBuffer* b) {
    b->Line("const int xt_g = xt_lane() / 4, xt_t = xt_lane() % 4;");
    b->Linef("const int xt_wm0 = (xt_warp() / ", t.wn, ") * ", t.mt * 16,
             ", xt_wn0 = (xt_warp() % ", t.wn, ") * ", t.nt * 8, ";");
  };
  k.b_coordinates = [](const std::string& k0) { return "xt_n0, " + k0; };
  k.compute = [&](CodeBuffer* b) {
    b->Line("#pragma unroll");
    b->Open(absl::StrCat("for (int xt_kk = 0; xt_kk < ", row_words, "; xt_kk += 8)"));
    b->Linef("uint32_t xt_fa[", t.mt, "][4], xt_fb[", t.nt, "][2];");
    b->Line("#pragma unroll");
    b->Open(absl::StrCat("for (int xt_i = 0; xt_i < ", t.mt, "; ++xt_i)"));
    b->Line("const int xt_r = xt_wm0 + xt_i * 16 + xt_g;");
    b->Linef("xt_fa[xt_i][0] = XT_S(xt_as)[xt_r * ", row_words, " + xt_kk + xt_t];");
    b->Linef("xt_fa[xt_i][1] = XT_S(xt_as)[(xt_r + 8) * ", row_words, " + xt_kk + xt_t];");
    b->Linef("xt_fa[xt_i][2] = XT_S(xt_as)[xt_r * ", row_words, " + xt_kk + 4 + xt_t];");
    b->Linef("xt_fa[xt_i][3] = XT_S(xt_as)[(xt_r + 8) * ", row_words,
             " + xt_kk + 4 + xt_t];");
    b->Close();
    b->Line("#pragma unroll");
    b->Open(absl::StrCat("for (int xt_j = 0; xt_j < ", t.nt, "; ++xt_j)"));
    b->Line("const int xt_c = xt_wn0 + xt_j * 8 + xt_g;");
    b->Linef("xt_fb[xt_j][0] = XT_S(xt_bs)[xt_c * ", row_words, " + xt_kk + xt_t];");
    b->Linef("xt_fb[xt_j][1] = XT_S(xt_bs)[xt_c * ", row_words, " + xt_kk + 4 + xt_t];");
    b->Close();
    b->Line("#pragma unroll");
    b->Linef("for (int xt_i = 0; xt_i < ", t.mt, "; ++xt_i)");
    b->Line("#pragma unroll");
    b->Linef("  for (int xt_j = 0; xt_j < ", t.nt, "; ++xt_j)");
    b->Linef("    ", mma, "(&xt_acc[(xt_i * ", t.nt, " + xt_j) * 4], xt_fa[xt_i], ",
             "xt_fb[xt_j], &xt_acc[(xt_i * ", t.nt, " + xt_j) * 4]);");
    b->Close();
  };
  // Accumulator x: tile (i, j) of the warp, element c of its fragment
  // (c0, c1 on row groupID, c2, c3 eight rows below).
  k.element = [&](CodeBuffer* b) {
    b->Linef("const int xt_i = xt_x / ", t.nt * 4, ", xt_j = (xt_x / 4) % ", t.nt,
             ", xt_c = xt_x % 4;");
    b->Line("const int64_t xt_mi = xt_m0 + xt_wm0 + xt_i * 16 + xt_g + (xt_c / 2) * 8;");
    b->Line("const int64_t xt_ni = xt_n0 + xt_wn0 + xt_j * 8 + xt_t * 2 + (xt_c % 2);");
  };
  XTUNE_ASSIGN_OR_RETURN(CudaKernelSource src,
                         EmitGemmKernel(fused, g, k, out_type, options,
                                        std::move(globals), loaders));
  return std::optional<CudaKernelSource>(std::move(src));
}

}  // namespace xtune::cuda
