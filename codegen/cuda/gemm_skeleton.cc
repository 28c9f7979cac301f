#include "codegen/cuda/gemm_skeleton.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cuda/kernel_frame.h"
#include "codegen/cuda/library_gemm.h"
#include "util/status_macros.h"

namespace xtune::cuda {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

GemmSkeleton SkeletonOf(const KernelConfig& config, int64_t k) {
  GemmSkeleton s;
  s.bm = config.Get("block_m", 0);
  s.bn = config.Get("block_n", 0);
  s.bk = config.Get("block_k", 0);
  s.splits = config.Get("split_k", 1);
  s.stages = config.Get("num_stages", 1);
  s.threads = config.Get("num_warps", 1) * 32;
  s.kc = KPerSplit(k, s.splits, s.bk);
  return s;
}

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
  b.Linef("XT_SHARED(", s.tile_type, ", xt_as, ", s.tile_a * (s.async[0] ? s.buffers : 1),
          ");");
  b.Linef("XT_SHARED(", s.tile_type, ", xt_bs, ", s.tile_b * (s.async[1] ? s.buffers : 1),
          ");");
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
  const std::string step = absl::StrCat(s.bk);
  const bool any_async = s.async[0] || s.async[1];
  const bool any_register = !s.async[0] || !s.async[1];
  const int64_t depth = any_async ? s.buffers : 1;
  if (any_register) b.Linef(s.word, " xt_ra[", ca, "], xt_rb[", cb, "];");
  // Register operands: loads of the K step at k0, and their stores.
  auto load = [&](const std::string& k0) {
    if (!s.async[0]) b.Linef("xt_load_a(", args, "xt_bi, xt_m0, ", k0, ", xt_k_end, xt_ra);");
    if (!s.async[1]) {
      b.Linef("xt_load_b(", args, "xt_bi, ", s.b_coordinates(k0), ", xt_k_end, xt_rb);");
    }
  };
  auto store = [&]() {
    for (int operand = 0; operand < 2; ++operand) {
      if (s.async[operand]) continue;
      const int64_t count = operand == 0 ? ca : cb;
      const int64_t words = operand == 0 ? s.words_a : s.words_b;
      b.Line("#pragma unroll");
      b.Linef("for (int xt_i = 0; xt_i < ", count, "; ++xt_i) {");
      b.Linef("  const int xt_w = xt_tid() + xt_i * ", s.threads, ";");
      b.Open(absl::StrCat("if (xt_w < ", words, ")"));
      if (s.store_word) {
        s.store_word(&b, operand);
      } else {
        b.Line(operand == 0 ? "XT_S(xt_as)[xt_w] = xt_ra[xt_i];"
                            : "XT_S(xt_bs)[xt_w] = xt_rb[xt_i];");
      }
      b.Close();
      b.Line("}");
    }
  };
  if (depth >= 2) {
    b.Linef("// A cp.async pipeline of ", depth, " buffers: steps 0..", depth - 2,
            " in flight before the loop.");
    for (int64_t st = 0; st + 1 < depth; ++st) {
      std::string k0 = absl::StrCat("xt_k_begin + ", st * s.bk);
      b.Open(absl::StrCat("if (", k0, " < xt_k_end)"));
      s.issue(&b, k0, absl::StrCat(st));
      b.Close();
      b.Line("XT_CP_ASYNC_COMMIT();");
    }
  }
  if (any_register) {
    load("xt_k_begin");
    store();
  }
  b.Line(depth >= 2 ? "int xt_buf = 0;" : "const int xt_buf = 0;");
  b.Open(absl::StrCat("for (int64_t xt_k0 = xt_k_begin; xt_k0 < xt_k_end; xt_k0 += ",
                      step, ")"));
  if (any_register) b.Linef("const bool xt_has_next = xt_k0 + ", s.bk, " < xt_k_end;");
  if (any_async) {
    if (depth == 1) {
      s.issue(&b, "xt_k0", "0");
      b.Line("XT_CP_ASYNC_COMMIT();");
      b.Line("XT_CP_ASYNC_WAIT(0);");
    } else {
      b.Linef("XT_CP_ASYNC_WAIT(", depth - 2, ");  // this step's group has landed");
    }
    if (s.landed) s.landed(&b, "xt_buf");
  }
  b.Line("XT_SYNC();  // the step's tiles are in for every thread; the last step's "
         "buffers are free");
  if (depth >= 2) {
    b.Open("");
    b.Linef("const int64_t xt_kn = xt_k0 + ", (depth - 1) * s.bk, ";");
    b.Linef("const int xt_nbuf = (xt_buf + ", depth - 1, ") % ", depth, ";");
    b.Open("if (xt_kn < xt_k_end)");
    s.issue(&b, "xt_kn", "xt_nbuf");
    b.Close();
    b.Line("XT_CP_ASYNC_COMMIT();");
    b.Close();
  }
  if (any_register && s.stages >= 2) {
    b.Line("// Prefetch the next step's register tiles before computing.");
    b.Open("if (xt_has_next)");
    load(absl::StrCat("xt_k0 + ", s.bk));
    b.Close();
  }
  s.compute(&b);
  if (any_register || depth == 1) b.Line("XT_SYNC();");
  if (any_register) {
    b.Open("if (xt_has_next)");
    if (s.stages < 2) load(absl::StrCat("xt_k0 + ", s.bk));
    store();
    b.Close();
  }
  if (depth >= 2) b.Linef("xt_buf = (xt_buf + 1) % ", depth, ";");
  b.Close();  // k loop
  if (any_async) b.Line("XT_CP_ASYNC_WAIT(0);");
  std::string scale;
  if (s.acc_scale) {
    XTUNE_ASSIGN_OR_RETURN(scale, s.acc_scale(&b, &globals));
  }
  // Each accumulator's output element.
  b.Line("#pragma unroll");
  b.Open(absl::StrCat("for (int xt_x = 0; xt_x < ", s.accs, "; ++xt_x)"));
  s.element(&b);
  b.Open(absl::StrCat("if (xt_mi < ", g.m, " && xt_ni < ", g.n, ")"));
  b.Linef("const float xt_accv = xt_acc[xt_x]", scale.empty() ? "" : " * ", scale, ";");
  if (s.splits > 1) {
    b.Linef("XT_G(xt_out)[((xt_split * ", g.batch, " + xt_bi) * ", g.m, " + xt_mi) * ",
            g.n, " + xt_ni] = xt_accv;");
  } else {
    ElementalEmitter epi = MakeEmitter("xt_ep");
    XTUNE_RETURN_IF_ERROR(EmitGemmResultStore(g, "xt_accv", out_type, &epi, &b));
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
