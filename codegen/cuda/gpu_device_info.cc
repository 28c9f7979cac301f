#include "codegen/cuda/gpu_device_info.h"

#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/config_codec.h"
#include "codegen/cuda/gpu_target_config.pb.h"

namespace xtune::cuda {

extern const std::pair<const char*, const char*> kShippedGpuTargets[];
extern const int kShippedGpuTargetCount;

namespace {

const std::map<std::string, std::string>& ShortNames() {
  static const auto* names = new std::map<std::string, std::string>{
      {"a100", "a100_sxm_40"}, {"h100", "h100_sxm"}};
  return *names;
}

}  // namespace

std::string GpuDeviceInfo::Arch() const {
  return absl::StrCat("sm_", cc_major, cc_minor, cc_major >= 9 ? "a" : "");
}

std::string CudaDeviceString(const GpuDeviceInfo& info) {
  double bandwidth = std::round(static_cast<double>(info.memory_bandwidth) / 1e9);
  double l2 = static_cast<double>(info.l2_cache_size) / (1 << 20);
  return absl::StrCat("CUDA: ", info.cc_major, ".", info.cc_minor,
                      ", Cores: ", info.core_count,
                      ", GPU clock: ", info.clock_rate_ghz,
                      " GHz, Memory bandwidth: ", bandwidth,
                      " GB/s, L2 cache: ", l2, " MB");
}

absl::StatusOr<GpuDeviceInfo> ParseGpuTargetConfig(absl::string_view text,
                                                   absl::string_view source) {
  xtune::gpu::GpuTargetConfigProto proto;
  // XLA's files hold more than xtune reads (rate tables, versions, ...).
  absl::Status parsed = ParseTextProto(text, source, &proto, nullptr,
                                       /*allow_unknown_fields=*/true);
  if (!parsed.ok()) return parsed;
  if (!proto.platform_name().empty() && proto.platform_name() != "CUDA") {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": platform '", proto.platform_name(),
                     "' is not CUDA"));
  }
  const auto& d = proto.gpu_device_info();
  if (!d.has_cuda_compute_capability() ||
      d.cuda_compute_capability().major() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": gpu_device_info has no cuda_compute_capability"));
  }
  if (d.core_count() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": gpu_device_info has no core_count"));
  }
  GpuDeviceInfo info;
  info.name = !d.name().empty() ? d.name() : proto.device_description_str();
  info.cc_major = d.cuda_compute_capability().major();
  info.cc_minor = d.cuda_compute_capability().minor();
  info.core_count = d.core_count();
  info.clock_rate_ghz = d.clock_rate_ghz();
  info.memory_bandwidth = d.memory_bandwidth();
  info.l2_cache_size = d.l2_cache_size();
  info.device_memory_size = d.device_memory_size();
  if (d.threads_per_block_limit() > 0) {
    info.threads_per_block_limit = d.threads_per_block_limit();
  }
  if (d.threads_per_warp() > 0) info.threads_per_warp = d.threads_per_warp();
  if (d.threads_per_core_limit() > 0) {
    info.threads_per_core_limit = d.threads_per_core_limit();
  }
  if (d.shared_memory_per_block() > 0) {
    info.shared_memory_per_block = d.shared_memory_per_block();
  }
  info.shared_memory_per_block_optin =
      d.shared_memory_per_block_optin() > 0 ? d.shared_memory_per_block_optin()
                                            : info.shared_memory_per_block;
  info.shared_memory_per_core = d.shared_memory_per_core();
  if (d.registers_per_core_limit() > 0) {
    info.registers_per_core_limit = d.registers_per_core_limit();
  }
  if (d.registers_per_block_limit() > 0) {
    info.registers_per_block_limit = d.registers_per_block_limit();
  }
  return info;
}

std::vector<std::string> ShippedGpuTargetNames() {
  std::vector<std::string> names;
  for (int i = 0; i < kShippedGpuTargetCount; ++i) {
    names.push_back(kShippedGpuTargets[i].first);
  }
  for (const auto& [short_name, full] : ShortNames()) names.push_back(short_name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<GpuDeviceInfo> ShippedGpuTarget(absl::string_view name) {
  std::string full(name);
  if (auto it = ShortNames().find(full); it != ShortNames().end()) {
    full = it->second;
  }
  for (int i = 0; i < kShippedGpuTargetCount; ++i) {
    if (full == kShippedGpuTargets[i].first) {
      return ParseGpuTargetConfig(kShippedGpuTargets[i].second,
                                  absl::StrCat("target '", full, "'"));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown GPU target '", name, "' (shipped: ",
                   absl::StrJoin(ShippedGpuTargetNames(), ", "), ")"));
}

}  // namespace xtune::cuda
