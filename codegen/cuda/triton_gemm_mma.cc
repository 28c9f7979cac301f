#include "codegen/cuda/triton_gemm_mma.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
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
  std::vector<std::string> decls;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    decls.push_back(absl::StrCat(
        "XT_IN(", ElementalEmitter::StorageType(fused.parameter(i)->shape().dtype()),
        ") xt_p", i));
  }
  std::string d = absl::StrJoin(decls, ", ");
  out->Open(absl::StrCat("XT_DEVICE void xt_load_", operand == 0 ? "a" : "b", "(", d,
                         d.empty() ? "" : ", ",
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
  int64_t per_split = (g.k + t.splits - 1) / t.splits;
  t.kc = std::max<int64_t>(t.bk, (per_split + t.bk - 1) / t.bk * t.bk);

  std::string globals;
  CodeBuffer code;
  XTUNE_RETURN_IF_ERROR(EmitPairLoader(fused, g, t, 0, &globals, &code));
  XTUNE_RETURN_IF_ERROR(EmitPairLoader(fused, g, t, 1, &globals, &code));
  std::vector<DType> inputs;
  std::vector<std::string> names;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    inputs.push_back(fused.parameter(i)->shape().dtype());
    names.push_back(absl::StrCat("xt_p", i));
  }
  std::string args = names.empty() ? "" : absl::StrJoin(names, ", ") + ", ";
  Frame frame = MakeKernelFrame(inputs, out_type, static_cast<int>(t.threads));
  const int64_t words_a = t.bm * t.bk / 2, words_b = t.bn * t.bk / 2;
  const int64_t ca = (words_a + t.threads - 1) / t.threads;
  const int64_t cb = (words_b + t.threads - 1) / t.threads;
  const int64_t tiles_m = (g.m + t.bm - 1) / t.bm;
  const int64_t tiles_n = (g.n + t.bn - 1) / t.bn;
  const int64_t accs = t.mt * t.nt * 4;
  const char* mma = t.pack == DType::kF16 ? "XT_MMA_M16N8K16_F16" : "XT_MMA_M16N8K16_BF16";

  CodeBuffer& b = code;
  b.Open(frame.signature);
  b.Linef("XT_SHARED(uint32_t, xt_as, ", words_a, ");");
  b.Linef("XT_SHARED(uint32_t, xt_bs, ", words_b, ");");
  b.Line("int64_t xt_blk = xt_bid();");
  b.Linef("const int64_t xt_tile_n = xt_blk % ", tiles_n, "; xt_blk /= ", tiles_n, ";");
  b.Linef("const int64_t xt_tile_m = xt_blk % ", tiles_m, "; xt_blk /= ", tiles_m, ";");
  b.Linef("const int64_t xt_split = xt_blk % ", t.splits, ";");
  b.Linef("const int64_t xt_bi = xt_blk / ", t.splits, ";");
  b.Linef("const int64_t xt_m0 = xt_tile_m * ", t.bm, ", xt_n0 = xt_tile_n * ", t.bn, ";");
  b.Linef("const int64_t xt_k_begin = xt_split * ", t.kc, ";");
  b.Linef("const int64_t xt_k_end = xt_k_begin + ", t.kc, " < ", g.k, " ? xt_k_begin + ",
          t.kc, " : ", g.k, ";");
  b.Line("const int xt_g = xt_lane() / 4, xt_t = xt_lane() % 4;");
  b.Linef("const int xt_wm0 = (xt_warp() / ", t.wn, ") * ", t.mt * 16,
          ", xt_wn0 = (xt_warp() % ", t.wn, ") * ", t.nt * 8, ";");
  b.Linef("float xt_acc[", accs, "];");
  b.Line("#pragma unroll");
  b.Linef("for (int xt_i = 0; xt_i < ", accs, "; ++xt_i) xt_acc[xt_i] = 0.0f;");
  b.Linef("uint32_t xt_ra[", ca, "], xt_rb[", cb, "];");
  auto load = [&](const std::string& k0) {
    b.Linef("xt_load_a(", args, "xt_bi, xt_m0, ", k0, ", xt_k_end, xt_ra);");
    b.Linef("xt_load_b(", args, "xt_bi, xt_n0, ", k0, ", xt_k_end, xt_rb);");
  };
  auto store = [&]() {
    b.Line("#pragma unroll");
    b.Linef("for (int xt_i = 0; xt_i < ", ca, "; ++xt_i) {");
    b.Linef("  const int64_t xt_p = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
    b.Linef("  if (xt_p < ", words_a, ") XT_S(xt_as)[xt_p] = xt_ra[xt_i];");
    b.Line("}");
    b.Line("#pragma unroll");
    b.Linef("for (int xt_i = 0; xt_i < ", cb, "; ++xt_i) {");
    b.Linef("  const int64_t xt_p = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
    b.Linef("  if (xt_p < ", words_b, ") XT_S(xt_bs)[xt_p] = xt_rb[xt_i];");
    b.Line("}");
  };
  load("xt_k_begin");
  store();
  b.Open(absl::StrCat("for (int64_t xt_k0 = xt_k_begin; xt_k0 < xt_k_end; xt_k0 += ",
                      t.bk, ")"));
  b.Line("XT_SYNC();");
  b.Linef("const bool xt_has_next = xt_k0 + ", t.bk, " < xt_k_end;");
  if (t.stages >= 2) {
    b.Open("if (xt_has_next)");
    load(absl::StrCat("xt_k0 + ", t.bk));
    b.Close();
  }
  const int64_t row_words = t.bk / 2;
  b.Line("#pragma unroll");
  b.Open(absl::StrCat("for (int xt_kk = 0; xt_kk < ", t.bk / 2, "; xt_kk += 8)"));
  b.Linef("uint32_t xt_fa[", t.mt, "][4], xt_fb[", t.nt, "][2];");
  b.Line("#pragma unroll");
  b.Open(absl::StrCat("for (int xt_i = 0; xt_i < ", t.mt, "; ++xt_i)"));
  b.Line("const int xt_r = xt_wm0 + xt_i * 16 + xt_g;");
  b.Linef("xt_fa[xt_i][0] = XT_S(xt_as)[xt_r * ", row_words, " + xt_kk + xt_t];");
  b.Linef("xt_fa[xt_i][1] = XT_S(xt_as)[(xt_r + 8) * ", row_words, " + xt_kk + xt_t];");
  b.Linef("xt_fa[xt_i][2] = XT_S(xt_as)[xt_r * ", row_words, " + xt_kk + 4 + xt_t];");
  b.Linef("xt_fa[xt_i][3] = XT_S(xt_as)[(xt_r + 8) * ", row_words, " + xt_kk + 4 + xt_t];");
  b.Close();
  b.Line("#pragma unroll");
  b.Open(absl::StrCat("for (int xt_j = 0; xt_j < ", t.nt, "; ++xt_j)"));
  b.Line("const int xt_c = xt_wn0 + xt_j * 8 + xt_g;");
  b.Linef("xt_fb[xt_j][0] = XT_S(xt_bs)[xt_c * ", row_words, " + xt_kk + xt_t];");
  b.Linef("xt_fb[xt_j][1] = XT_S(xt_bs)[xt_c * ", row_words, " + xt_kk + 4 + xt_t];");
  b.Close();
  b.Line("#pragma unroll");
  b.Linef("for (int xt_i = 0; xt_i < ", t.mt, "; ++xt_i)");
  b.Line("#pragma unroll");
  b.Linef("  for (int xt_j = 0; xt_j < ", t.nt, "; ++xt_j)");
  b.Linef("    ", mma, "(&xt_acc[(xt_i * ", t.nt, " + xt_j) * 4], xt_fa[xt_i], xt_fb[xt_j], "
          "&xt_acc[(xt_i * ", t.nt, " + xt_j) * 4]);");
  b.Close();
  b.Line("XT_SYNC();");
  b.Open("if (xt_has_next)");
  if (t.stages < 2) load(absl::StrCat("xt_k0 + ", t.bk));
  store();
  b.Close();
  b.Close();  // k loop
  // Each accumulator's element: tile (i, j) of the warp, c0..c3.
  b.Line("#pragma unroll");
  b.Open(absl::StrCat("for (int xt_x = 0; xt_x < ", accs, "; ++xt_x)"));
  b.Linef("const int xt_i = xt_x / ", t.nt * 4, ", xt_j = (xt_x / 4) % ", t.nt,
          ", xt_c = xt_x % 4;");
  b.Line("const int64_t xt_mi = xt_m0 + xt_wm0 + xt_i * 16 + xt_g + (xt_c / 2) * 8;");
  b.Line("const int64_t xt_ni = xt_n0 + xt_wn0 + xt_j * 8 + xt_t * 2 + (xt_c % 2);");
  b.Open(absl::StrCat("if (xt_mi < ", g.m, " && xt_ni < ", g.n, ")"));
  b.Line("const float xt_accv = xt_acc[xt_x];");
  if (t.splits > 1) {
    b.Linef("XT_G(xt_out)[((xt_split * ", g.batch, " + xt_bi) * ", g.m, " + xt_mi) * ",
            g.n, " + xt_ni] = xt_accv;");
  } else {
    ElementalEmitter epi = MakeEmitter("xt_ep");
    epi.Bind(g.dot, "xt_accv");
    std::vector<IndexExpr> index =
        cpu::DotResultIndex(*g.dot, "xt_bi", "xt_mi", "xt_ni", 0);
    XTUNE_ASSIGN_OR_RETURN(std::string v, epi.Emit(g.epilogue_root, index, &b));
    b.Linef("XT_G(xt_out)[", cpu::PhysicalOffset(g.epilogue_root->shape(), index).base,
            "] = ", ElementalEmitter::ToStorage(v, out_type), ";");
    globals += epi.globals();
  }
  b.Close();
  b.Close();
  b.Close();  // kernel

  CudaKernelSource src;
  src.body = absl::StrCat("#line 1 \"", options.name, ".cu\"\n", globals,
                          code.text(), frame.entry);
  src.grid = std::max<int64_t>(1, tiles_m * tiles_n * t.splits * g.batch);
  src.block = static_cast<int>(t.threads);
  src.elem_bytes = frame.elem_bytes;
  return std::optional<CudaKernelSource>(std::move(src));
}

}  // namespace xtune::cuda
