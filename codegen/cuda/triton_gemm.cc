#include "codegen/cuda/triton_gemm.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cpu/code_buffer.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cuda/gemm_skeleton.h"
#include "codegen/cuda/kernel_frame.h"
#include "codegen/cuda/library_gemm.h"
#include "codegen/cuda/triton_gemm_mma.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

using cpu::CodeBuffer;
using cpu::ElementalEmitter;
using cpu::IndexExpr;

constexpr int64_t kMaxStaticShared = 48 * 1024;  // without opt-in
constexpr int64_t kMaxAccumulators = 64;         // a thread's, in registers

bool PowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t NextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

struct Tiling {
  int64_t bm, bn, bk, splits, stages, warps;
  int64_t threads, tm, tn, rm, rn;  // thread grid and micro-tile
  int64_t kc;                       // K per split, a multiple of bk
};

// The CUDA-core tiling of a config CheckCommon accepted.
absl::StatusOr<Tiling> Plan(const cpu::GemmFusion& g, const KernelConfig& c) {
  // The config's fields, read where the skeleton reads them.
  const GemmSkeleton s = SkeletonOf(c, g.k);
  Tiling t;
  t.bm = s.bm;
  t.bn = s.bn;
  t.bk = s.bk;
  t.splits = s.splits;
  t.stages = s.stages;
  t.threads = s.threads;
  t.warps = s.threads / 32;
  t.kc = s.kc;
  // A square-ish thread grid over the tile, columns fastest (coalesced
  // stores along n).
  int64_t side = 1;
  while (side * side < t.threads) side *= 2;
  t.tn = std::min(t.bn, side);
  t.tm = t.threads / t.tn;
  if (t.tm > t.bm) {
    t.tm = t.bm;
    t.tn = t.threads / t.tm;
  }
  if (t.tn > t.bn || t.tm * t.tn != t.threads) {
    return absl::InvalidArgumentError(absl::StrCat(
        c.ToString(), ": ", t.threads, " threads for a ", t.bm, "x", t.bn,
        " tile (more threads than outputs)"));
  }
  t.rm = t.bm / t.tm;
  t.rn = t.bn / t.tn;
  int64_t shared = (t.bm * t.bk + t.bk * t.bn) * 4;
  if (shared > kMaxStaticShared || t.rm * t.rn > kMaxAccumulators) {
    return absl::InvalidArgumentError(absl::StrCat(
        c.ToString(), ": ", shared, " bytes of shared memory and ",
        t.rm * t.rn, " accumulators a thread (at most ", kMaxStaticShared,
        " and ", kMaxAccumulators, " on the CUDA-core path)"));
  }
  int64_t tiles = ((g.m + t.bm - 1) / t.bm) * ((g.n + t.bn - 1) / t.bn);
  if (tiles * t.splits * g.batch > 0x7fffffff) {
    return absl::InvalidArgumentError(absl::StrCat(c.ToString(), ": too many blocks"));
  }
  return t;
}

// xt_load_a / xt_load_b: a thread's elements of the A (bm x bk) or B
// (bk x bn) tile at k0, through the operand's producers, 0 outside.
absl::Status EmitLoader(const Computation& fused, const cpu::GemmFusion& g,
                        const Tiling& t, int operand, std::string* globals,
                        CodeBuffer* out) {
  const int64_t rows = operand == 0 ? t.bm : t.bk;
  const int64_t cols = operand == 0 ? t.bk : t.bn;
  const int64_t count = (rows * cols + t.threads - 1) / t.threads;
  out->Open(absl::StrCat("XT_DEVICE void xt_load_", operand == 0 ? "a" : "b", "(",
                         ParameterDecls(fused),
                         "int64_t xt_bi, int64_t xt_r0, int64_t xt_c0, "
                         "int64_t xt_k_end, float* xt_r)"));
  out->Line("#pragma unroll");
  out->Linef("for (int xt_i = 0; xt_i < ", count, "; ++xt_i)");
  out->Open("");
  out->Linef("const int64_t xt_e = xt_tid() + (int64_t)xt_i * ", t.threads, ";");
  out->Line("float xt_v = 0.0f;");
  // A: rows are m, columns k; B: rows are k, columns n.
  std::string row = operand == 0 ? "xt_mi" : "xt_ki";
  std::string col = operand == 0 ? "xt_ki" : "xt_ni";
  out->Linef("const int64_t ", row, " = xt_r0 + xt_e / ", cols, ";");
  out->Linef("const int64_t ", col, " = xt_c0 + xt_e % ", cols, ";");
  std::string inside = operand == 0
      ? absl::StrCat("xt_e < ", rows * cols, " && xt_mi < ", g.m, " && xt_ki < xt_k_end")
      : absl::StrCat("xt_e < ", rows * cols, " && xt_ki < xt_k_end && xt_ni < ", g.n);
  out->Open(absl::StrCat("if (", inside, ")"));
  ElementalEmitter emitter = MakeEmitter(operand == 0 ? "xt_la" : "xt_lb");
  XTUNE_ASSIGN_OR_RETURN(std::string v,
                         cpu::EmitGemmOperand(emitter, g, operand, "xt_bi",
                                              operand == 0 ? "xt_mi" : "xt_ni", "xt_ki", out));
  if (cpu::DotOperandNeedsRounding(*g.dot, operand)) {
    v = ElementalEmitter::RoundTo(v, g.dot->operand(operand)->shape().dtype());
  }
  out->Linef("xt_v = (float)(", v, ");");
  out->Close();
  out->Line("xt_r[xt_i] = xt_v;");
  out->Close();
  out->Close();
  *globals += emitter.globals();
  return absl::OkStatus();
}

// The checks both paths share: num_ctas, powers of two, bounds.
absl::Status CheckCommon(const KernelConfig& c) {
  if (c.Get("num_ctas", 1) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(c.ToString(), ": only num_ctas=1 (no clusters)"));
  }
  for (const char* p : {"block_m", "block_n", "block_k", "split_k", "num_warps"}) {
    int64_t v = c.Get(p, 0);
    if (!PowerOfTwo(v) || v > 1024) {
      return absl::InvalidArgumentError(absl::StrCat(
          c.ToString(), ": block sizes, split_k and num_warps must be powers "
          "of two up to 1024"));
    }
  }
  int64_t stages = c.Get("num_stages", 0), warps = c.Get("num_warps", 0);
  if (stages < 1 || stages > 8 || warps > 32) {
    return absl::InvalidArgumentError(
        absl::StrCat(c.ToString(), ": num_stages 1..8, num_warps up to 32"));
  }
  return absl::OkStatus();
}

// With split_k > 1, the second kernel and the partials' size.
absl::StatusOr<TritonGemm> FinishSplits(const Computation& fused,
                                        const cpu::GemmFusion& g,
                                        const CudaKernelOptions& options,
                                        TritonGemm result) {
  if (result.splits > 1) {
    result.partial_bytes = result.splits * g.batch * g.m * g.n * 4;
    XTUNE_ASSIGN_OR_RETURN(result.epilogue,
                           GemmEpilogueKernel(fused, g, result.splits, options));
  }
  return result;
}

}  // namespace

absl::StatusOr<TritonGemm> TritonGemmKernels(const Computation& fused,
                                             const KernelConfig& config,
                                             const CudaKernelOptions& options) {
  absl::StatusOr<cpu::GemmFusion> analyzed = cpu::AnalyzeGemmFusion(fused);
  if (!analyzed.ok()) {
    return absl::UnimplementedError(absl::StrCat(
        "the generated gemm cannot take this fusion: ", analyzed.status().message()));
  }
  const cpu::GemmFusion& g = *analyzed;
  TritonGemm result;
  result.splits = config.Get("split_k", 1);
  DType stored = result.splits > 1 ? DType::kF32 : fused.root()->shape().dtype();
  XTUNE_RETURN_IF_ERROR(CheckCommon(config));
  XTUNE_ASSIGN_OR_RETURN(std::optional<CudaKernelSource> mma,
                         MmaGemmKernel(fused, g, config, stored, options));
  if (mma.has_value()) {
    result.main = std::move(*mma);
    return FinishSplits(fused, g, options, std::move(result));
  }
  XTUNE_ASSIGN_OR_RETURN(Tiling t, Plan(g, config));
  std::string globals;
  CodeBuffer loaders;
  XTUNE_RETURN_IF_ERROR(EmitLoader(fused, g, t, 0, &globals, &loaders));
  XTUNE_RETURN_IF_ERROR(EmitLoader(fused, g, t, 1, &globals, &loaders));
  GemmSkeleton k = SkeletonOf(config, g.k);
  k.accs = t.rm * t.rn;
  k.tile_type = "float";
  k.tile_a = t.bm * t.bk;
  k.tile_b = t.bk * t.bn;
  k.word = "float";
  k.words_a = t.bm * t.bk;
  k.words_b = t.bk * t.bn;
  k.thread_setup = [&](CodeBuffer* b) {
    b->Linef("const int xt_tx = xt_tid() % ", t.tn, ", xt_ty = xt_tid() / ", t.tn, ";");
  };
  k.b_coordinates = [](const std::string& k0) { return k0 + ", xt_n0"; };
  // The thread's rm x rn micro-tile: rows xt_ty + i * tm, columns
  // xt_tx + j * tn (consecutive threads, consecutive columns).
  k.compute = [&](CodeBuffer* b) {
    b->Line("#pragma unroll 4");
    b->Linef("for (int xt_kk = 0; xt_kk < ", t.bk, "; ++xt_kk)");
    b->Open("");
    b->Linef("float xt_av[", t.rm, "], xt_bv[", t.rn, "];");
    b->Line("#pragma unroll");
    b->Linef("for (int xt_i = 0; xt_i < ", t.rm,
             "; ++xt_i) xt_av[xt_i] = XT_S(xt_as)[(xt_ty + xt_i * ", t.tm, ") * ", t.bk,
             " + xt_kk];");
    b->Line("#pragma unroll");
    b->Linef("for (int xt_j = 0; xt_j < ", t.rn,
             "; ++xt_j) xt_bv[xt_j] = XT_S(xt_bs)[xt_kk * ", t.bn, " + xt_tx + xt_j * ",
             t.tn, "];");
    b->Line("#pragma unroll");
    b->Linef("for (int xt_i = 0; xt_i < ", t.rm, "; ++xt_i)");
    b->Line("#pragma unroll");
    b->Linef("  for (int xt_j = 0; xt_j < ", t.rn, "; ++xt_j)");
    b->Linef("    xt_acc[xt_i * ", t.rn, " + xt_j] += xt_av[xt_i] * xt_bv[xt_j];");
    b->Close();
  };
  k.element = [&](CodeBuffer* b) {
    b->Linef("const int64_t xt_mi = xt_m0 + xt_ty + (xt_x / ", t.rn, ") * ", t.tm, ";");
    b->Linef("const int64_t xt_ni = xt_n0 + xt_tx + (xt_x % ", t.rn, ") * ", t.tn, ";");
  };
  XTUNE_ASSIGN_OR_RETURN(result.main, EmitGemmKernel(fused, g, k, stored, options,
                                                     std::move(globals), loaders));
  return FinishSplits(fused, g, options, std::move(result));
}

namespace {

KernelConfig Triton(int64_t bm, int64_t bn, int64_t bk, int64_t sk, int64_t st,
                    int64_t nw) {
  return KernelConfig("triton_gemm", {{"block_m", bm},
                                      {"block_n", bn},
                                      {"block_k", bk},
                                      {"split_k", sk},
                                      {"num_stages", st},
                                      {"num_warps", nw},
                                      {"num_ctas", 1}});
}

// XLA's GetDefaultTritonConfigs (gemm_fusion_autotuner_cuda.cc): the base
// list, the Ampere additions, the Hopper additions.
std::vector<std::array<int64_t, 6>> XlaDefaultList(const GpuDeviceInfo& device) {
  std::vector<std::array<int64_t, 6>> list = {
      {32, 32, 256, 1, 1, 4}, {64, 32, 32, 16, 1, 4}, {32, 64, 64, 4, 1, 4},
      {128, 128, 64, 4, 1, 4}, {16, 16, 256, 1, 1, 4}, {16, 128, 32, 16, 1, 4},
      {16, 64, 128, 1, 1, 4}, {16, 128, 32, 8, 1, 4}, {16, 16, 512, 1, 1, 4},
      {32, 16, 512, 1, 1, 4}, {64, 32, 64, 1, 2, 8}};
  if (device.cc_major >= 8) {
    for (const auto& c : std::vector<std::array<int64_t, 6>>{
             {128, 256, 32, 1, 3, 8}, {256, 128, 32, 1, 3, 8}, {256, 64, 32, 1, 4, 4},
             {64, 256, 32, 1, 4, 4}, {128, 64, 32, 1, 4, 4}, {64, 128, 32, 1, 4, 4},
             {256, 128, 128, 1, 3, 8}, {256, 64, 128, 1, 4, 4}, {64, 256, 128, 1, 4, 4},
             {128, 128, 128, 1, 4, 4}, {128, 64, 64, 1, 4, 4}, {64, 128, 64, 1, 4, 4},
             {128, 32, 64, 1, 4, 4}, {64, 32, 64, 1, 4, 4}, {32, 128, 32, 1, 4, 4},
             {128, 128, 32, 1, 4, 4}, {16, 16, 256, 1, 3, 4}, {128, 128, 64, 2, 1, 8},
             {64, 64, 64, 1, 2, 4}, {16, 64, 256, 8, 1, 4}, {256, 256, 128, 1, 3, 8}}) {
      list.push_back(c);
    }
  }
  if (device.cc_major >= 9) {
    for (const auto& c : std::vector<std::array<int64_t, 6>>{
             {16, 32, 32, 8, 1, 2}, {16, 64, 128, 8, 1, 4}, {16, 64, 128, 16, 3, 4}}) {
      list.push_back(c);
    }
  }
  return list;
}

// XLA's exhaustive space (GetExhaustiveTritonConfigs, without clusters).
std::vector<std::array<int64_t, 6>> XlaExhaustiveList() {
  std::vector<std::array<int64_t, 6>> list;
  for (int64_t st : {1, 2, 3, 4}) {
    for (int64_t bm : {16, 32, 64, 128, 256}) {
      for (int64_t bn : {16, 32, 64, 128, 256}) {
        for (int64_t bk : {16, 32, 64, 128, 256}) {
          for (int64_t nw : {2, 4, 8}) {
            if (nw * 32 > std::min(bm * bk, bk * bn)) break;
            for (int64_t sk : {1, 2, 4, 8, 16}) list.push_back({bm, bn, bk, sk, st, nw});
          }
        }
      }
    }
  }
  return list;
}

int BitWidth(DType t) { return static_cast<int>(DTypeByteSize(t)) * 8; }

// The narrowest type the dot and the converts of the fusion touch.
int MinBitWidth(const Computation& fused, const Instruction& dot) {
  int bits = std::min({BitWidth(dot.shape().dtype()),
                       BitWidth(dot.operand(0)->shape().dtype()),
                       BitWidth(dot.operand(1)->shape().dtype())});
  for (const auto& inst : fused.instructions()) {
    if (inst->opcode() == Opcode::kConvert) {
      bits = std::min({bits, BitWidth(inst->shape().dtype()),
                       BitWidth(inst->operand(0)->shape().dtype())});
    }
  }
  return std::max(bits, 1);
}

// XLA's adjustment of one config to the problem (GenerateTritonConfigs).
std::array<int64_t, 6> Clamp(std::array<int64_t, 6> c, const cpu::GemmFusion& g,
                             int min_bits, int cores) {
  const int64_t kMinTile = 16;
  c[0] = std::min(c[0], std::max(kMinTile, NextPowerOfTwo(g.m)));
  c[1] = std::min(c[1], std::max(kMinTile, NextPowerOfTwo(g.n)));
  c[2] = std::min(c[2], std::max(kMinTile, NextPowerOfTwo(g.k)));
  const int64_t sufficient_tiles = 5 * static_cast<int64_t>(cores);
  int64_t ratio = sufficient_tiles * c[0] * c[1] / std::max<int64_t>(1, g.batch * g.m * g.n);
  int64_t max_split = 1;
  while (max_split * 2 <= ratio) max_split *= 2;
  c[3] = std::min(c[3], max_split);
  const int64_t ldmatrix_bits = 256;
  if (c[2] < ldmatrix_bits / min_bits) c[2] = ldmatrix_bits / min_bits;
  return c;
}

}  // namespace

// Whether either path generates `k` (without emitting the kernel's code
// when the CUDA-core plan decides).
bool Generates(const Computation& fused, const cpu::GemmFusion& g,
               const KernelConfig& k, const CudaKernelOptions& options) {
  if (!CheckCommon(k).ok()) return false;
  absl::StatusOr<std::optional<CudaKernelSource>> mma =
      MmaGemmKernel(fused, g, k, DType::kF32, options);
  if (!mma.ok()) return false;
  if (mma->has_value()) return true;
  return Plan(g, k).ok();
}

KernelConfig TritonGemmDefault(const Computation& fused) {
  absl::StatusOr<cpu::GemmFusion> g = cpu::AnalyzeGemmFusion(fused);
  if (!g.ok()) return Triton(32, 32, 32, 1, 1, 4);
  std::array<int64_t, 6> c =
      Clamp({32, 32, 32, 1, 1, 4}, *g, MinBitWidth(fused, *g->dot), 1);
  c[3] = 1;
  return Triton(c[0], c[1], c[2], 1, c[4], c[5]);
}

std::vector<KernelConfig> TritonGemmCandidates(const Computation& fused,
                                               const GpuDeviceInfo& device,
                                               bool exhaustive) {
  std::vector<KernelConfig> out = {TritonGemmDefault(fused)};
  absl::StatusOr<cpu::GemmFusion> g = cpu::AnalyzeGemmFusion(fused);
  if (!g.ok()) return out;
  const Instruction& dot = *g->dot;
  bool small = dot.operand(0)->shape().ElementCount() <= 32 * 32 &&
               dot.operand(1)->shape().ElementCount() <= 32 * 32;
  if (small) return out;
  int bits = MinBitWidth(fused, dot);
  CudaKernelOptions options;
  options.tf32 = device.cc_major >= 8;  // as GpuBackend::Tf32Dots
  options.fp8_mma = device.cc_major * 10 + device.cc_minor >= 89;  // GpuBackend::Fp8Mma
  std::set<std::array<int64_t, 6>> seen;
  for (const auto& raw : exhaustive ? XlaExhaustiveList() : XlaDefaultList(device)) {
    std::array<int64_t, 6> c = Clamp(raw, *g, bits, device.core_count);
    if (!seen.insert(c).second) continue;
    KernelConfig k = Triton(c[0], c[1], c[2], c[3], c[4], c[5]);
    if (k == out[0] || !Generates(fused, *g, k, options)) continue;
    out.push_back(k);
  }
  return out;
}

}  // namespace xtune::cuda
