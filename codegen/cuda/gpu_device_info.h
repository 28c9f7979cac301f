// A GPU as the CUDA backend sees it: what makes kernels fast or legal
// (SMs, shared memory, registers, clock, bandwidth, L2), from the driver on
// a machine with a GPU, or from a target file without one (XLA's
// GpuTargetConfigProto text format: --xla_gpu_target_config_filename), or
// from the targets shipped with xtune (--xtune_gpu_target=NAME). Value
// types.
#ifndef XTUNE_CODEGEN_CUDA_GPU_DEVICE_INFO_H_
#define XTUNE_CODEGEN_CUDA_GPU_DEVICE_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xtune::cuda {

struct GpuDeviceInfo {
  std::string name;  // "NVIDIA H200 141GB HBM3e"
  int cc_major = 0;
  int cc_minor = 0;
  int core_count = 0;  // streaming multiprocessors
  float clock_rate_ghz = 0;
  int64_t memory_bandwidth = 0;  // bytes per second
  int64_t l2_cache_size = 0;     // bytes
  int64_t device_memory_size = 0;
  int threads_per_block_limit = 1024;
  int threads_per_warp = 32;
  int threads_per_core_limit = 2048;
  int64_t shared_memory_per_block = 48 << 10;
  int64_t shared_memory_per_block_optin = 48 << 10;
  int64_t shared_memory_per_core = 0;
  int64_t registers_per_core_limit = 65536;
  int64_t registers_per_block_limit = 65536;

  // The architecture NVRTC compiles for: "sm_80", and the arch-specific
  // "sm_90a" / "sm_100a" from Hopper on (wgmma, TMA, setmaxnreg).
  std::string Arch() const;
};

// The device string of cache keys exactly as XLA writes it
// (AutotuneCacheKey::DeviceDescriptionToCacheKey, without the DNN version
// newer XLA appends): "CUDA: 8.0, Cores: 108, GPU clock: 1.41 GHz, Memory
// bandwidth: 1555 GB/s, L2 cache: 40 MB" — bandwidth in 1e9 bytes/s
// rounded, L2 in MiB unrounded, numbers printed as absl::StrCat prints
// them (six significant digits).
std::string CudaDeviceString(const GpuDeviceInfo& info);

// Reads XLA's GpuTargetConfigProto text (`source` names it in errors).
// InvalidArgument with line:column for malformed text, a platform other
// than CUDA, or a missing compute capability or core count.
absl::StatusOr<GpuDeviceInfo> ParseGpuTargetConfig(absl::string_view text,
                                                   absl::string_view source);

// The targets shipped with xtune, by the names of XLA's spec files
// ("a100_sxm_40", "h100_sxm", "h100_pcie", "b200", "h200") and the short
// names "a100" (= a100_sxm_40), "h100" (= h100_sxm). InvalidArgument
// listing the names for an unknown one.
absl::StatusOr<GpuDeviceInfo> ShippedGpuTarget(absl::string_view name);
std::vector<std::string> ShippedGpuTargetNames();  // sorted, short names too

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_DEVICE_INFO_H_
