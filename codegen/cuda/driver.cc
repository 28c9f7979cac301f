#include "codegen/cuda/driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xtune::cuda {
namespace {

// The driver's C ABI (CUDA 13 cuda.h): CUresult is an int enum, CUdevice
// an int.
using CUresult = int;
using CUdevice = int;
constexpr CUresult kSuccess = 0;

// CUdevice_attribute values used here.
enum Attribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kMaxRegistersPerBlock = 12,
  kClockRateKhz = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRateKhz = 36,
  kGlobalMemoryBusWidthBits = 37,
  kL2CacheSize = 38,
  kMaxThreadsPerMultiprocessor = 39,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxRegistersPerMultiprocessor = 82,
  kMaxSharedMemoryPerBlockOptin = 97,
};

}  // namespace

struct Driver::Api {
  CUresult (*init)(unsigned int);
  CUresult (*driver_version)(int*);
  CUresult (*device_count)(int*);
  CUresult (*device_get)(CUdevice*, int);
  CUresult (*attribute)(int*, int, CUdevice);
  CUresult (*name)(char*, int, CUdevice);
  CUresult (*total_mem)(size_t*, CUdevice);
  CUresult (*error_name)(CUresult, const char**);
  CUresult (*error_string)(CUresult, const char**);
};

absl::StatusOr<std::unique_ptr<Driver>> Driver::Load() {
  const char* env = std::getenv("XTUNE_LIBCUDA");
  std::string lib = env != nullptr && *env ? env : "libcuda.so.1";
  std::unique_ptr<Driver> d(new Driver());
  d->handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (d->handle_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no NVIDIA driver (", lib, " not found: ", dlerror(), ")"));
  }
  d->api_ = std::make_unique<Api>();
  Api& a = *d->api_;
  struct {
    const char* name;
    void** slot;
  } symbols[] = {
      {"cuInit", reinterpret_cast<void**>(&a.init)},
      {"cuDriverGetVersion", reinterpret_cast<void**>(&a.driver_version)},
      {"cuDeviceGetCount", reinterpret_cast<void**>(&a.device_count)},
      {"cuDeviceGet", reinterpret_cast<void**>(&a.device_get)},
      {"cuDeviceGetAttribute", reinterpret_cast<void**>(&a.attribute)},
      {"cuDeviceGetName", reinterpret_cast<void**>(&a.name)},
      {"cuDeviceTotalMem_v2", reinterpret_cast<void**>(&a.total_mem)},
      {"cuGetErrorName", reinterpret_cast<void**>(&a.error_name)},
      {"cuGetErrorString", reinterpret_cast<void**>(&a.error_string)},
  };
  for (auto& s : symbols) {
    *s.slot = dlsym(d->handle_, s.name);
    if (*s.slot == nullptr) {
      return absl::UnavailableError(
          absl::StrCat("the NVIDIA driver ", lib, " lacks ", s.name));
    }
  }
  if (CUresult r = a.init(0); r != kSuccess) {
    return absl::UnavailableError(
        absl::StrCat("no CUDA device (cuInit: ", d->ErrorString(r), ")"));
  }
  a.driver_version(&d->version_);
  if (CUresult r = a.device_count(&d->device_count_); r != kSuccess) {
    return absl::UnavailableError(absl::StrCat(
        "no CUDA device (cuDeviceGetCount: ", d->ErrorString(r), ")"));
  }
  if (d->device_count_ == 0) {
    return absl::UnavailableError("no CUDA device (the driver sees none)");
  }
  return d;
}

Driver::~Driver() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::string Driver::ErrorString(int result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_ != nullptr) {
    api_->error_name(result, &name);
    api_->error_string(result, &text);
  }
  return absl::StrCat(name != nullptr ? name : absl::StrCat("CUresult ", result),
                      text != nullptr ? absl::StrCat(": ", text) : "");
}

absl::StatusOr<GpuDeviceInfo> Driver::Describe(int ordinal) const {
  if (ordinal < 0 || ordinal >= device_count_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no CUDA device ", ordinal, " (the driver sees ", device_count_, ")"));
  }
  const Api& a = *api_;
  CUdevice dev = 0;
  if (CUresult r = a.device_get(&dev, ordinal); r != kSuccess) {
    return absl::UnavailableError(
        absl::StrCat("cuDeviceGet(", ordinal, "): ", ErrorString(r)));
  }
  absl::Status error;
  auto attr = [&](int which) -> int64_t {
    int v = 0;
    if (CUresult r = a.attribute(&v, which, dev); r != kSuccess && error.ok()) {
      error = absl::UnavailableError(absl::StrCat(
          "cuDeviceGetAttribute(", which, "): ", ErrorString(r)));
    }
    return v;
  };
  GpuDeviceInfo info;
  char name[256] = {0};
  a.name(name, sizeof(name) - 1, dev);
  info.name = name;
  size_t total = 0;
  a.total_mem(&total, dev);
  info.device_memory_size = static_cast<int64_t>(total);
  info.cc_major = static_cast<int>(attr(kComputeCapabilityMajor));
  info.cc_minor = static_cast<int>(attr(kComputeCapabilityMinor));
  info.core_count = static_cast<int>(attr(kMultiprocessorCount));
  // As XLA's CudaExecutor::CreateDeviceDescription computes them, so that
  // the device string matches XLA's: the clock in kHz / 1e6, and the
  // bandwidth as 2 x memory clock x bus width (double data rate).
  info.clock_rate_ghz = static_cast<float>(attr(kClockRateKhz)) / 1e6f;
  info.memory_bandwidth =
      2 * attr(kMemoryClockRateKhz) * 1000 * attr(kGlobalMemoryBusWidthBits) / 8;
  info.l2_cache_size = attr(kL2CacheSize);
  info.threads_per_block_limit = static_cast<int>(attr(kMaxThreadsPerBlock));
  info.threads_per_warp = static_cast<int>(attr(kWarpSize));
  info.threads_per_core_limit =
      static_cast<int>(attr(kMaxThreadsPerMultiprocessor));
  info.shared_memory_per_block = attr(kMaxSharedMemoryPerBlock);
  info.shared_memory_per_block_optin = attr(kMaxSharedMemoryPerBlockOptin);
  info.shared_memory_per_core = attr(kMaxSharedMemoryPerMultiprocessor);
  info.registers_per_core_limit = attr(kMaxRegistersPerMultiprocessor);
  info.registers_per_block_limit = attr(kMaxRegistersPerBlock);
  if (!error.ok()) return error;
  return info;
}

}  // namespace xtune::cuda
