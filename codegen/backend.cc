#include "codegen/backend.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "codegen/config_codec.h"
#include "codegen/in_process_profiler.h"

namespace xtune {

absl::Status Backend::CheckConfig(const Instruction& fusion,
                                  const KernelConfig& config) const {
  for (const KernelConfig& c : Candidates(fusion, true)) {
    if (c == config) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(config.ToString(), " is not in the search space of '",
                   fusion.name(), "'"));
}

std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> Backend::CompileKernels(
    absl::Span<const KernelRequest> requests) {
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> kernels;
  kernels.reserve(requests.size());
  for (const KernelRequest& r : requests) {
    kernels.push_back(Compile(*r.fusion, r.config));
  }
  return kernels;
}

absl::Status Backend::ConfigToResult(const KernelConfig& config,
                                     xla::AutotuneResult* result) const {
  ConfigToOtherKey(config, result);
  return absl::OkStatus();
}

absl::StatusOr<KernelConfig> Backend::ConfigFromResult(
    const xla::AutotuneResult& result) const {
  return ConfigFromOtherKey(result);
}

absl::StatusOr<KernelConfig> Backend::GemmOverride(
    const Instruction& fusion, absl::string_view textproto) const {
  return absl::UnimplementedError(absl::StrCat(
      "--xla_gpu_override_gemm_autotuner: the ", name(),
      " backend has no gemm kernels to override"));
}

absl::StatusOr<std::unique_ptr<Profiler>> Backend::CreateProfiler() {
  return std::unique_ptr<Profiler>(new InProcessProfiler());
}

absl::StatusOr<DeviceBuffer> Backend::Allocate(int64_t bytes) {
  if (bytes < 0) return absl::InvalidArgumentError("negative buffer size");
  // 64-byte aligned (vector loads), at least one byte so the pointer is
  // unique.
  size_t n = (static_cast<size_t>(bytes) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, n == 0 ? 64 : n);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate a buffer of ", bytes, " bytes"));
  }
  std::memset(p, 0, n == 0 ? 64 : n);
  return DeviceBuffer{p, bytes};
}

absl::Status Backend::CopyToDevice(const void* host, DeviceBuffer buffer) {
  if (buffer.bytes > 0) std::memcpy(buffer.opaque, host, buffer.bytes);
  return absl::OkStatus();
}

absl::Status Backend::CopyFromDevice(DeviceBuffer buffer, void* host) {
  if (buffer.bytes > 0) std::memcpy(host, buffer.opaque, buffer.bytes);
  return absl::OkStatus();
}

absl::Status Backend::CopyBuffer(DeviceBuffer src, DeviceBuffer dst) {
  if (src.bytes > dst.bytes) {
    return absl::InternalError("CopyBuffer into a smaller buffer");
  }
  if (src.bytes > 0 && src.opaque != dst.opaque) {
    std::memmove(dst.opaque, src.opaque, src.bytes);
  }
  return absl::OkStatus();
}

void Backend::Free(DeviceBuffer buffer) { std::free(buffer.opaque); }

}  // namespace xtune
