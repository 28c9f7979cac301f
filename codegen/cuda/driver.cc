#include "codegen/cuda/driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "util/status_macros.h"

namespace xtune::cuda {
namespace {

// The driver's C ABI (CUDA 13 cuda.h): CUresult is an int enum, CUdevice
// an int.
using CUresult = int;
using CUdevice = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kNoBinaryForGpu = 209;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kUnsupportedPtxVersion = 222;
constexpr CUresult kNotFound = 500;

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
  CUresult (*primary_ctx_retain)(void**, CUdevice);
  CUresult (*primary_ctx_release)(CUdevice);
  CUresult (*ctx_set_current)(void*);
  CUresult (*ctx_synchronize)();
  CUresult (*mem_alloc)(uint64_t*, size_t);
  CUresult (*mem_free)(uint64_t);
  CUresult (*memcpy_htod)(uint64_t, const void*, size_t);
  CUresult (*memcpy_dtoh)(void*, uint64_t, size_t);
  CUresult (*memcpy_dtod)(uint64_t, uint64_t, size_t);
  CUresult (*memset_d8)(uint64_t, unsigned char, size_t);
  CUresult (*module_load_data)(void**, const void*);
  CUresult (*module_unload)(void*);
  CUresult (*module_get_function)(void**, void*, const char*);
  CUresult (*launch_kernel)(void*, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, unsigned, void*, void**,
                            void**);
  CUresult (*event_create)(void**, unsigned);
  CUresult (*event_destroy)(void*);
  CUresult (*event_record)(void*, void*);
  CUresult (*event_elapsed)(float*, void*, void*);
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
      {"cuDevicePrimaryCtxRetain", reinterpret_cast<void**>(&a.primary_ctx_retain)},
      {"cuDevicePrimaryCtxRelease_v2", reinterpret_cast<void**>(&a.primary_ctx_release)},
      {"cuCtxSetCurrent", reinterpret_cast<void**>(&a.ctx_set_current)},
      {"cuCtxSynchronize", reinterpret_cast<void**>(&a.ctx_synchronize)},
      {"cuMemAlloc_v2", reinterpret_cast<void**>(&a.mem_alloc)},
      {"cuMemFree_v2", reinterpret_cast<void**>(&a.mem_free)},
      {"cuMemcpyHtoD_v2", reinterpret_cast<void**>(&a.memcpy_htod)},
      {"cuMemcpyDtoH_v2", reinterpret_cast<void**>(&a.memcpy_dtoh)},
      {"cuMemcpyDtoD_v2", reinterpret_cast<void**>(&a.memcpy_dtod)},
      {"cuMemsetD8_v2", reinterpret_cast<void**>(&a.memset_d8)},
      {"cuModuleLoadData", reinterpret_cast<void**>(&a.module_load_data)},
      {"cuModuleUnload", reinterpret_cast<void**>(&a.module_unload)},
      {"cuModuleGetFunction", reinterpret_cast<void**>(&a.module_get_function)},
      {"cuLaunchKernel", reinterpret_cast<void**>(&a.launch_kernel)},
      {"cuEventCreate", reinterpret_cast<void**>(&a.event_create)},
      {"cuEventDestroy_v2", reinterpret_cast<void**>(&a.event_destroy)},
      {"cuEventRecord", reinterpret_cast<void**>(&a.event_record)},
      // CUDA 12.8 added the _v2 that CUDA 13's cuda.h maps the name to;
      // older drivers have only the first.
      {"cuEventElapsedTime_v2|cuEventElapsedTime",
       reinterpret_cast<void**>(&a.event_elapsed)},
  };
  for (auto& s : symbols) {
    for (absl::string_view name : absl::StrSplit(s.name, '|')) {
      *s.slot = dlsym(d->handle_, std::string(name).c_str());
      if (*s.slot != nullptr) break;
    }
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
  if (context_ != nullptr) {
    CUdevice dev = 0;
    if (api_->device_get(&dev, 0) == kSuccess) api_->primary_ctx_release(dev);
  }
  // libcuda stays loaded: unloading the driver after cuInit is not safe.
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

absl::Status Driver::Check(int result, const char* call) const {
  if (result == kSuccess) return absl::OkStatus();
  std::string what = absl::StrCat(call, ": ", ErrorString(result));
  if (result == kOutOfMemory) return absl::ResourceExhaustedError(what);
  return absl::InternalError(what);
}

absl::Status Driver::Activate() {
  std::call_once(context_once_, [&] {
    CUdevice dev = 0;
    absl::Status s = Check(api_->device_get(&dev, 0), "cuDeviceGet");
    if (s.ok()) {
      s = Check(api_->primary_ctx_retain(&context_, dev),
                "cuDevicePrimaryCtxRetain");
    }
    if (!s.ok()) context_error_ = absl::UnavailableError(s.message());
  });
  XTUNE_RETURN_IF_ERROR(context_error_);
  return Check(api_->ctx_set_current(context_), "cuCtxSetCurrent");
}

absl::StatusOr<uint64_t> Driver::Allocate(int64_t bytes) {
  XTUNE_RETURN_IF_ERROR(Activate());
  uint64_t address = 0;
  absl::Status s = Check(
      api_->mem_alloc(&address, static_cast<size_t>(std::max<int64_t>(bytes, 1))),
      "cuMemAlloc");
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("allocating ", bytes,
                                               " bytes of device memory: ",
                                               s.message()));
  }
  return address;
}

absl::Status Driver::Free(uint64_t address) {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->mem_free(address), "cuMemFree");
}

absl::Status Driver::CopyToDevice(uint64_t dst, const void* src, int64_t bytes) {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->memcpy_htod(dst, src, static_cast<size_t>(bytes)),
               "cuMemcpyHtoD");
}

absl::Status Driver::CopyFromDevice(void* dst, uint64_t src, int64_t bytes) {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->memcpy_dtoh(dst, src, static_cast<size_t>(bytes)),
               "cuMemcpyDtoH");
}

absl::Status Driver::CopyOnDevice(uint64_t dst, uint64_t src, int64_t bytes) {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->memcpy_dtod(dst, src, static_cast<size_t>(bytes)),
               "cuMemcpyDtoD");
}

absl::Status Driver::Memset(uint64_t dst, uint8_t value, int64_t bytes) {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->memset_d8(dst, value, static_cast<size_t>(bytes)),
               "cuMemsetD8");
}

absl::Status Driver::Synchronize() {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->ctx_synchronize(), "cuCtxSynchronize");
}

absl::StatusOr<Driver::Function> Driver::LoadFunction(const std::string& cubin,
                                                      const std::string& name) {
  XTUNE_RETURN_IF_ERROR(Activate());
  Function f;
  CUresult r = api_->module_load_data(&f.module, cubin.data());
  if (r == kNoBinaryForGpu || r == kInvalidImage || r == kInvalidPtx ||
      r == kUnsupportedPtxVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the driver refuses the kernel image (compiled for another GPU, or "
        "by an NVRTC newer than the driver?): cuModuleLoadData: ",
        ErrorString(r)));
  }
  XTUNE_RETURN_IF_ERROR(Check(r, "cuModuleLoadData"));
  r = api_->module_get_function(&f.function, f.module, name.c_str());
  if (r != kSuccess) {
    api_->module_unload(f.module);
    if (r == kNotFound) {
      return absl::InvalidArgumentError(
          absl::StrCat("the kernel image has no function '", name, "'"));
    }
    return Check(r, "cuModuleGetFunction");
  }
  return f;
}

void Driver::UnloadModule(Function f) {
  if (f.module == nullptr || !Activate().ok()) return;
  api_->module_unload(f.module);
}

absl::Status Driver::Launch(Function f, int64_t grid, int block, void** params) {
  if (grid < 1 || grid > 0x7fffffff || block < 1 || block > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot launch a grid of ", grid, " blocks of ", block, " threads"));
  }
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->launch_kernel(f.function, static_cast<unsigned>(grid), 1, 1,
                                   static_cast<unsigned>(block), 1, 1, 0,
                                   nullptr, params, nullptr),
               "cuLaunchKernel");
}

absl::Status Driver::LaunchWithAddresses(Function f, int64_t grid, int block,
                                         std::vector<uint64_t> addresses) {
  // cuLaunchKernel takes a pointer to each argument.
  std::vector<void*> params;
  params.reserve(addresses.size());
  for (uint64_t& a : addresses) params.push_back(&a);
  return Launch(f, grid, block, params.data());
}

absl::StatusOr<void*> Driver::CreateEvent() {
  XTUNE_RETURN_IF_ERROR(Activate());
  void* event = nullptr;
  XTUNE_RETURN_IF_ERROR(Check(api_->event_create(&event, 0), "cuEventCreate"));
  return event;
}

void Driver::DestroyEvent(void* event) {
  if (event == nullptr || !Activate().ok()) return;
  api_->event_destroy(event);
}

absl::Status Driver::Record(void* event) {
  XTUNE_RETURN_IF_ERROR(Activate());
  return Check(api_->event_record(event, nullptr), "cuEventRecord");
}

absl::StatusOr<float> Driver::ElapsedMilliseconds(void* start, void* end) {
  XTUNE_RETURN_IF_ERROR(Activate());
  float ms = 0;
  // cuEventElapsedTime needs both events complete: wait for the later one
  // (a fault of the timed kernel surfaces here).
  XTUNE_RETURN_IF_ERROR(Check(api_->ctx_synchronize(), "cuCtxSynchronize"));
  XTUNE_RETURN_IF_ERROR(
      Check(api_->event_elapsed(&ms, start, end), "cuEventElapsedTime"));
  return ms;
}

}  // namespace xtune::cuda
