#include "codegen/cuda/cuda_candidates.h"
#include "codegen/cuda/scatter_kernel.h"
#include "codegen/cpu/sort_fusion.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cpu/cpu_candidates.h"
#include "codegen/cpu/reduction_analysis.h"
#include "codegen/cuda/triton_gemm.h"
#include "util/file.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

std::vector<KernelConfig> Canonical(std::vector<KernelConfig> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

KernelConfig Loop(int64_t block, int64_t width, int64_t unroll) {
  return KernelConfig("cuda_loop", {{"block_size", block},
                                    {"vector_width", width},
                                    {"unroll", unroll}});
}

KernelConfig Row(int64_t block, int64_t rows, int64_t width, int64_t unroll) {
  return KernelConfig("cuda_row_reduce", {{"block_size", block},
                                          {"rows_per_block", rows},
                                          {"vector_width", width},
                                          {"unroll", unroll}});
}

KernelConfig Col(int64_t block, int64_t width, int64_t unroll) {
  return KernelConfig("cuda_col_reduce", {{"block_size", block},
                                          {"vector_width", width},
                                          {"unroll", unroll}});
}

int64_t Elements(const Computation& fused) {
  const Shape& s = fused.root()->shape();
  return s.IsTuple() ? 1 : s.ElementCount();
}

}  // namespace

std::string CudaKernelKind(const Computation& fused) {
  // The reduction kernels combine with add/mul/max/min of floats; other
  // reductions (a pred `and`, an integer max, variadic) are computed per
  // output element by the loop kernel.
  bool simple = true;
  for (const auto& i : fused.instructions()) {
    if (i->opcode() == Opcode::kReduce &&
        (i->shape().IsTuple() || !cpu::AsSimpleReduction(*i).has_value())) {
      simple = false;
    }
  }
  switch (cpu::ChooseKernelKind(fused)) {
    case cpu::CpuKernelKind::kGemm: return "triton_gemm";
    case cpu::CpuKernelKind::kRowReduce:
      return simple ? "cuda_row_reduce" : "cuda_loop";
    case cpu::CpuKernelKind::kColReduce:
      return simple ? "cuda_col_reduce" : "cuda_loop";
    case cpu::CpuKernelKind::kScatter: return "cuda_scatter";
    case cpu::CpuKernelKind::kSort: return "cuda_sort";
    default: return "cuda_loop";
  }
}

KernelConfig CudaDefaultConfig(const Computation& fused,
                               const GpuDeviceInfo& device) {
  std::string kind = CudaKernelKind(fused);
  if (kind == "triton_gemm") return TritonGemmDefault(fused);
  if (kind == "cuda_row_reduce") {
    absl::StatusOr<cpu::RowFusion> f = cpu::AnalyzeRowFusion(fused);
    int64_t group = std::clamp<int64_t>(PowerOfTwoAtLeast(f->columns / 4), 32, 256);
    int64_t rows = std::max<int64_t>(1, 128 / group);
    return Row(group * rows, rows, 1, 1);
  }
  if (kind == "cuda_col_reduce") return Col(256, 1, 2);
  if (kind == "cuda_scatter") {
    int64_t owners = ScatterOwners(*fused.root());
    return KernelConfig("cuda_scatter",
                        {{"block_size", owners >= 4096 ? 128 : 32}});
  }
  if (kind == "cuda_sort") {
    cpu::SortFusion s = *cpu::AnalyzeSortFusion(fused);
    const int64_t threads = s.slices * s.n;
    return KernelConfig("cuda_sort", {{"block_size", threads >= 4096 ? 128 : 32}});
  }
  int64_t n = Elements(fused);
  return Loop(256, n >= (1 << 20) ? 4 : 1, 1);
}

std::vector<KernelConfig> CudaCandidates(const Computation& fused,
                                         const GpuDeviceInfo& device,
                                         bool exhaustive) {
  std::string kind = CudaKernelKind(fused);
  if (kind == "triton_gemm") {
    // XLA's Triton configs, then the library candidate (the GPU asks
    // cuBLASLt for more algorithms).
    std::vector<KernelConfig> out = TritonGemmCandidates(fused, device, exhaustive);
    out.push_back(KernelConfig("cuda_cublaslt", {{"algorithm", 0}}));
    return out;
  }
  std::vector<KernelConfig> out = {CudaDefaultConfig(fused, device)};
  if (kind == "cuda_sort") {
    // One thread per element: blocks no larger than twice the elements.
    cpu::SortFusion s = *cpu::AnalyzeSortFusion(fused);
    for (int64_t b : {32, 64, 128, 256}) {
      if (b <= std::max<int64_t>(32, 2 * s.slices * s.n)) {
        out.push_back(KernelConfig("cuda_sort", {{"block_size", b}}));
      }
    }
    return Canonical(std::move(out));
  }
  if (kind == "cuda_scatter") {
    // One thread per owned output position: blocks no larger than twice
    // the threads there are.
    const int64_t owners = ScatterOwners(*fused.root());
    for (int64_t b : {32, 64, 128, 256}) {
      if (b <= std::max<int64_t>(32, 2 * owners)) {
        out.push_back(KernelConfig("cuda_scatter", {{"block_size", b}}));
      }
    }
    return Canonical(std::move(out));
  }
  const int64_t max_block = std::min(1024, device.threads_per_block_limit);
  std::vector<int64_t> widths = exhaustive ? std::vector<int64_t>{1, 2, 4, 8}
                                           : std::vector<int64_t>{1, 2, 4};
  std::vector<int64_t> unrolls = exhaustive ? std::vector<int64_t>{1, 2, 4, 8}
                                            : std::vector<int64_t>{1, 2, 4};
  if (kind == "cuda_row_reduce") {
    absl::StatusOr<cpu::RowFusion> f = cpu::AnalyzeRowFusion(fused);
    std::vector<int64_t> groups = exhaustive
        ? std::vector<int64_t>{32, 64, 128, 256, 512, 1024}
        : std::vector<int64_t>{32, 128, 256, 512};
    std::vector<int64_t> rows_choices = exhaustive
        ? std::vector<int64_t>{1, 2, 4, 8} : std::vector<int64_t>{1, 4};
    std::vector<int64_t> row_widths = exhaustive
        ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1, 2};
    std::vector<int64_t> row_unrolls = exhaustive
        ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1, 2};
    int64_t useful_group = std::max<int64_t>(32, PowerOfTwoAtLeast(f->columns));
    for (int64_t g : groups) {
      if (g > useful_group) continue;
      for (int64_t r : rows_choices) {
        if (g * r > max_block || (r > 1 && r > f->rows)) continue;
        for (int64_t w : row_widths) {
          for (int64_t u : row_unrolls) {
            if (g * w * u > 2 * std::max<int64_t>(32, f->columns)) continue;
            out.push_back(Row(g * r, r, w, u));
          }
        }
      }
    }
    return Canonical(std::move(out));
  }
  std::vector<int64_t> blocks = exhaustive
      ? std::vector<int64_t>{64, 128, 256, 512, 1024}
      : std::vector<int64_t>{128, 256, 512};
  if (kind == "cuda_col_reduce") {
    for (int64_t b : blocks) {
      if (b > max_block) continue;
      for (int64_t w : widths) {
        for (int64_t u : unrolls) out.push_back(Col(b, w, u));
      }
    }
    return Canonical(std::move(out));
  }
  int64_t n = Elements(fused);
  for (int64_t b : blocks) {
    if (b > max_block) continue;
    for (int64_t w : widths) {
      for (int64_t u : unrolls) {
        // No block whose work is more than twice the problem.
        if (b * w * u > 2 * std::max<int64_t>(n, 128)) continue;
        out.push_back(Loop(b, w, u));
      }
    }
  }
  return Canonical(std::move(out));
}

absl::StatusOr<GpuDeviceInfo> GpuTargetFromOptions(const BackendOptions& options,
                                                   const std::string& fallback) {
  if (!options.gpu_target_config_file.empty() && !options.gpu_target.empty()) {
    return absl::InvalidArgumentError(
        "--xla_gpu_target_config_filename and --xtune_gpu_target both name a "
        "GPU: give one");
  }
  if (!options.gpu_target_config_file.empty()) {
    XTUNE_ASSIGN_OR_RETURN(std::string text,
                           ReadFile(options.gpu_target_config_file));
    return ParseGpuTargetConfig(text, options.gpu_target_config_file);
  }
  return ShippedGpuTarget(options.gpu_target.empty() ? fallback
                                                     : options.gpu_target);
}

}  // namespace xtune::cuda
