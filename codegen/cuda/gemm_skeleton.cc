#include "codegen/cuda/gemm_skeleton.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cuda/kernel_frame.h"
#include "util/status_macros.h"

namespace xtune::cuda {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

absl::StatusOr<CudaKernelSource> EmitGemmKernel(
    const Computation& fused, const cpu::GemmFusion& g, const GemmSkeleton& s,
    DType out_type, const CudaKernelOptions& options, std::string globals,
    const CodeBuffer& loaders) {
  std::vector<DType> inputs;
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    inputs.push_back(fused.parameter(i)->shape().dtype());
  }
  const std::string args = ParameterNames(fused);
  Frame frame = MakeKernelFrame(inputs, out_type, static_cast<int>(s.threads));
  const int64_t ca = (s.words_a + s.threads - 1) / s.threads;
  const int64_t cb = (s.words_b + s.threads - 1) / s.threads;
  const int64_t tiles_m = (g.m + s.bm - 1) / s.bm;
  const int64_t tiles_n = (g.n + s.bn - 1) / s.bn;

  CodeBuffer b;
  b.Open(frame.signature);
  b.Linef("XT_SHARED(", s.word, ", xt_as, ", s.words_a, ");");
  b.Linef("XT_SHARED(", s.word, ", xt_bs, ", s.words_b, ");");
  b.Line("int64_t xt_blk = xt_bid();");
  b.Linef("const int64_t xt_tile_n = xt_blk % ", tiles_n, "; xt_blk /= ", tiles_n, ";");
  b.Linef("const int64_t xt_tile_m = xt_blk % ", tiles_m, "; xt_blk /= ", tiles_m, ";");
  b.Linef("const int64_t xt_split = xt_blk % ", s.splits, ";");
  b.Linef("const int64_t xt_bi = xt_blk / ", s.splits, ";");
  b.Linef("const int64_t xt_m0 = xt_tile_m * ", s.bm, ", xt_n0 = xt_tile_n * ", s.bn, ";");
  b.Linef("const int64_t xt_k_begin = xt_split * ", s.kc, ";");
  b.Linef("const int64_t xt_k_end = xt_k_begin + ", s.kc, " < ", g.k, " ? xt_k_begin + ",
          s.kc, " : ", g.k, ";");
  s.thread_setup(&b);
  b.Linef("float xt_acc[", s.accs, "];");
  b.Line("#pragma unroll");
  b.Linef("for (int xt_i = 0; xt_i < ", s.accs, "; ++xt_i) xt_acc[xt_i] = 0.0f;");
  b.Linef(s.word, " xt_ra[", ca, "], xt_rb[", cb, "];");
  auto load = [&](const std::string& k0) {
    b.Linef("xt_load_a(", args, "xt_bi, xt_m0, ", k0, ", xt_k_end, xt_ra);");
    b.Linef("xt_load_b(", args, "xt_bi, ", s.b_coordinates(k0), ", xt_k_end, xt_rb);");
  };
  auto store = [&]() {
    for (const auto& [count, words, tile, regs] :
         {std::make_tuple(ca, s.words_a, "xt_as", "xt_ra"),
          std::make_tuple(cb, s.words_b, "xt_bs", "xt_rb")}) {
      b.Line("#pragma unroll");
      b.Linef("for (int xt_i = 0; xt_i < ", count, "; ++xt_i) {");
      b.Linef("  const int64_t xt_w = xt_tid() + (int64_t)xt_i * ", s.threads, ";");
      b.Linef("  if (xt_w < ", words, ") XT_S(", tile, ")[xt_w] = ", regs, "[xt_i];");
      b.Line("}");
    }
  };
  load("xt_k_begin");
  store();
  b.Open(absl::StrCat("for (int64_t xt_k0 = xt_k_begin; xt_k0 < xt_k_end; xt_k0 += ",
                      s.bk, ")"));
  b.Line("XT_SYNC();");
  b.Linef("const bool xt_has_next = xt_k0 + ", s.bk, " < xt_k_end;");
  if (s.stages >= 2) {
    b.Line("// Prefetch the next step's tiles into registers before computing.");
    b.Open("if (xt_has_next)");
    load(absl::StrCat("xt_k0 + ", s.bk));
    b.Close();
  }
  s.compute(&b);
  b.Line("XT_SYNC();");
  b.Open("if (xt_has_next)");
  if (s.stages < 2) load(absl::StrCat("xt_k0 + ", s.bk));
  store();
  b.Close();
  b.Close();  // k loop
  // Each accumulator's output element.
  b.Line("#pragma unroll");
  b.Open(absl::StrCat("for (int xt_x = 0; xt_x < ", s.accs, "; ++xt_x)"));
  s.element(&b);
  b.Open(absl::StrCat("if (xt_mi < ", g.m, " && xt_ni < ", g.n, ")"));
  b.Line("const float xt_accv = xt_acc[xt_x];");
  if (s.splits > 1) {
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
                          loaders.text(), b.text(), frame.entry);
  src.grid = std::max<int64_t>(1, tiles_m * tiles_n * s.splits * g.batch);
  src.block = static_cast<int>(s.threads);
  src.elem_bytes = frame.elem_bytes;
  return src;
}

}  // namespace xtune::cuda
