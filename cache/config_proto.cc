#include "cache/config_proto.h"

#include "absl/strings/str_cat.h"

namespace xtune {
namespace {

absl::Status Positive(const char* key, const char* field, int64_t v) {
  if (v > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid ", key, " config: ", field, " is ", v, " (must be > 0)"));
}

}  // namespace

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
