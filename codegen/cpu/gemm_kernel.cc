// Gemm fusion kernels.
//
// "cpu_gemm": a BLIS-style blocked gemm generated for the fusion. B is
// packed in kc x nc blocks of NR-wide panels, A in mc x kc blocks of MR-tall
// panels; operand producers (converts from s8/f16/bf16, transposes,
// bitcasts) run inside the packing. An MR x NR register-tiled micro-kernel
// (GCC vector types, FMA) accumulates each tile; partial sums over K blocks
// go to an f32 accumulator (the output itself when it is a plain f32
// matrix), and the last K block applies the fused epilogue to each tile row
// while it is hot and stores it. split_k > 1 computes K ranges in parallel
// into partial buffers and applies the epilogue in a final pass.
//
// "cpu_gemm_blas": OpenBLAS sgemm on the operands (passed in place when they
// are f32 matrices with a unit stride, else materialized), then a separate
// epilogue pass — what a user would write by hand.
#include "absl/strings/str_cat.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cpu/kernel_source.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

// Parameter pointers of the fused computation, as locals.
void EmitPointers(const Computation& fused, CodeBuffer* out) {
  for (int64_t i = 0; i < fused.parameter_count(); ++i) {
    out->Linef("const auto* __restrict xt_p", i, " = ", InputPointer(fused, i), ";");
  }
}

// xt_a(in, b, m, k) and xt_b(in, b, k, n): operand elements as float.
absl::Status EmitOperandReaders(const Computation& fused, const GemmFusion& g,
                                std::string* globals, CodeBuffer* out) {
  auto pointer = [](int64_t i) { return absl::StrCat("xt_p", i); };
  for (int operand = 0; operand < 2; ++operand) {
    ElementalEmitter emitter(1, pointer, absl::StrCat("xt_op", operand, "const"));
    out->Open(absl::StrCat("XT_INLINE float ", operand == 0 ? "xt_a" : "xt_b",
                           "(const void* const* xt_in, int64_t xt_bi, int64_t ",
                           operand == 0 ? "xt_mi, int64_t xt_ki" : "xt_ki, int64_t xt_ni",
                           ")"));
    EmitPointers(fused, out);
    XTUNE_ASSIGN_OR_RETURN(std::string v,
                           EmitGemmOperand(emitter, g, operand, "xt_bi",
                                           operand == 0 ? "xt_mi" : "xt_ni", "xt_ki", out));
    if (DotOperandNeedsRounding(*g.dot, operand)) {
      v = ElementalEmitter::RoundTo(v, g.dot->operand(operand)->shape().dtype());
    }
    out->Linef("return (float)(", v, ");");
    out->Close();
    *globals += emitter.globals();
  }
  if (g.conv) {
    // xt_a_conv(in, m, kpos, c): the input element of output position m,
    // kernel position kpos and feature c, for the packing that walks each
    // kernel position's features (XT_CONV_C of them) at once.
    ElementalEmitter emitter(1, pointer, "xt_acconst");
    out->Open("XT_INLINE float xt_a_conv(const void* const* xt_in, int64_t xt_mi, "
              "int64_t xt_kp, int64_t xt_ci)");
    EmitPointers(fused, out);
    XTUNE_ASSIGN_OR_RETURN(std::string v, EmitConvInput(emitter, g, "xt_mi", "xt_kp", "xt_ci", out));
    if (DotOperandNeedsRounding(*g.dot, 0)) {
      v = ElementalEmitter::RoundTo(v, g.dot->operand(0)->shape().dtype());
    }
    out->Linef("return (float)(", v, ");");
    out->Close();
    *globals += emitter.globals();
  }
  return absl::OkStatus();
}

// xt_epilogue_row(in, out, vals, b, m, n0, count): applies the epilogue to
// `count` accumulated values of row m starting at column n0 and stores them.
absl::Status EmitEpilogueRow(const Computation& fused, const GemmFusion& g,
                             int width, std::string* globals, CodeBuffer* out) {
  const Shape& es = g.epilogue_root->shape();
  DType t = fused.root()->shape().dtype();
  auto pointer = [](int64_t i) { return absl::StrCat("xt_p", i); };
  out->Open(
      "static void xt_epilogue_row(const void* const* xt_in, xt_out_t* "
      "__restrict xt_out, const float* __restrict xt_vals, int64_t xt_bi, "
      "int64_t xt_mi, int64_t xt_n0, int64_t xt_count)");
  EmitPointers(fused, out);
  out->Line("int64_t xt_j = 0;");
  if (g.vector_epilogue && width > 1) {
    ElementalEmitter vec(width, pointer, "xt_epv");
    out->Open("for (; xt_j + XT_W <= xt_count; xt_j += XT_W)");
    out->Line("const xt_vf xt_acc = xt_load(xt_vals + xt_j);");
    out->Line("const int64_t xt_ni = xt_n0 + xt_j;");
    vec.Bind(g.dot, "xt_acc");
    std::vector<IndexExpr> index = GemmResultIndex(g, "xt_bi", "xt_mi", "xt_ni", 1);
    XTUNE_ASSIGN_OR_RETURN(std::string v, vec.Emit(g.epilogue_root, index, out));
    IndexExpr at = PhysicalOffset(es, index);
    switch (t) {
      case DType::kF32: out->Linef("xt_store(xt_out + ", at.base, ", ", v, ");"); break;
      case DType::kF16: out->Linef("xt_store_h(xt_out + ", at.base, ", ", v, ");"); break;
      case DType::kBF16: out->Linef("xt_store_bf(xt_out + ", at.base, ", ", v, ");"); break;
      default:
        if (IsFp8(t)) {
          out->Linef("for (int l = 0; l < XT_W; ++l) xt_out[", at.base, " + l] = ",
                     ElementalEmitter::ToStorage(absl::StrCat(v, "[l]"), t), ";");
          break;
        }
        out->Linef("for (int l = 0; l < XT_W; ++l) xt_out[", at.base, " + l] = ", v,
                   "[l] ? 1 : 0;");
    }
    out->Close();
    *globals += vec.globals();
  }
  ElementalEmitter sca(1, pointer, "xt_eps");
  out->Open("for (; xt_j < xt_count; ++xt_j)");
  out->Line("const float xt_acc = xt_vals[xt_j];");
  out->Line("const int64_t xt_ni = xt_n0 + xt_j;");
  sca.Bind(g.dot, "xt_acc");
  std::vector<IndexExpr> index = GemmResultIndex(g, "xt_bi", "xt_mi", "xt_ni", 0);
  XTUNE_ASSIGN_OR_RETURN(std::string v, sca.Emit(g.epilogue_root, index, out));
  out->Linef("xt_out[", PhysicalOffset(es, index).base, "] = ",
             ElementalEmitter::ToStorage(v, t), ";");
  out->Close();
  out->Close();
  *globals += sca.globals();
  return absl::OkStatus();
}

std::string Common(const Computation& fused, const GemmFusion& g, int width) {
  std::string s = KernelHeader(width);
  absl::StrAppend(&s, "typedef ",
                  ElementalEmitter::StorageType(fused.root()->shape().dtype()),
                  " xt_out_t;\n");
  absl::StrAppend(&s, "static const int64_t XT_BATCH = ", g.batch, ", XT_M = ", g.m,
                  ", XT_N = ", g.n, ", XT_K = ", g.k, ";\n");
  absl::StrAppend(&s, "static const int XT_PLAIN_OUT = ", g.output_is_plain_f32 ? 1 : 0,
                  ";\n");
  return s;
}

// The blocked gemm driver; assumes XT_MR, XT_NR, xt_a, xt_b and
// xt_epilogue_row are defined.
constexpr char kBlockedGemm[] = R"cc(
#define XT_NV (XT_NR / XT_W)
static inline int64_t xt_min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t xt_round_up(int64_t a, int64_t b) { return (a + b - 1) / b * b; }
static float* xt_alloc(int64_t n) {
  size_t bytes = (size_t)xt_round_up(n > 0 ? n : 1, 16) * sizeof(float);
  return (float*)aligned_alloc(64, bytes);
}

#ifdef XT_CONV_C
// A convolution's patches: k runs over kernel positions, XT_CONV_C features
// each; the window of one (row, kernel position) is decided once per run.
static void xt_pack_a(const void* const* xt_in, int64_t b, int64_t i0, int64_t mb,
                      int64_t k0, int64_t kb, float* __restrict ap) {
  (void)b;
  for (int64_t ip = 0; ip < mb; ip += XT_MR) {
    for (int r = 0; r < XT_MR; ++r) {
      float* dst = ap + ip * kb + r;
      if (ip + r < mb) {
        const int64_t m = i0 + ip + r;
        for (int64_t k = k0; k < k0 + kb;) {
          const int64_t kp = k / XT_CONV_C, c0 = k % XT_CONV_C;
          const int64_t run = xt_min64(XT_CONV_C - c0, k0 + kb - k);
          float* d = dst + (k - k0) * XT_MR;
          for (int64_t j = 0; j < run; ++j) d[j * XT_MR] = xt_a_conv(xt_in, m, kp, c0 + j);
          k += run;
        }
      } else {
        for (int64_t k = 0; k < kb; ++k) dst[k * XT_MR] = 0.0f;
      }
    }
  }
}
#else
static void xt_pack_a(const void* const* xt_in, int64_t b, int64_t i0, int64_t mb,
                      int64_t k0, int64_t kb, float* __restrict ap) {
  for (int64_t ip = 0; ip < mb; ip += XT_MR) {
    for (int r = 0; r < XT_MR; ++r) {
      float* dst = ap + ip * kb + r;
      if (ip + r < mb) {
        int64_t m = i0 + ip + r;
        for (int64_t k = 0; k < kb; ++k) dst[k * XT_MR] = xt_a(xt_in, b, m, k0 + k);
      } else {
        for (int64_t k = 0; k < kb; ++k) dst[k * XT_MR] = 0.0f;
      }
    }
  }
}

#endif

static void xt_pack_b(const void* const* xt_in, int64_t b, int64_t j0, int64_t nb,
                      int64_t k0, int64_t kb, float* __restrict bp) {
  for (int64_t jp = 0; jp < nb; jp += XT_NR) {
    if (jp + XT_NR <= nb) {
      for (int64_t k = 0; k < kb; ++k) {
        float* dst = bp + jp * kb + k * XT_NR;
        for (int c = 0; c < XT_NR; ++c) dst[c] = xt_b(xt_in, b, k0 + k, j0 + jp + c);
      }
    } else {
      for (int64_t k = 0; k < kb; ++k) {
        float* dst = bp + jp * kb + k * XT_NR;
        for (int c = 0; c < XT_NR; ++c) {
          dst[c] = jp + c < nb ? xt_b(xt_in, b, k0 + k, j0 + jp + c) : 0.0f;
        }
      }
    }
  }
}

XT_INLINE void xt_micro(int64_t kb, const float* __restrict a,
                        const float* __restrict bp, float* __restrict tile) {
  xt_vf c[XT_MR][XT_NV];
#pragma GCC unroll 64
  for (int i = 0; i < XT_MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < XT_NV; ++v) c[i][v] = xt_vsplat(0.0f);
#pragma GCC unroll 2
  for (int64_t k = 0; k < kb; ++k) {
    xt_vf bv[XT_NV];
#pragma GCC unroll 8
    for (int v = 0; v < XT_NV; ++v) bv[v] = xt_load(bp + k * XT_NR + v * XT_W);
#pragma GCC unroll 64
    for (int i = 0; i < XT_MR; ++i) {
      const xt_vf av = xt_vsplat(a[k * XT_MR + i]);
#pragma GCC unroll 8
      for (int v = 0; v < XT_NV; ++v) c[i][v] += av * bv[v];
    }
  }
#pragma GCC unroll 64
  for (int i = 0; i < XT_MR; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < XT_NV; ++v) xt_store(tile + i * XT_NR + v * XT_W, c[i][v]);
}

struct XtBlock {
  const void* const* in;
  xt_out_t* out;
  float* acc;        // f32 [M, N] partial sums of this batch, or null
  const float* bp;   // packed B block
  int64_t b, jc, nb, pc, kb, mc, n_chunk, n_tasks_n;
  int first, last;
};

static void xt_block_task(void* arg, int64_t t) {
  const XtBlock* g = (const XtBlock*)arg;
  int64_t i0 = (t / g->n_tasks_n) * g->mc;
  int64_t mb = xt_min64(g->mc, XT_M - i0);
  int64_t jr0 = (t % g->n_tasks_n) * g->n_chunk;
  int64_t jr1 = xt_min64(g->nb, jr0 + g->n_chunk);
  if (mb <= 0 || jr0 >= jr1) return;
  float* ap = xt_alloc(xt_round_up(mb, XT_MR) * g->kb);
  xt_pack_a(g->in, g->b, i0, mb, g->pc, g->kb, ap);
  float tile[XT_MR * XT_NR] __attribute__((aligned(64)));
  for (int64_t jr = jr0; jr < jr1; jr += XT_NR) {
    int64_t cols = xt_min64(XT_NR, g->nb - jr);
    for (int64_t ir = 0; ir < mb; ir += XT_MR) {
      xt_micro(g->kb, ap + ir * g->kb, g->bp + jr * g->kb, tile);
      int64_t rows = xt_min64(XT_MR, mb - ir);
      for (int64_t i = 0; i < rows; ++i) {
        int64_t m = i0 + ir + i;
        int64_t n0 = g->jc + jr;
        float* row = tile + i * XT_NR;
        if (g->acc) {
          float* crow = g->acc + m * XT_N + n0;
          if (!g->first) {
            for (int64_t c = 0; c < cols; ++c) row[c] += crow[c];
          }
          if (!g->last) {
            for (int64_t c = 0; c < cols; ++c) crow[c] = row[c];
            continue;
          }
        }
        xt_epilogue_row(g->in, g->out, row, g->b, m, n0, cols);
      }
    }
  }
  free(ap);
}

struct XtPackB {
  const void* const* in;
  float* bp;
  int64_t b, jc, nb, pc, kb, chunk;
};

static void xt_pack_b_task(void* arg, int64_t t) {
  const XtPackB* g = (const XtPackB*)arg;
  int64_t j0 = t * g->chunk;
  if (j0 >= g->nb) return;
  xt_pack_b(g->in, g->b, g->jc + j0, xt_min64(g->chunk, g->nb - j0), g->pc,
            g->kb, g->bp + j0 * g->kb);
}

// C[b] over K range [k_begin, k_end): partial sums into acc (when
// `finish` is false) or through the epilogue into out.
static void xt_gemm(const void* const* in, xt_out_t* out, float* acc, int64_t b,
                    int64_t k_begin, int64_t k_end, int finish, int64_t mc,
                    int64_t nc, int64_t kc, int64_t threads,
                    const XtContext* ctx) {
  float* bp = xt_alloc(xt_round_up(nc, XT_NR) * kc);
  // Few row blocks for the threads: even them out so no thread waits on a
  // lone remainder block.
  if (threads > 1 && (XT_M + mc - 1) / mc < 2 * threads) {
    int64_t even = xt_round_up((XT_M + threads - 1) / threads, XT_MR);
    if (even < mc) mc = even;
  }
  int64_t tasks_m = (XT_M + mc - 1) / mc;
  for (int64_t jc = 0; jc < XT_N; jc += nc) {
    int64_t nb = xt_min64(nc, XT_N - jc);
    int64_t panels = (nb + XT_NR - 1) / XT_NR;
    int64_t tasks_n = 1;
    if (threads > tasks_m) tasks_n = xt_min64(panels, (threads + tasks_m - 1) / tasks_m);
    int64_t n_chunk = (panels + tasks_n - 1) / tasks_n * XT_NR;
    tasks_n = (nb + n_chunk - 1) / n_chunk;
    for (int64_t pc = k_begin; pc < k_end || (pc == k_begin && k_end == k_begin); pc += kc) {
      int64_t kb = xt_min64(kc, k_end - pc);
      if (threads > 1 && panels > 1) {
        // Packing B is O(K N): shared among the threads, or it dominates
        // short, wide problems (M = 128).
        int64_t chunk = (panels + threads - 1) / threads * XT_NR;
        XtPackB pk = {in, bp, b, jc, nb, pc, kb, chunk};
        ctx->parallel_for(ctx->pool, (nb + chunk - 1) / chunk, threads,
                          xt_pack_b_task, &pk);
      } else {
        xt_pack_b(in, b, jc, nb, pc, kb, bp);
      }
      XtBlock blk = {in, out, acc, bp, b, jc, nb, pc, kb, mc, n_chunk, tasks_n,
                     pc == k_begin, finish && pc + kc >= k_end};
      if (tasks_m * tasks_n == 1 || threads == 1) {
        for (int64_t t = 0; t < tasks_m * tasks_n; ++t) xt_block_task(&blk, t);
      } else {
        ctx->parallel_for(ctx->pool, tasks_m * tasks_n, threads, xt_block_task, &blk);
      }
      if (k_end == k_begin) break;
    }
  }
  free(bp);
}

struct XtSplit {
  const void* const* in;
  float* partials;  // [splits][M*N]
  int64_t b, splits, mc, nc, kc;
  const XtContext* ctx;
};

static void xt_split_task(void* arg, int64_t s) {
  const XtSplit* g = (const XtSplit*)arg;
  int64_t per = (XT_K + g->splits - 1) / g->splits;
  int64_t k0 = xt_min64(XT_K, s * per), k1 = xt_min64(XT_K, k0 + per);
  float* acc = g->partials + s * XT_M * XT_N;
  if (k0 >= k1) {
    for (int64_t i = 0; i < XT_M * XT_N; ++i) acc[i] = 0.0f;
    return;
  }
  xt_gemm(g->in, (xt_out_t*)0, acc, g->b, k0, k1, 0, g->mc, g->nc, g->kc, 1, g->ctx);
}

struct XtReduceRows {
  const void* const* in;
  xt_out_t* out;
  const float* partials;
  int64_t b, splits;
};

static void xt_reduce_rows_task(void* arg, int64_t m) {
  const XtReduceRows* g = (const XtReduceRows*)arg;
  float* row = xt_alloc(XT_N);
  for (int64_t n = 0; n < XT_N; ++n) row[n] = g->partials[m * XT_N + n];
  for (int64_t s = 1; s < g->splits; ++s) {
    const float* p = g->partials + s * XT_M * XT_N + m * XT_N;
    for (int64_t n = 0; n < XT_N; ++n) row[n] += p[n];
  }
  xt_epilogue_row(g->in, g->out, row, g->b, m, 0, XT_N);
  free(row);
}

extern "C" void xtune_kernel(const void* const* in, void* out_ptr,
                             const int64_t* config, const XtContext* ctx) {
  xt_out_t* out = (xt_out_t*)out_ptr;
  int64_t mc = xt_round_up(config[0] > 0 ? config[0] : XT_MR, XT_MR);
  int64_t nc = xt_round_up(config[1] > 0 ? config[1] : XT_NR, XT_NR);
  int64_t kc = config[2] > 0 ? config[2] : 256;
  int64_t splits = config[5] > 1 ? config[5] : 1;
  int64_t threads = config[6] > 0 ? config[6] : 1;
  if (splits > 1) {
    float* partials = xt_alloc(splits * XT_M * XT_N);
    for (int64_t b = 0; b < XT_BATCH; ++b) {
      XtSplit sp = {in, partials, b, splits, mc, nc, kc, ctx};
      ctx->parallel_for(ctx->pool, splits, threads, xt_split_task, &sp);
      XtReduceRows rr = {in, out, partials, b, splits};
      ctx->parallel_for(ctx->pool, XT_M, threads, xt_reduce_rows_task, &rr);
    }
    free(partials);
    return;
  }
  float* scratch = 0;
  if (XT_K > kc && !XT_PLAIN_OUT) scratch = xt_alloc(XT_M * XT_N);
  for (int64_t b = 0; b < XT_BATCH; ++b) {
    float* acc = 0;
    if (XT_K > kc) acc = XT_PLAIN_OUT ? (float*)out + b * XT_M * XT_N : scratch;
    xt_gemm(in, out, acc, b, 0, XT_K, 1, mc, nc, kc, threads, ctx);
  }
  free(scratch);
}
)cc";

// The OpenBLAS variant; assumes xt_a, xt_b, xt_epilogue_row.
constexpr char kBlasGemm[] = R"cc(
static float* xt_alloc(int64_t n) {
  size_t bytes = (size_t)((n > 0 ? n : 1) + 15) / 16 * 16 * sizeof(float);
  return (float*)aligned_alloc(64, bytes);
}
struct XtEpi { const void* const* in; xt_out_t* out; const float* c; int64_t b; };
static void xt_epi_task(void* arg, int64_t m) {
  const XtEpi* g = (const XtEpi*)arg;
  xt_epilogue_row(g->in, g->out, g->c + m * XT_N, g->b, m, 0, XT_N);
}
extern "C" void xtune_kernel(const void* const* in, void* out_ptr,
                             const int64_t* config, const XtContext* ctx) {
  xt_out_t* out = (xt_out_t*)out_ptr;
  int64_t threads = config[0] > 0 ? config[0] : 1;
  ctx->set_blas_threads((int)threads);
  float* a = XT_A_DIRECT ? 0 : xt_alloc(XT_M * XT_K);
  float* bm = XT_B_DIRECT ? 0 : xt_alloc(XT_K * XT_N);
  float* c = XT_PLAIN_OUT ? 0 : xt_alloc(XT_M * XT_N);
  for (int64_t b = 0; b < XT_BATCH; ++b) {
    const float* pa;
    const float* pb;
    int lda, ldb, ta, tb;
    if (XT_A_DIRECT) {
      pa = (const float*)in[XT_A_PARAM] + b * XT_A_BSTRIDE;
      lda = XT_A_LD; ta = XT_A_TRANS;
    } else {
      for (int64_t m = 0; m < XT_M; ++m)
        for (int64_t k = 0; k < XT_K; ++k) a[m * XT_K + k] = xt_a(in, b, m, k);
      pa = a; lda = (int)XT_K; ta = 111;
    }
    if (XT_B_DIRECT) {
      pb = (const float*)in[XT_B_PARAM] + b * XT_B_BSTRIDE;
      ldb = XT_B_LD; tb = XT_B_TRANS;
    } else {
      for (int64_t k = 0; k < XT_K; ++k)
        for (int64_t n = 0; n < XT_N; ++n) bm[k * XT_N + n] = xt_b(in, b, k, n);
      pb = bm; ldb = (int)XT_N; tb = 111;
    }
    float* cc = XT_PLAIN_OUT ? (float*)out + b * XT_M * XT_N : c;
    /* CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 */
    ctx->sgemm(101, ta, tb, (int)XT_M, (int)XT_N, (int)XT_K, 1.0f, pa, lda, pb,
               ldb, 0.0f, cc, (int)XT_N);
    if (!XT_PLAIN_OUT) {
      XtEpi e = {in, out, c, b};
      if (threads == 1) {
        for (int64_t m = 0; m < XT_M; ++m) xt_epi_task(&e, m);
      } else {
        ctx->parallel_for(ctx->pool, XT_M, threads, xt_epi_task, &e);
      }
    }
  }
  free(a);
  free(bm);
  free(c);
}
)cc";

// Whether dot operand `operand` is an f32 parameter readable in place by
// sgemm: one free and one contracting dimension, one of them with unit
// physical stride. Fills the defines for it.
std::string DirectOperand(const GemmFusion& g, int operand) {
  const Instruction* op = g.dot->operand(operand);
  std::string p = operand == 0 ? "XT_A" : "XT_B";
  std::string no = absl::StrCat("#define ", p, "_DIRECT 0\n#define ", p,
                                "_PARAM 0\n#define ", p, "_BSTRIDE 0\n#define ", p,
                                "_LD 0\n#define ", p, "_TRANS 111\n");
  if (op->opcode() != Opcode::kParameter || op->shape().dtype() != DType::kF32) {
    return no;
  }
  std::optional<GemmOperandDims> dims = OperandDimsOf(g, operand);
  if (!dims.has_value()) return no;
  const std::vector<int64_t>& batch = dims->batch;
  const std::vector<int64_t>& contracting = dims->contracting;
  const Shape& s = op->shape();
  if (contracting.size() != 1 ||
      s.rank() != static_cast<int64_t>(batch.size()) + 2) {
    return no;
  }
  int64_t kdim = contracting[0];
  int64_t fdim = -1;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d != kdim && std::find(batch.begin(), batch.end(), d) == batch.end()) fdim = d;
  }
  std::vector<int64_t> strides = s.PhysicalStrides();
  // Batches must be laid out one after another.
  int64_t bstride = s.dim(kdim) * s.dim(fdim);
  if (!batch.empty()) {
    int64_t expect = bstride;
    for (int64_t i = static_cast<int64_t>(batch.size()) - 1; i >= 0; --i) {
      if (strides[batch[i]] != expect) return no;
      expect *= s.dim(batch[i]);
    }
  }
  // Row-major operand means "no transpose" in sgemm's terms: for A that is
  // unit stride along k, for B unit stride along n (the free dim).
  int64_t unit = operand == 0 ? kdim : fdim;
  int64_t other = operand == 0 ? fdim : kdim;
  int trans;
  int64_t ld;
  if (strides[unit] == 1 && (s.dim(other) == 1 || strides[other] == s.dim(unit))) {
    trans = 111;
    ld = std::max<int64_t>(s.dim(unit), 1);
  } else if (strides[other] == 1 && (s.dim(unit) == 1 || strides[unit] == s.dim(other))) {
    trans = 112;
    ld = std::max<int64_t>(s.dim(other), 1);
  } else {
    return no;
  }
  return absl::StrCat("#define ", p, "_DIRECT 1\n#define ", p, "_PARAM ",
                      op->attrs().parameter_number, "\n#define ", p, "_BSTRIDE ",
                      bstride, "\n#define ", p, "_LD ", ld, "\n#define ", p,
                      "_TRANS ", trans, "\n");
}

}  // namespace

absl::StatusOr<std::string> GemmKernelSource(const Computation& fused,
                                             const KernelConfig& config,
                                             int simd_width) {
  XTUNE_ASSIGN_OR_RETURN(GemmFusion g, AnalyzeGemmFusion(fused));
  bool blas = config.kind() == "cpu_gemm_blas";
  int width = simd_width;
  int64_t mr = config.Get("mr", 4), nr = config.Get("nr", 8);
  if (!blas && (mr < 1 || nr < width || nr % width != 0 || mr > 16 || nr > 64)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "register tile ", mr, "x", nr, " does not fit vectors of ", width));
  }
  std::string globals;
  CodeBuffer code;
  XTUNE_RETURN_IF_ERROR(EmitOperandReaders(fused, g, &globals, &code));
  XTUNE_RETURN_IF_ERROR(EmitEpilogueRow(fused, g, width, &globals, &code));
  std::string src = Common(fused, g, width);
  if (blas) {
    src += DirectOperand(g, 0);
    src += DirectOperand(g, 1);
    src += globals;
    src += code.text();
    src += kBlasGemm;
  } else {
    absl::StrAppend(&src, "#define XT_MR ", mr, "\n#define XT_NR ", nr, "\n");
    if (g.conv) {
      absl::StrAppend(&src, "#define XT_CONV_C ",
                      g.dot->operand(1)->shape().dim(g.dot->attrs().conv.kernel_input_feature),
                      "\n");
    }
    src += globals;
    src += code.text();
    src += kBlockedGemm;
  }
  return src;
}

}  // namespace xtune::cpu
