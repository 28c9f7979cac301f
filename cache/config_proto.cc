#include "cache/config_proto.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace xtune {
namespace {

absl::StatusOr<int64_t> Need(const KernelConfig& c, const char* name) {
  if (!c.Has(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        c.kind(), " config '", c.ParamsString(), "' lacks '", name, "'"));
  }
  return c.Get(name);
}

#define XTUNE_NEED(var, config, name)               \
  int64_t var;                                      \
  {                                                 \
    absl::StatusOr<int64_t> v = Need(config, name); \
    if (!v.ok()) return v.status();                 \
    var = *v;                                       \
  }

absl::Status Positive(const char* key, const char* field, int64_t v) {
  if (v > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid ", key, " config: ", field, " is ", v, " (must be > 0)"));
}

}  // namespace

absl::Status ConfigToResult(const KernelConfig& c, xla::AutotuneResult* r) {
  const std::string& kind = c.kind();
  if (kind == "cpu_gemm") {
    XTUNE_NEED(mc, c, "mc");
    XTUNE_NEED(nc, c, "nc");
    XTUNE_NEED(kc, c, "kc");
    XTUNE_NEED(mr, c, "mr");
    XTUNE_NEED(nr, c, "nr");
    XTUNE_NEED(split_k, c, "split_k");
    XTUNE_NEED(threads, c, "threads");
    auto* k = r->mutable_cpu_gemm();
    k->set_mc(mc);
    k->set_nc(nc);
    k->set_kc(kc);
    k->set_mr(mr);
    k->set_nr(nr);
    k->set_split_k(split_k);
    k->set_threads(threads);
    return absl::OkStatus();
  }
  if (kind == "cpu_gemm_blas") {
    XTUNE_NEED(threads, c, "threads");
    r->mutable_cpu_library_gemm()->set_threads(threads);
    return absl::OkStatus();
  }
  if (kind == "cpu_loop" || kind == "cpu_row_reduce" ||
      kind == "cpu_col_reduce") {
    XTUNE_NEED(w, c, "vector_width");
    XTUNE_NEED(u, c, "unroll");
    XTUNE_NEED(per, c,
               kind == "cpu_col_reduce" ? "cols_per_task" : "rows_per_task");
    XTUNE_NEED(threads, c, "threads");
    auto* k = r->mutable_cpu_streaming();
    k->set_kind(kind == "cpu_loop" ? xla::AutotuneResult::CpuStreamingKey::LOOP
                : kind == "cpu_row_reduce"
                    ? xla::AutotuneResult::CpuStreamingKey::ROW_REDUCTION
                    : xla::AutotuneResult::CpuStreamingKey::COLUMN_REDUCTION);
    k->set_vector_width(w);
    k->set_unroll(u);
    k->set_per_task(per);
    k->set_threads(threads);
    return absl::OkStatus();
  }
  if (kind == "triton_gemm") {
    auto* k = r->mutable_triton();
    k->set_block_m(c.Get("block_m"));
    k->set_block_n(c.Get("block_n"));
    k->set_block_k(c.Get("block_k"));
    k->set_split_k(c.Get("split_k"));
    k->set_num_stages(c.Get("num_stages"));
    k->set_num_warps(c.Get("num_warps"));
    k->set_num_ctas(c.Get("num_ctas"));
    return absl::OkStatus();
  }
  r->mutable_other()->set_name(c.ToString());
  return absl::OkStatus();
}

absl::StatusOr<KernelConfig> ConfigFromResult(const xla::AutotuneResult& r) {
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
      using K = xla::AutotuneResult::CpuStreamingKey;
      const char* kind = k.kind() == K::LOOP            ? "cpu_loop"
                         : k.kind() == K::ROW_REDUCTION ? "cpu_row_reduce"
                                                        : "cpu_col_reduce";
      return KernelConfig(
          kind,
          {{"vector_width", k.vector_width()},
           {"unroll", k.unroll()},
           {k.kind() == K::COLUMN_REDUCTION ? "cols_per_task" : "rows_per_task",
            k.per_task()},
           {"threads", k.threads()}});
    }
    case xla::AutotuneResult::kTriton: {
      const auto& k = r.triton();
      return KernelConfig("triton_gemm", {{"block_m", k.block_m()},
                                          {"block_n", k.block_n()},
                                          {"block_k", k.block_k()},
                                          {"split_k", k.split_k()},
                                          {"num_stages", k.num_stages()},
                                          {"num_warps", k.num_warps()},
                                          {"num_ctas", k.num_ctas()}});
    }
    case xla::AutotuneResult::kOther: {
      // "kind:name=value,..." as written by ConfigToResult.
      const std::string& name = r.other().name();
      size_t colon = name.find(':');
      if (colon == std::string::npos || r.other().has_config()) break;
      KernelConfig base(name.substr(0, colon), {});
      for (absl::string_view item :
           absl::StrSplit(name.substr(colon + 1), ',', absl::SkipEmpty())) {
        std::pair<std::string, std::string> kv =
            absl::StrSplit(item, absl::MaxSplits('=', 1));
        int64_t v;
        if (!absl::SimpleAtoi(kv.second, &v)) {
          return absl::UnimplementedError(
              absl::StrCat("cannot read the config '", name, "'"));
        }
        base.Set(kv.first, v);
      }
      return base;
    }
    default:
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      "a '", KeyTypeName(r), "' result is not a config xtune can run"));
}

absl::Status ValidateResult(const xla::AutotuneResult& r) {
  switch (r.key_case()) {
    case xla::AutotuneResult::kTriton: {
      const auto& k = r.triton();
      for (auto [f, v] : {std::pair{"block_m", k.block_m()},
                          {"block_n", k.block_n()},
                          {"block_k", k.block_k()},
                          {"split_k", k.split_k()},
                          {"num_stages", k.num_stages()},
                          {"num_warps", k.num_warps()},
                          {"num_ctas", k.num_ctas()}}) {
        absl::Status s = Positive("triton", f, v);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case xla::AutotuneResult::kCpuGemm: {
      const auto& k = r.cpu_gemm();
      for (auto [f, v] : {std::pair{"mc", k.mc()},
                          {"nc", k.nc()},
                          {"kc", k.kc()},
                          {"mr", k.mr()},
                          {"nr", k.nr()},
                          {"split_k", k.split_k()},
                          {"threads", k.threads()}}) {
        absl::Status s = Positive("cpu_gemm", f, v);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case xla::AutotuneResult::kCpuLibraryGemm:
      return Positive("cpu_library_gemm", "threads",
                      r.cpu_library_gemm().threads());
    case xla::AutotuneResult::kCpuStreaming: {
      const auto& k = r.cpu_streaming();
      for (auto [f, v] : {std::pair{"vector_width", k.vector_width()},
                          {"unroll", k.unroll()},
                          {"per_task", k.per_task()},
                          {"threads", k.threads()}}) {
        absl::Status s = Positive("cpu_streaming", f, v);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

double DurationSeconds(const google::protobuf::Duration& d) {
  return d.seconds() + d.nanos() * 1e-9;
}

void SetDurationSeconds(double seconds, google::protobuf::Duration* d) {
  int64_t nanos = static_cast<int64_t>(seconds * 1e9);
  d->set_seconds(nanos / 1000000000);
  d->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

std::optional<double> RunTimeSeconds(const xla::AutotuneResult& result) {
  if (!result.has_run_time()) return std::nullopt;
  return DurationSeconds(result.run_time());
}

std::string KeyTypeName(const xla::AutotuneResult& r) {
  switch (r.key_case()) {
    case xla::AutotuneResult::kConv:
      return "conv";
    case xla::AutotuneResult::kGemm:
      return "gemm";
    case xla::AutotuneResult::kTriton:
      return "triton";
    case xla::AutotuneResult::kCudaConvPlan:
      return "cuda_conv_plan";
    case xla::AutotuneResult::kCustomKernelFusion:
      return "custom_kernel_fusion";
    case xla::AutotuneResult::kAlgorithm:
      return "algorithm";
    case xla::AutotuneResult::kOther:
      return "other";
    case xla::AutotuneResult::kCpuGemm:
      return "cpu_gemm";
    case xla::AutotuneResult::kCpuLibraryGemm:
      return "cpu_library_gemm";
    case xla::AutotuneResult::kCpuStreaming:
      return "cpu_streaming";
    default:
      return "none";
  }
}

}  // namespace xtune
