#include "codegen/cuda/gpu_kernel.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace xtune::cuda {

GpuKernel::~GpuKernel() {
  if (loaded_) driver_->UnloadModule(function_);
}

absl::Status GpuKernel::Run(absl::Span<const DeviceBuffer> inputs,
                            DeviceBuffer output) {
  absl::Status s = Enqueue(inputs, output);
  if (s.ok()) s = driver_->Synchronize();  // a fault is this kernel's
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(name_, " (grid ", grid_,
                                               ", block ", block_,
                                               "): ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status GpuKernel::Enqueue(absl::Span<const DeviceBuffer> inputs,
                                DeviceBuffer output) {
  if (static_cast<int>(inputs.size()) != inputs_) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, " takes ", inputs_, " inputs, got ", inputs.size()));
  }
  if (!loaded_) {
    absl::StatusOr<Driver::Function> f =
        driver_->LoadFunction(cubin_, kKernelFunction);
    if (!f.ok()) {
      return absl::Status(f.status().code(),
                          absl::StrCat(name_, ": ", f.status().message()));
    }
    function_ = *f;
    loaded_ = true;
  }
  if (in_place_input_ >= 0 &&
      inputs[in_place_input_].opaque != output.opaque) {
    XTUNE_RETURN_IF_ERROR(driver_->CopyOnDevice(
        reinterpret_cast<uint64_t>(output.opaque),
        reinterpret_cast<uint64_t>(inputs[in_place_input_].opaque),
        std::min(output.bytes, inputs[in_place_input_].bytes)));
  }
  std::vector<uint64_t> addresses;
  addresses.reserve(inputs.size() + 1);
  for (const DeviceBuffer& b : inputs) {
    addresses.push_back(reinterpret_cast<uint64_t>(b.opaque));
  }
  addresses.push_back(reinterpret_cast<uint64_t>(output.opaque));
  return driver_->LaunchWithAddresses(function_, grid_, block_, std::move(addresses));
}

}  // namespace xtune::cuda
