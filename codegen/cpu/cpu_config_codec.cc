#include "codegen/cpu/cpu_config_codec.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/config_codec.h"
#include "util/status_macros.h"

namespace xtune::cpu {
namespace {

absl::StatusOr<int64_t> Need(const KernelConfig& c, const char* name) {
  if (!c.Has(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        c.kind(), " config '", c.ParamsString(), "' lacks '", name, "'"));
  }
  return c.Get(name);
}

using Streaming = xla::AutotuneResult::CpuStreamingKey;

}  // namespace

const char* PerTaskName(absl::string_view kind) {
  if (kind == "cpu_col_reduce") return "cols_per_task";
  if (kind == "cpu_scatter") return "window_per_task";
  if (kind == "cpu_sort") return "slices_per_task";
  return "rows_per_task";
}

namespace {

}  // namespace

absl::Status CpuConfigToResult(const KernelConfig& c, xla::AutotuneResult* r) {
  const std::string& kind = c.kind();
  if (kind == "cpu_gemm") {
    xla::AutotuneResult::CpuGemmKey k;
    XTUNE_ASSIGN_OR_RETURN(int64_t mc, Need(c, "mc"));
    XTUNE_ASSIGN_OR_RETURN(int64_t nc, Need(c, "nc"));
    XTUNE_ASSIGN_OR_RETURN(int64_t kc, Need(c, "kc"));
    XTUNE_ASSIGN_OR_RETURN(int64_t mr, Need(c, "mr"));
    XTUNE_ASSIGN_OR_RETURN(int64_t nr, Need(c, "nr"));
    XTUNE_ASSIGN_OR_RETURN(int64_t split_k, Need(c, "split_k"));
    XTUNE_ASSIGN_OR_RETURN(int64_t threads, Need(c, "threads"));
    k.set_mc(mc);
    k.set_nc(nc);
    k.set_kc(kc);
    k.set_mr(mr);
    k.set_nr(nr);
    k.set_split_k(split_k);
    k.set_threads(threads);
    *r->mutable_cpu_gemm() = k;
    return absl::OkStatus();
  }
  if (kind == "cpu_gemm_blas") {
    XTUNE_ASSIGN_OR_RETURN(int64_t threads, Need(c, "threads"));
    r->mutable_cpu_library_gemm()->set_threads(threads);
    return absl::OkStatus();
  }
  if (kind == "cpu_loop" || kind == "cpu_row_reduce" ||
      kind == "cpu_col_reduce" || kind == "cpu_scatter" ||
      kind == "cpu_sort") {
    XTUNE_ASSIGN_OR_RETURN(int64_t w, Need(c, "vector_width"));
    XTUNE_ASSIGN_OR_RETURN(int64_t u, Need(c, "unroll"));
    XTUNE_ASSIGN_OR_RETURN(int64_t per, Need(c, PerTaskName(kind)));
    XTUNE_ASSIGN_OR_RETURN(int64_t threads, Need(c, "threads"));
    auto* k = r->mutable_cpu_streaming();
    k->set_kind(kind == "cpu_loop"         ? Streaming::LOOP
                : kind == "cpu_row_reduce" ? Streaming::ROW_REDUCTION
                : kind == "cpu_scatter"    ? Streaming::SCATTER
                : kind == "cpu_sort"       ? Streaming::SORT
                                           : Streaming::COLUMN_REDUCTION);
    k->set_vector_width(w);
    k->set_unroll(u);
    k->set_per_task(per);
    k->set_threads(threads);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the CPU backend has no kernels of kind '", kind, "'"));
}

absl::StatusOr<KernelConfig> CpuConfigFromResult(
    const xla::AutotuneResult& r) {
  switch (r.key_case()) {
    case xla::AutotuneResult::kCpuGemm: {
      const auto& k = r.cpu_gemm();
      return KernelConfig("cpu_gemm", {{"mc", k.mc()},
                                       {"nc", k.nc()},
                                       {"kc", k.kc()},
                                       {"mr", k.mr()},
                                       {"nr", k.nr()},
                                       {"split_k", k.split_k()},
                                       {"threads", k.threads()}});
    }
    case xla::AutotuneResult::kCpuLibraryGemm:
      return KernelConfig("cpu_gemm_blas",
                          {{"threads", r.cpu_library_gemm().threads()}});
    case xla::AutotuneResult::kCpuStreaming: {
      const auto& k = r.cpu_streaming();
      const char* kind = k.kind() == Streaming::LOOP ? "cpu_loop"
                         : k.kind() == Streaming::ROW_REDUCTION
                             ? "cpu_row_reduce"
                         : k.kind() == Streaming::SCATTER ? "cpu_scatter"
                         : k.kind() == Streaming::SORT    ? "cpu_sort"
                                                          : "cpu_col_reduce";
      return KernelConfig(kind, {{"vector_width", k.vector_width()},
                                 {"unroll", k.unroll()},
                                 {PerTaskName(kind), k.per_task()},
                                 {"threads", k.threads()}});
    }
    default:
      return absl::UnimplementedError(
          "not a key of the CPU backend (cpu_gemm, cpu_library_gemm, "
          "cpu_streaming)");
  }
}

bool IsCpuLibraryCall(const KernelConfig& config) {
  return config.kind() == "cpu_gemm_blas";
}

absl::StatusOr<KernelConfig> CpuGemmOverride(const KernelConfig& base,
                                             absl::string_view text) {
  constexpr absl::string_view kFlag = "--xla_gpu_override_gemm_autotuner";
  if (base.kind() != "cpu_gemm") {
    return absl::InvalidArgumentError(absl::StrCat(
        kFlag, ": the fusion's kernels are ", base.kind(), ", not cpu_gemm"));
  }
  KernelConfig out = base;
  std::set<std::string> given;
  // A field set in the text: positive, or an error naming it.
  auto take = [&](const std::string& field, int64_t v,
                  const char* param) -> absl::Status {
    if (given.count(field) == 0) return absl::OkStatus();
    if (v <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFlag, ": '", field, "' must be positive, got ", v));
    }
    out.Set(param, v);
    return absl::OkStatus();
  };
  xla::AutotuneResult::TritonGemmKey triton;
  absl::Status as_triton = ParseTextProto(text, kFlag, &triton, &given);
  if (as_triton.ok()) {
    if (given.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFlag, ": no fields in '", text, "'"));
    }
    for (const char* field :
         {"num_stages", "num_warps", "waves_per_eu", "is_tma_allowed",
          "is_warp_specialization_allowed"}) {
      if (given.count(field) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            kFlag, ": '", field,
            "' has no meaning on the cpu backend; remove it (the CPU gemm "
            "takes TritonGemmKey's block_m block_n block_k split_k num_ctas, "
            "or xtune's CpuGemmKey fields mc nc kc mr nr split_k threads)"));
      }
    }
    if (given.count("num_ctas") != 0 && triton.num_ctas() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          kFlag, ": num_ctas must be 1 on the cpu backend, got ",
          triton.num_ctas()));
    }
    XTUNE_RETURN_IF_ERROR(take("block_m", triton.block_m(), "mc"));
    XTUNE_RETURN_IF_ERROR(take("block_n", triton.block_n(), "nc"));
    XTUNE_RETURN_IF_ERROR(take("block_k", triton.block_k(), "kc"));
    XTUNE_RETURN_IF_ERROR(take("split_k", triton.split_k(), "split_k"));
    return out;
  }
  given.clear();
  xla::AutotuneResult::CpuGemmKey key;
  if (!ParseTextProto(text, kFlag, &key, &given).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(as_triton.message(),
                     " (nor as xtune's CpuGemmKey: mc nc kc mr nr split_k "
                     "threads)"));
  }
  for (auto [field, v] : {std::pair{"mc", key.mc()},
                          {"nc", key.nc()},
                          {"kc", key.kc()},
                          {"mr", key.mr()},
                          {"nr", key.nr()},
                          {"split_k", key.split_k()},
                          {"threads", key.threads()}}) {
    XTUNE_RETURN_IF_ERROR(take(field, v, field));
  }
  return out;
}

}  // namespace xtune::cpu
