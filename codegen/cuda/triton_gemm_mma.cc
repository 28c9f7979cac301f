#include "codegen/cuda/triton_gemm_mma.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cuda/gemm_skeleton.h"
#include "codegen/cuda/kernel_frame.h"
#include "ir/dot_precision.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

using absl::StrCat;
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
  DType pack;      // f16, bf16, f32 (TF32), or f8e4m3fn (FP8, either type)
  bool tf32;
  bool fp8;
  int64_t kstep() const { return tf32 ? 8 : fp8 ? 32 : 16; }  // one mma's K
  int64_t per_chunk() const { return tf32 ? 4 : fp8 ? 16 : 8; }  // of 16 bytes
};

// An operand of the FP8 path: the e4m3/e5m2 parameter whose bytes the
// tensor cores read (a convert of it to f16/bf16/f32 is exact), and the
// broadcast scalar the operand multiplies it by in f32 (nullptr: none),
// which is applied to the accumulators instead (XLA's scaled FP8 pattern).
// A scale multiplied in f16/bf16 is not taken: each scaled element is
// rounded to 8 bits of mantissa there, which the accumulators cannot
// reproduce (relative errors of 2^-9 a product, beyond a bf16 result's
// tolerance where sums cancel); such operands go through the 16-bit path.
struct Fp8Operand {
  const Instruction* param = nullptr;
  const Instruction* scale = nullptr;
};

bool MmaFp8Type(DType t) { return t == DType::kF8E4M3FN || t == DType::kF8E5M2; }

std::optional<Fp8Operand> Fp8OperandOf(const Instruction* op) {
  Fp8Operand out;
  if (op->opcode() == Opcode::kMultiply) {
    if (op->shape().dtype() != DType::kF32) return std::nullopt;
    for (int i = 0; i < 2 && out.scale == nullptr; ++i) {
      const Instruction* b = op->operand(i);
      if (b->opcode() == Opcode::kBroadcast && b->operand(0)->shape().rank() == 0) {
        out.scale = b->operand(0);
        op = op->operand(1 - i);
      }
    }
    if (out.scale == nullptr) return std::nullopt;
  }
  if (op->opcode() == Opcode::kConvert) {
    const DType to = op->shape().dtype();
    if (to != DType::kF16 && to != DType::kBF16 && to != DType::kF32) return std::nullopt;
    op = op->operand(0);
  }
  if (op->opcode() != Opcode::kParameter || !MmaFp8Type(op->shape().dtype())) {
    return std::nullopt;
  }
  out.param = op;
  return out;
}

// Where one operand's tile sits in shared memory (one buffer of it), in
// 16-bit units.
struct TileLayout {
  bool k_major = true;  // rows are m (n), K contiguous; else rows are k
  int64_t rows = 0, row_halves = 0;
  int64_t param = -1;  // the parameter cp.async copies from, or -1
  int64_t halves() const { return rows * row_halves; }
  int64_t chunks() const { return row_halves / 8; }  // of 16 bytes a row
};

// `name`(r, c): the 16-bit offset in the buffer of chunk c of row r.
std::string SwizzleFunction(const char* name, const TileLayout& l) {
  const int64_t c = l.chunks();
  const int64_t step = std::max<int64_t>(1, 8 / c);
  const int64_t width = std::min<int64_t>(c, 8);
  return StrCat("XT_DEVICE int ", name, "(int xt_r, int xt_c) {\n  return xt_r * ",
                l.row_halves, " + ((xt_c ^ ((xt_r / ", step, ") % ", width,
                ")) << 3);\n}\n");
}

// Whether operand `operand` can be copied with cp.async from `op` (the
// dot's operand, or an FP8 operand's parameter): a parameter of type
// `pack` whose minor-most dimension is the dot's last contracting (K-major)
// or last free (MN-major) dimension, a multiple of 16 bytes.
std::optional<bool> AsyncKMajor(const cpu::GemmFusion& g, int operand,
                                const Instruction* op, DType pack) {
  if (op->opcode() != Opcode::kParameter || op->shape().dtype() != pack ||
      op->shape().rank() == 0) {
    return std::nullopt;
  }
  const Shape& s = op->shape();
  std::optional<cpu::GemmOperandDims> dims = cpu::OperandDimsOf(g, operand);
  if (!dims.has_value()) return std::nullopt;
  const std::vector<int64_t>& contracting = dims->contracting;
  const std::vector<int64_t>& free = dims->free;
  const int64_t minor = s.minor_to_major()[0];
  if (s.dim(minor) % (16 / DTypeByteSize(pack)) != 0) return std::nullopt;
  if (!contracting.empty() && minor == contracting.back()) return true;
  if (!free.empty() && minor == free.back()) return false;
  return std::nullopt;
}

// xt_load_a / xt_load_b: a thread's 32-bit words of the K-major A
// (bm x bk) or B^T (bn x bk) tile at k0 through the operand's producers:
// two 16-bit values along K (the lower K in the low half), one f32 rounded
// to TF32, or (FP8, `fp8` the parameter) four bytes of the parameter.
absl::Status EmitWordLoader(const Computation& fused, const cpu::GemmFusion& g,
                            const Mma& t, int operand, const Instruction* fp8,
                            std::string* globals, CodeBuffer* out) {
  const int64_t rows = operand == 0 ? t.bm : t.bn;
  const int64_t per_word = t.tf32 ? 1 : t.fp8 ? 4 : 2;
  const int64_t row_words = t.bk / per_word;
  const int64_t words = rows * row_words;
  const int64_t count = (words + t.threads - 1) / t.threads;
  out->Open(StrCat("XT_DEVICE void xt_load_", operand == 0 ? "a" : "b", "(",
                   ParameterDecls(fused),
                   "int64_t xt_bi, int64_t xt_r0, int64_t xt_k0, "
                   "int64_t xt_k_end, uint32_t* xt_r)"));
  out->Line("#pragma unroll");
  out->Linef("for (int xt_i = 0; xt_i < ", count, "; ++xt_i)");
  out->Open("");
  out->Linef("const int64_t xt_p = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
  out->Line("uint32_t xt_word = 0;");
  std::string row = operand == 0 ? "xt_mi" : "xt_ni";
  out->Linef("const int64_t ", row, " = xt_r0 + xt_p / ", row_words, ";");
  out->Line("#pragma unroll");
  out->Open(StrCat("for (int xt_h = 0; xt_h < ", per_word, "; ++xt_h)"));
  out->Linef("const int64_t xt_ki = xt_k0 + (xt_p % ", row_words, ") * ", per_word,
             " + xt_h;");
  out->Open(StrCat("if (xt_p < ", words, " && ", row, " < ", operand == 0 ? g.m : g.n,
                   " && xt_ki < xt_k_end)"));
  ElementalEmitter emitter = MakeEmitter(operand == 0 ? "xt_la" : "xt_lb");
  if (fp8 != nullptr) {
    std::vector<IndexExpr> index =
        *cpu::GemmOperandIndex(g, operand, "xt_bi", row, "xt_ki");  // no FP8 convolutions
    out->Linef("xt_word |= (uint32_t)XT_G(xt_p", fp8->attrs().parameter_number, ")[",
               cpu::PhysicalOffset(fp8->shape(), index).base, "] << (8 * xt_h);");
    out->Close();
    out->Close();
    out->Line("xt_r[xt_i] = xt_word;");
    out->Close();
    out->Close();
    return absl::OkStatus();
  }
  XTUNE_ASSIGN_OR_RETURN(std::string v,
                         cpu::EmitGemmOperand(emitter, g, operand, "xt_bi", row, "xt_ki", out));
  if (t.tf32) {
    out->Linef("xt_word = xt_f32_bits(xt_round_tf32((float)(", v, ")));");
  } else {
    out->Linef("xt_word |= (uint32_t)", ElementalEmitter::ToStorage(v, t.pack),
               " << (16 * xt_h);");
  }
  out->Close();
  out->Close();
  out->Line("xt_r[xt_i] = xt_word;");
  out->Close();
  out->Close();
  *globals += emitter.globals();
  return absl::OkStatus();
}

// The cp.async copies of operand `operand`'s tile (from parameter `src`)
// for the K step at `k0` into buffer `buf`; chunks outside M (N) or the
// split's K are zeroed.
void EmitIssue(const cpu::GemmFusion& g, const Mma& t, int operand,
               const Instruction* src, const TileLayout& l, const std::string& k0,
               const std::string& buf, CodeBuffer* b) {
  const char* tile = operand == 0 ? "xt_as" : "xt_bs";
  const char* view = operand == 0 ? "xt_as32" : "xt_bs32";
  const char* swz = operand == 0 ? "xt_swz_a" : "xt_swz_b";
  const std::string mn = operand == 0 ? "xt_mi" : "xt_ni";
  const char* r0 = operand == 0 ? "xt_m0" : "xt_n0";
  const int64_t extent = operand == 0 ? g.m : g.n;
  const int64_t chunks = l.chunks();
  const int64_t total = l.rows * chunks;
  const int64_t per_chunk = t.per_chunk();  // elements
  b->Line("#pragma unroll");
  b->Open(StrCat("for (int xt_i = 0; xt_i < ", (total + t.threads - 1) / t.threads,
                 "; ++xt_i)"));
  b->Linef("const int64_t xt_q = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
  b->Linef("const int64_t xt_r = xt_q / ", chunks, ", xt_c = xt_q % ", chunks, ";");
  if (l.k_major) {
    b->Linef("const int64_t ", mn, " = ", r0, " + xt_r, xt_ki = ", k0, " + xt_c * ",
             per_chunk, ";");
  } else {
    b->Linef("const int64_t xt_ki = ", k0, " + xt_r, ", mn, " = ", r0, " + xt_c * ",
             per_chunk, ";");
  }
  b->Linef("const int64_t xt_d = (int64_t)(", buf, ") * ", l.halves(), " + ", swz,
           "(xt_r, xt_c);");
  // Async operands are plain views (AsyncKMajor).
  std::vector<IndexExpr> index = *cpu::GemmOperandIndex(g, operand, "xt_bi", mn, "xt_ki");
  const std::string offset = cpu::PhysicalOffset(src->shape(), index).base;
  const bool partial = total % t.threads != 0;
  if (partial) b->Open(StrCat("if (xt_q < ", total, ")"));
  b->Open(StrCat("if (", mn, " < ", extent, " && xt_ki < xt_k_end)"));
  b->Linef("XT_CP_ASYNC16(", tile, ", xt_d, xt_p", l.param, ", ", offset, ");");
  b->Close();
  b->Open("else");
  b->Linef("for (int xt_z = 0; xt_z < 4; ++xt_z) XT_S(", view, ")[(xt_d >> 1) + xt_z] = 0u;");
  b->Close();
  if (partial) b->Close();
  b->Close();
}

// TF32: rounds, in place, the chunks of buffer `buf` this thread copied
// (they have landed; no other thread touches them before the barrier).
void EmitRoundOwnChunks(const Mma& t, int operand, const TileLayout& l,
                        const std::string& buf, CodeBuffer* b) {
  const char* view = operand == 0 ? "xt_as32" : "xt_bs32";
  const char* swz = operand == 0 ? "xt_swz_a" : "xt_swz_b";
  const int64_t total = l.rows * l.chunks();
  b->Line("#pragma unroll");
  b->Open(StrCat("for (int xt_i = 0; xt_i < ", (total + t.threads - 1) / t.threads,
                 "; ++xt_i)"));
  b->Linef("const int64_t xt_q = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
  if (total % t.threads != 0) b->Linef("if (xt_q >= ", total, ") break;");
  b->Linef("const int64_t xt_d = ((int64_t)(", buf, ") * ", l.halves(), " + ", swz,
           "(xt_q / ", l.chunks(), ", xt_q % ", l.chunks(), ")) >> 1;");
  b->Line("#pragma unroll");
  b->Linef("for (int xt_z = 0; xt_z < 4; ++xt_z) XT_S(", view,
           ")[xt_d + xt_z] = xt_f32_bits(xt_round_tf32(xt_bits_f32(XT_S(", view,
           ")[xt_d + xt_z])));");
  b->Close();
}

}  // namespace

absl::StatusOr<std::optional<CudaKernelSource>> MmaGemmKernel(
    const Computation& fused, const cpu::GemmFusion& g,
    const KernelConfig& config, DType out_type,
    const CudaKernelOptions& options) {
  DType lhs = g.dot->operand(0)->shape().dtype();
  DType rhs = g.dot->operand(1)->shape().dtype();
  Mma t;
  std::optional<Fp8Operand> f8[2];
  if (options.fp8_mma && !g.conv) {
    f8[0] = Fp8OperandOf(g.dot->operand(0));
    f8[1] = Fp8OperandOf(g.dot->operand(1));
  }
  t.fp8 = f8[0].has_value() && f8[1].has_value();
  t.tf32 = !t.fp8 && lhs == DType::kF32 && options.tf32 && DotAllowsTf32(*g.dot);
  if (!t.fp8 && (lhs != rhs || (lhs != DType::kF16 && lhs != DType::kBF16 && !t.tf32))) {
    return std::nullopt;
  }
  t.pack = t.fp8 ? DType::kF8E4M3FN : lhs;
  t.bm = config.Get("block_m", 0);
  t.bn = config.Get("block_n", 0);
  t.bk = config.Get("block_k", 0);
  t.splits = config.Get("split_k", 1);
  t.stages = config.Get("num_stages", 1);
  t.warps = config.Get("num_warps", 1);
  t.threads = t.warps * 32;
  if (t.bk % t.kstep() != 0 || t.bm % 16 != 0 || t.bn % 8 != 0) {
    return std::nullopt;
  }
  // Warps along m first (each at least 16 rows), the rest along n.
  t.wm = std::min(t.warps, t.bm / 16);
  while (t.warps % t.wm != 0) --t.wm;
  t.wn = t.warps / t.wm;
  if ((t.bn / t.wn) % 8 != 0 || t.bn / t.wn < 8) return std::nullopt;
  t.mt = t.bm / t.wm / 16;
  t.nt = t.bn / t.wn / 8;
  if (t.mt * 16 * t.wm != t.bm || t.nt * 8 * t.wn != t.bn) return std::nullopt;
  t.kc = KPerSplit(g.k, t.splits, t.bk);

  // Each tile: cp.async when the operand allows it, else K-major through
  // registers.
  // FP8 tiles are K-major (ldmatrix transposes 16-bit elements only).
  const int64_t k_halves = t.tf32 ? t.bk * 2 : t.fp8 ? t.bk / 2 : t.bk;  // a K-major row
  TileLayout la, lb;
  int64_t async_bytes = 0, register_bytes = 0;
  const Instruction* src[2] = {g.dot->operand(0), g.dot->operand(1)};
  if (t.fp8) src[0] = f8[0]->param, src[1] = f8[1]->param;
  for (auto [l, rows, operand] : {std::make_tuple(&la, t.bm, 0), std::make_tuple(&lb, t.bn, 1)}) {
    std::optional<bool> major = AsyncKMajor(
        g, operand, src[operand], t.fp8 ? src[operand]->shape().dtype() : t.pack);
    if (t.fp8 && major == false) major.reset();
    l->k_major = !major.has_value() || *major;
    l->rows = l->k_major ? rows : t.bk;
    l->row_halves = l->k_major ? k_halves : rows * (t.tf32 ? 2 : 1);
    if (major.has_value()) l->param = src[operand]->attrs().parameter_number;
    (major.has_value() ? async_bytes : register_bytes) += l->halves() * 2;
  }
  const bool async = la.param >= 0 || lb.param >= 0;
  const int64_t per_buffer = async_bytes + register_bytes;
  int64_t buffers = 1;
  if (async) {
    buffers = std::max<int64_t>(
        1, std::min<int64_t>(t.stages, (kMaxStaticShared - register_bytes) / async_bytes));
  }
  if (per_buffer > kMaxStaticShared || t.mt * t.nt * 4 > kMaxAccumulators) {
    return absl::InvalidArgumentError(StrCat(
        config.ToString(), ": ", per_buffer, " bytes of shared memory and ",
        t.mt * t.nt * 4, " accumulators a thread (at most ", kMaxStaticShared,
        " and ", kMaxAccumulators, ")"));
  }

  std::string globals = SwizzleFunction("xt_swz_a", la) + SwizzleFunction("xt_swz_b", lb);
  CodeBuffer loaders;
  for (int operand = 0; operand < 2; ++operand) {
    if ((operand == 0 ? la : lb).param >= 0) continue;
    XTUNE_RETURN_IF_ERROR(EmitWordLoader(fused, g, t, operand,
                                         t.fp8 ? src[operand] : nullptr, &globals,
                                         &loaders));
  }
  std::string mma = t.tf32                  ? "XT_MMA_M16N8K8_TF32"
                    : t.pack == DType::kF16 ? "XT_MMA_M16N8K16_F16"
                                            : "XT_MMA_M16N8K16_BF16";
  if (t.fp8) {
    auto name = [&](int i) { return src[i]->shape().dtype() == DType::kF8E5M2 ? "E5M2" : "E4M3"; };
    mma = StrCat("XT_MMA_M16N8K32_", name(0), "_", name(1));
  }
  GemmSkeleton k = SkeletonOf(config, g.k);
  k.accs = t.mt * t.nt * 4;
  k.tile_type = "uint16_t";
  k.tile_a = la.halves();
  k.tile_b = lb.halves();
  k.buffers = buffers;
  k.async[0] = la.param >= 0;
  k.async[1] = lb.param >= 0;
  k.word = "uint32_t";
  k.words_a = la.halves() / 2;
  k.words_b = lb.halves() / 2;
  k.store_word = [&](CodeBuffer* b, int operand) {
    const int64_t row_words = (operand == 0 ? la : lb).row_halves / 2;
    b->Linef("const int xt_rr = (int)xt_w / ", row_words, ", xt_x = (int)xt_w % ", row_words, ";");
    b->Linef("XT_S(", operand == 0 ? "xt_as32" : "xt_bs32", ")[(",
             operand == 0 ? "xt_swz_a" : "xt_swz_b",
             "(xt_rr, xt_x >> 2) >> 1) + (xt_x & 3)] = ", operand == 0 ? "xt_ra" : "xt_rb",
             "[xt_i];");
  };
  if (async) {
    k.issue = [&](CodeBuffer* b, const std::string& k0, const std::string& buf) {
      if (la.param >= 0) EmitIssue(g, t, 0, src[0], la, k0, buf, b);
      if (lb.param >= 0) EmitIssue(g, t, 1, src[1], lb, k0, buf, b);
    };
    if (t.tf32) {
      k.landed = [&](CodeBuffer* b, const std::string& buf) {
        if (la.param >= 0) EmitRoundOwnChunks(t, 0, la, buf, b);
        if (lb.param >= 0) EmitRoundOwnChunks(t, 1, lb, buf, b);
      };
    }
  }
  // The warp's mt x nt tiles of 16x8 start at (xt_wm0, xt_wn0) of the
  // block tile; xt_g / xt_t are the lane's groupID / threadID_in_group;
  // xt_l7, xt_l8, xt_l16 pick each lane's ldmatrix row.
  k.thread_setup = [&](CodeBuffer* b) {
    b->Line("XT_SHARED_VIEW(uint32_t, xt_as32, xt_as);");
    b->Line("XT_SHARED_VIEW(uint32_t, xt_bs32, xt_bs);");
    b->Line("const int xt_g = xt_lane() / 4, xt_t = xt_lane() % 4;");
    b->Line("const int xt_l7 = xt_lane() & 7, xt_l8 = (xt_lane() >> 3) & 1, "
            "xt_l16 = xt_lane() >> 4;");
    b->Linef("const int xt_wm0 = (xt_warp() / ", t.wn, ") * ", t.mt * 16,
             ", xt_wn0 = (xt_warp() % ", t.wn, ") * ", t.nt * 8, ";");
  };
  k.b_coordinates = [](const std::string& k0) { return "xt_n0, " + k0; };
  // One mma's K is 32 bytes of a K-major row: 16 f16/bf16, 8 f32 or 32
  // FP8. In K-major tiles the step's chunk is xt_kk / (16 / element bytes);
  // an FP8 m16n8k32 fragment has the bytes of an f16 m16n8k16 one, so the
  // same ldmatrix loads it.
  const std::string kchunk = t.tf32 ? "(xt_kk >> 2)" : t.fp8 ? "(xt_kk >> 4)" : "(xt_kk >> 3)";
  // An f32 of an MN-major TF32 tile: row r (k), element e (m or n).
  auto f32_at = [](const char* view, const char* base, const char* swz,
                   const std::string& r, const std::string& e) {
    return StrCat("XT_S(", view, ")[", base, " + (", swz, "(", r, ", (", e,
                  ") >> 2) >> 1) + ((", e, ") & 3)]");
  };
  // Where this step's tiles start: async tiles in buffer xt_buf.
  const std::string abase = la.param >= 0 ? StrCat("xt_buf * ", la.halves(), " + ") : "";
  const std::string bbase = lb.param >= 0 ? StrCat("xt_buf * ", lb.halves(), " + ") : "";
  k.compute = [&](CodeBuffer* b) {
    b->Line("#pragma unroll");
    b->Open(StrCat("for (int xt_kk = 0; xt_kk < ", t.bk, "; xt_kk += ", t.kstep(), ")"));
    b->Linef("uint32_t xt_fa[", t.mt, "][4], xt_fb[", t.nt, "][2];");
    b->Line("#pragma unroll");
    b->Open(StrCat("for (int xt_i = 0; xt_i < ", t.mt, "; ++xt_i)"));
    if (la.k_major) {
      b->Linef("XT_LDMATRIX_X4(xt_fa[xt_i], xt_as, ", abase,
               "xt_swz_a(xt_wm0 + xt_i * 16 + xt_l7 + xt_l8 * 8, ", kchunk,
               " + xt_l16));");
    } else if (!t.tf32) {
      b->Linef("XT_LDMATRIX_X4_T(xt_fa[xt_i], xt_as, ", abase,
               "xt_swz_a(xt_kk + xt_l7 + xt_l16 * 8, ((xt_wm0 + xt_i * 16) >> 3) + xt_l8));");
    } else {
      // a0..a3: (m, k) = (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4).
      b->Linef("const int64_t xt_ab = (", abase, "0) / 2, xt_am = xt_wm0 + xt_i * 16 + xt_g;");
      for (int r = 0; r < 4; ++r) {
        std::string row = StrCat("xt_kk + xt_t + ", (r / 2) * 4);
        std::string col = StrCat("xt_am + ", (r % 2) * 8);
        std::string at = f32_at("xt_as32", "xt_ab", "xt_swz_a", row, col);
        b->Linef("xt_fa[xt_i][", r, "] = ", at, ";");
      }
    }
    b->Close();
    b->Line("#pragma unroll");
    b->Open(StrCat("for (int xt_j = 0; xt_j < ", t.nt, "; ++xt_j)"));
    if (lb.k_major) {
      b->Linef("XT_LDMATRIX_X2(xt_fb[xt_j], xt_bs, ", bbase,
               "xt_swz_b(xt_wn0 + xt_j * 8 + xt_l7, ", kchunk, " + xt_l8));");
    } else if (!t.tf32) {
      b->Linef("XT_LDMATRIX_X2_T(xt_fb[xt_j], xt_bs, ", bbase,
               "xt_swz_b(xt_kk + xt_l7 + xt_l8 * 8, (xt_wn0 + xt_j * 8) >> 3));");
    } else {
      // b0, b1: (k, n) = (t, g), (t + 4, g).
      b->Linef("const int64_t xt_bb = (", bbase, "0) / 2, xt_bn = xt_wn0 + xt_j * 8 + xt_g;");
      for (int r = 0; r < 2; ++r) {
        std::string at = f32_at("xt_bs32", "xt_bb", "xt_swz_b",
                                StrCat("xt_kk + xt_t + ", r * 4), "xt_bn");
        b->Linef("xt_fb[xt_j][", r, "] = ", at, ";");
      }
    }
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
  if (t.fp8 && (f8[0]->scale != nullptr || f8[1]->scale != nullptr)) {
    k.acc_scale = [&](CodeBuffer* b, std::string* more) -> absl::StatusOr<std::string> {
      ElementalEmitter e = MakeEmitter("xt_sc");
      std::string product;
      for (int operand = 0; operand < 2; ++operand) {
        if (f8[operand]->scale == nullptr) continue;
        XTUNE_ASSIGN_OR_RETURN(std::string v, e.Emit(f8[operand]->scale, {}, b));
        b->Linef("const float xt_scale", operand, " = (float)(", v, ");");
        product += StrCat(product.empty() ? "" : " * ", "xt_scale", operand);
      }
      *more += e.globals();
      return StrCat("(", product, ")");
    };
  }
  XTUNE_ASSIGN_OR_RETURN(CudaKernelSource kernel,
                         EmitGemmKernel(fused, g, k, out_type, options,
                                        std::move(globals), loaders));
  return std::optional<CudaKernelSource>(std::move(kernel));
}

}  // namespace xtune::cuda
