#include "codegen/cpu/cpu_candidates.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/cpu_config_codec.h"
#include "codegen/cpu/elemental.h"
#include "codegen/cpu/gemm_analysis.h"
#include "codegen/cpu/reduction_analysis.h"
#include "codegen/cpu/sort_fusion.h"
#include "fusion/in_place.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// Sorted and deduplicated: the canonical order of a search space.
std::vector<KernelConfig> Canonical(std::vector<KernelConfig> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<int64_t> ThreadChoices(const CpuDevice& d, bool exhaustive) {
  std::vector<int64_t> t = {1};
  if (exhaustive) {
    for (int64_t n = 2; n < d.threads; n *= 2) t.push_back(n);
  }
  if (d.threads > 1) t.push_back(d.threads);
  return t;
}

const char* KindName(CpuKernelKind kind) {
  switch (kind) {
    case CpuKernelKind::kRowReduce: return "cpu_row_reduce";
    case CpuKernelKind::kColReduce: return "cpu_col_reduce";
    case CpuKernelKind::kScatter: return "cpu_scatter";
    case CpuKernelKind::kSort: return "cpu_sort";
    default: return "cpu_loop";
  }
}

// Rows (or columns, or update-window elements) and whether the W-wide path
// applies, for the streaming kinds.
struct Streaming {
  int64_t units = 1;  // rows (loop, row reduce) or columns (col reduce)
  int64_t work = 1;   // elements touched
  bool vectorizable = false;
};

Streaming AnalyzeStreaming(const Computation& fused, CpuKernelKind kind) {
  Streaming s;
  const Shape& out = fused.root()->shape();
  if (kind == CpuKernelKind::kRowReduce) {
    absl::StatusOr<RowFusion> f = AnalyzeRowFusion(fused);
    s.units = f->rows;
    s.work = f->rows * f->columns;
    s.vectorizable = true;
  } else if (kind == CpuKernelKind::kColReduce) {
    absl::StatusOr<const Instruction*> r = AnalyzeColumnFusion(fused);
    const Shape& in = (*r)->operand(0)->shape();
    s.units = in.dims().back();
    s.work = in.ElementCount();
    s.vectorizable = AsSimpleReduction(**r).has_value() &&
                     ElementalEmitter::Vectorizable((*r)->operand(0));
  } else if (kind == CpuKernelKind::kScatter) {
    const Instruction* sc = fused.root();
    const Shape& u = sc->operand(2)->shape();
    s.units = 1;
    for (int64_t d : sc->attrs().scatter.update_window_dims) s.units *= u.dim(d);
    s.work = u.ElementCount() + out.ElementCount();
    s.vectorizable = false;
  } else if (kind == CpuKernelKind::kSort) {
    absl::StatusOr<SortFusion> f = AnalyzeSortFusion(fused);
    s.units = f->slices;
    s.work = f->slices * f->n * 16;  // n log n comparisons, roughly
    s.vectorizable = false;
  } else {
    // An in-place dynamic-update-slice walks its update, not the output.
    const Shape& walked = InPlaceDusParameter(fused).has_value()
                              ? fused.root()->operand(1)->shape()
                              : out;
    int64_t inner = walked.IsTuple() || walked.rank() == 0
                        ? 1
                        : walked.dim(out.minor_to_major()[0]);
    int64_t total = walked.IsTuple() ? 1 : walked.ElementCount();
    s.units = inner == 0 ? 0 : total / inner;
    s.work = total;
    s.vectorizable =
        !out.IsTuple() && ElementalEmitter::Vectorizable(fused.root());
  }
  return s;
}

std::vector<KernelConfig> StreamingConfigs(const Computation& fused,
                                           CpuKernelKind kind,
                                           const CpuDevice& d,
                                           bool exhaustive) {
  Streaming s = AnalyzeStreaming(fused, kind);
  const char* name = KindName(kind);
  const char* per_task = PerTaskName(name);
  std::vector<int64_t> widths = {1};
  if (s.vectorizable) {
    if (exhaustive) {
      widths = {1, 4, 8, 16, 32};
    } else {
      widths = {1, d.simd_floats, 2 * d.simd_floats};
    }
  }
  std::vector<int64_t> unrolls =
      exhaustive ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1, 2};
  std::vector<KernelConfig> out;
  for (int64_t t : ThreadChoices(d, exhaustive)) {
    std::vector<int64_t> per;
    int64_t units = std::max<int64_t>(s.units, 1);
    if (t == 1) {
      per = {units};
    } else {
      per = {CeilDiv(units, 4 * t)};
      if (exhaustive) {
        per.push_back(CeilDiv(units, t));
        per.push_back(std::max<int64_t>(1, CeilDiv(units, 16 * t)));
      }
    }
    for (int64_t w : widths) {
      for (int64_t u : unrolls) {
        for (int64_t p : per) {
          out.push_back(KernelConfig(name, {{"vector_width", w},
                                            {"unroll", u},
                                            {per_task, std::max<int64_t>(p, 1)},
                                            {"threads", t}}));
        }
      }
    }
  }
  return Canonical(std::move(out));
}

struct Tile {
  int64_t mr, nr;
};

std::vector<Tile> Tiles(const CpuDevice& d, bool exhaustive) {
  int64_t w = d.simd_floats;
  // Accumulators mr * nr / w plus nr / w B vectors and one A broadcast must
  // fit the 16 (AVX2) or 32 (AVX-512) vector registers.
  std::vector<Tile> tiles;
  if (w >= 16) {
    tiles = {{4, 32}, {8, 32}, {14, 32}, {6, 48}};
    if (exhaustive)
      tiles.insert(tiles.end(), {{1, 16}, {4, 16}, {8, 16}, {12, 32}});
  } else {
    tiles = {{4, 16}, {6, 16}, {4, 24}, {8, 8}};
    if (exhaustive)
      tiles.insert(tiles.end(), {{1, 8}, {2, 8}, {4, 8}, {2, 16}, {12, 8}});
  }
  return tiles;
}

std::vector<KernelConfig> GemmConfigs(const GemmFusion& g, const CpuDevice& d,
                                      bool exhaustive) {
  std::vector<KernelConfig> out;
  std::vector<int64_t> threads = ThreadChoices(d, exhaustive);
  struct Blocks {
    int64_t mc, nc, kc;
  };
  // Measured on AVX2 (1024^3..2048^3 f32): kc of 384-1024 keeps the
  // micro-kernel busy; mc x kc must fit L2 and kc x nr L1.
  std::vector<Blocks> blocks = {
      {96, 4096, 512}, {48, 4096, 1024}, {192, 2048, 256}, {144, 1024, 384}};
  if (exhaustive) {
    // The default blocks plus a grid: the exhaustive space contains the
    // default one.
    for (int64_t mc : {24, 48, 96, 192, 384}) {
      for (int64_t kc : {64, 128, 256, 512, 1024}) {
        for (int64_t nc : {256, 1024, 4096}) blocks.push_back({mc, nc, kc});
      }
    }
  }
  std::vector<int64_t> splits = {1};
  // Split K when the output is too small to keep every thread busy.
  if (exhaustive) {
    splits = {1, 2, 4, 8};
    if (d.threads > 8) splits.push_back(d.threads);
  } else if (d.threads > 1 && g.m * g.n <= 64 * 64 && g.k >= 1024) {
    splits = {1, d.threads};
  }
  for (const Tile& t : Tiles(d, exhaustive)) {
    for (const Blocks& b : blocks) {
      for (int64_t s : splits) {
        for (int64_t th : threads) {
          if (s > 1 && g.k < 2 * s) continue;
          int64_t mc = std::min(RoundUp(b.mc, t.mr),
                                RoundUp(std::max<int64_t>(g.m, 1), t.mr));
          int64_t nc = std::min(RoundUp(b.nc, t.nr),
                                RoundUp(std::max<int64_t>(g.n, 1), t.nr));
          int64_t kc = std::min(b.kc, std::max<int64_t>(g.k, 1));
          out.push_back(KernelConfig("cpu_gemm", {{"mc", mc},
                                                  {"nc", nc},
                                                  {"kc", kc},
                                                  {"mr", t.mr},
                                                  {"nr", t.nr},
                                                  {"split_k", s},
                                                  {"threads", th}}));
        }
      }
    }
  }
  for (int64_t th : threads) {
    out.push_back(KernelConfig("cpu_gemm_blas", {{"threads", th}}));
  }
  return Canonical(std::move(out));
}

}  // namespace

CpuKernelKind ChooseKernelKind(const Computation& fused) {
  if (fused.root()->opcode() == Opcode::kScatter &&
      fused.root()->shape().IsArray()) {
    return CpuKernelKind::kScatter;
  }
  if (AnalyzeSortFusion(fused).ok()) return CpuKernelKind::kSort;
  bool has_dot = false, has_reduce = false;
  for (const auto& i : fused.instructions()) {
    has_dot |= i->opcode() == Opcode::kDot;
    has_reduce |= i->opcode() == Opcode::kReduce;
  }
  if (has_dot) {
    return AnalyzeGemmFusion(fused).ok() ? CpuKernelKind::kGemm
                                         : CpuKernelKind::kLoop;
  }
  if (has_reduce) {
    if (AnalyzeColumnFusion(fused).ok()) return CpuKernelKind::kColReduce;
    if (AnalyzeRowFusion(fused).ok()) return CpuKernelKind::kRowReduce;
  }
  return CpuKernelKind::kLoop;
}

std::vector<KernelConfig> CpuCandidates(const Computation& fused,
                                        const CpuDevice& device,
                                        bool exhaustive, bool conv_as_gemm) {
  CpuKernelKind kind = ChooseKernelKind(fused);
  if (kind == CpuKernelKind::kGemm) {
    return GemmConfigs(*AnalyzeGemmFusion(fused), device, exhaustive);
  }
  std::vector<KernelConfig> out = StreamingConfigs(fused, kind, device, exhaustive);
  if (absl::StatusOr<GemmFusion> g = AnalyzeGemmFusion(fused); conv_as_gemm && g.ok()) {
    for (KernelConfig& c : GemmConfigs(*g, device, exhaustive)) out.push_back(std::move(c));
  }
  return out;
}

KernelConfig CpuDefaultConfig(const Computation& fused, const CpuDevice& d,
                              bool conv_as_gemm) {
  CpuKernelKind kind = ChooseKernelKind(fused);
  absl::StatusOr<GemmFusion> analyzed = kind == CpuKernelKind::kGemm || conv_as_gemm
                                            ? AnalyzeGemmFusion(fused)
                                            : absl::StatusOr<GemmFusion>(absl::NotFoundError(""));
  if (analyzed.ok()) {
    const GemmFusion& g = *analyzed;
    bool big = g.batch * g.m * g.n * g.k >= (int64_t{1} << 21);
    Tile t = Tiles(d, false)[1];  // 6x16 on AVX2, 8x32 on AVX-512
    int64_t mc =
        std::min(RoundUp(96, t.mr), RoundUp(std::max<int64_t>(g.m, 1), t.mr));
    int64_t nc =
        std::min(RoundUp(4096, t.nr), RoundUp(std::max<int64_t>(g.n, 1), t.nr));
    int64_t kc = std::min<int64_t>(512, std::max<int64_t>(g.k, 1));
    return KernelConfig("cpu_gemm", {{"mc", mc},
                                     {"nc", nc},
                                     {"kc", kc},
                                     {"mr", t.mr},
                                     {"nr", t.nr},
                                     {"split_k", 1},
                                     {"threads", big ? d.threads : 1}});
  }
  Streaming s = AnalyzeStreaming(fused, kind);
  bool big = s.work >= (int64_t{1} << 16);
  int64_t threads = big ? d.threads : 1;
  int64_t units = std::max<int64_t>(s.units, 1);
  const char* name = KindName(kind);
  const char* per_task = PerTaskName(name);
  return KernelConfig(
      name, {{"vector_width", s.vectorizable ? d.simd_floats : 1},
             {"unroll", 2},
             {per_task, threads == 1 ? units : CeilDiv(units, 4 * threads)},
             {"threads", threads}});
}

absl::Status CheckCpuConfig(const Computation& fused, const CpuDevice& d,
                            const KernelConfig& config, bool conv_as_gemm) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("config ", config.ToString(), ": ", why));
  };
  // The parameter schema of the kind: its default-space configs.
  const KernelConfig* like = nullptr;
  std::vector<KernelConfig> space = CpuCandidates(fused, d, false, conv_as_gemm);
  for (const KernelConfig& c : space) {
    if (c.kind() == config.kind()) {
      like = &c;
      break;
    }
  }
  if (like == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the CPU backend has no kernels of kind '", config.kind(),
                     "' for this fusion"));
  }
  if (like->params().size() != config.params().size()) {
    return bad(absl::StrCat("expected the parameters of ", like->ToString()));
  }
  for (size_t i = 0; i < config.params().size(); ++i) {
    const auto& [name, value] = config.params()[i];
    if (name != like->params()[i].first) {
      return bad(absl::StrCat("expected the parameters of ", like->ToString()));
    }
    if (value < 1) return bad(absl::StrCat(name, " must be >= 1"));
  }
  auto at_most = [&](absl::string_view name, int64_t limit) -> absl::Status {
    if (config.Get(name) > limit) {
      return bad(absl::StrCat(name, " must be <= ", limit));
    }
    return absl::OkStatus();
  };
  XTUNE_RETURN_IF_ERROR(at_most("threads", std::max<int64_t>(d.threads, 1024)));
  if (config.kind() == "cpu_gemm") {
    GemmFusion g = *AnalyzeGemmFusion(fused);
    int64_t k = std::max<int64_t>(g.k, 1);
    XTUNE_RETURN_IF_ERROR(
        at_most("mc", std::max<int64_t>(RoundUp(g.m, 64), 4096)));
    XTUNE_RETURN_IF_ERROR(
        at_most("nc", std::max<int64_t>(RoundUp(g.n, 64), 16384)));
    XTUNE_RETURN_IF_ERROR(at_most("kc", std::max<int64_t>(k, 4096)));
    XTUNE_RETURN_IF_ERROR(at_most(
        "split_k", std::min<int64_t>(k, std::max<int64_t>(64, d.threads))));
  } else if (config.kind() != "cpu_gemm_blas") {
    XTUNE_RETURN_IF_ERROR(at_most("vector_width", 64));
    XTUNE_RETURN_IF_ERROR(at_most("unroll", 64));
  }
  return absl::OkStatus();
}

}  // namespace xtune::cpu
