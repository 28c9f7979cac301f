// XLA's GpuTargetConfigProto text (--xla_gpu_target_config_filename): any
// text gives a device or an error.
#include "codegen/cuda/gpu_device_info.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<xtune::cuda::GpuDeviceInfo> d =
      xtune::cuda::ParseGpuTargetConfig(xtune::fuzz::Bytes(data, size), "fuzz.txtpb");
  if (d.ok()) {
    (void)xtune::cuda::CudaDeviceString(*d);
    (void)d->Arch();
  }
  return 0;
}
