// The CUDA driver API (libcuda.so.1), loaded at run time with dlopen: with
// no NVIDIA driver the CUDA backend is unavailable with the reason, and the
// same binary runs everywhere. Declares the small part of the driver's C
// ABI xtune uses (from CUDA 13's cuda.h), so the build needs no headers.
//
// Thread-safe: the driver is; a context is made current on the calling
// thread by the functions that need one.
#ifndef XTUNE_CODEGEN_CUDA_DRIVER_H_
#define XTUNE_CODEGEN_CUDA_DRIVER_H_

#include <cstdint>
#include <memory>
#include <string>

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

 private:
  Driver() = default;
  struct Api;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  int version_ = 0;
  int device_count_ = 0;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_DRIVER_H_
