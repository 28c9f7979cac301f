// The CUDA driver API (libcuda.so.1), loaded at run time with dlopen: with
// no NVIDIA driver the CUDA backend is unavailable with the reason, and the
// same binary runs everywhere. Declares the small part of the driver's C
// ABI xtune uses (from CUDA 13's cuda.h), so the build needs no headers.
//
// Memory, modules, launches and events work in device 0's primary context,
// which every such call makes current on the calling thread first (cheap),
// so any thread may use them; all of them use the legacy default stream,
// so they are ordered with each other.
//
// Thread-safe: the driver is.
#ifndef XTUNE_CODEGEN_CUDA_DRIVER_H_
#define XTUNE_CODEGEN_CUDA_DRIVER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda/gpu_device_info.h"

namespace xtune::cuda {

class Driver {
 public:
  // dlopen()s libcuda.so.1 ($XTUNE_LIBCUDA names another path) and calls
  // cuInit. Unavailable: "no NVIDIA driver (libcuda.so.1 not found)",
  // "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE ...)", or a missing
  // symbol.
  static absl::StatusOr<std::unique_ptr<Driver>> Load();
  ~Driver();

  // The driver's CUDA version, e.g. 13000.
  int version() const { return version_; }
  int device_count() const { return device_count_; }

  // The properties of device `ordinal`, read from the driver: what cache
  // keys and the code generators need. InvalidArgument for a bad ordinal.
  absl::StatusOr<GpuDeviceInfo> Describe(int ordinal) const;

  // "CUDA_ERROR_...: text" for a driver result code.
  std::string ErrorString(int result) const;

  // ---- Device 0 (its primary context, retained on first use).
  // Errors of everything below: Unavailable when the context cannot be
  // had; Internal with the call and the driver's error (for a launch that
  // faulted, CUDA_ERROR_ILLEGAL_ADDRESS and the like: the context is then
  // unusable, so profiling runs kernels in a worker process).

  // Device memory: a device address, 256-byte aligned. ResourceExhausted
  // when the device is out of memory.
  absl::StatusOr<uint64_t> Allocate(int64_t bytes);
  absl::Status Free(uint64_t address);
  absl::Status CopyToDevice(uint64_t dst, const void* src, int64_t bytes);
  absl::Status CopyFromDevice(void* dst, uint64_t src, int64_t bytes);
  absl::Status CopyOnDevice(uint64_t dst, uint64_t src, int64_t bytes);
  absl::Status Memset(uint64_t dst, uint8_t value, int64_t bytes);
  // Waits for everything launched so far; a fault of an earlier
  // asynchronous launch is reported here.
  absl::Status Synchronize();

  // A loaded cubin and one of its functions. Unload with UnloadModule.
  struct Function {
    void* module = nullptr;
    void* function = nullptr;
  };
  // InvalidArgument when the driver refuses the image (wrong architecture:
  // CUDA_ERROR_NO_BINARY_FOR_GPU) or has no function `name`.
  absl::StatusOr<Function> LoadFunction(const std::string& cubin,
                                        const std::string& name);
  void UnloadModule(Function f);
  // Launches `f` on a 1-D grid with static shared memory only; `params`
  // points at each kernel argument (cuLaunchKernel's kernelParams).
  // Asynchronous: faults surface at the next Synchronize().
  absl::Status Launch(Function f, int64_t grid, int block, void** params);
  // The same for a kernel whose parameters are all device addresses (every
  // generated kernel: its inputs, then its output).
  absl::Status LaunchWithAddresses(Function f, int64_t grid, int block,
                                   std::vector<uint64_t> addresses);

  // Events on the default stream, for timing: Record, then
  // ElapsedMilliseconds (which waits for the later event).
  absl::StatusOr<void*> CreateEvent();
  void DestroyEvent(void* event);
  absl::Status Record(void* event);
  absl::StatusOr<float> ElapsedMilliseconds(void* start, void* end);

 private:
  Driver() = default;
  // Makes the primary context of device 0 current on this thread.
  absl::Status Activate();
  absl::Status Check(int result, const char* call) const;
  struct Api;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  int version_ = 0;
  int device_count_ = 0;
  void* context_ = nullptr;  // retained once, under context_once_
  absl::Status context_error_;
  std::once_flag context_once_;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_DRIVER_H_
