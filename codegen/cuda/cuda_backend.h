// Backend `cuda`: the generated kernels (cuda_kernels.h) compiled by NVRTC
// to cubin for the GPU's architecture (sm_90a on Hopper), within its
// register and shared-memory limits as ptxas reports them. The GPU is the
// machine's (driver API) or, without one, a target: a GpuTargetConfigProto
// file (--xla_gpu_target_config_filename) or a shipped target
// (--xtune_gpu_target=h200): deviceless compiles, where every fusion is
// compiled, configs come from the cache or the default (nothing can be
// timed), and --xtune_dump_kernels_to=DIR keeps each kernel's .cu, .ptx,
// .cubin and a manifest line.
//
// Not yet: launching kernels (module load, launch, device buffers), the
// GPU profiler worker and cuBLASLt; until then Kernel::Run is Unavailable
// and gemm fusions run on the evaluator.
#ifndef XTUNE_CODEGEN_CUDA_CUDA_BACKEND_H_
#define XTUNE_CODEGEN_CUDA_CUDA_BACKEND_H_

#include <memory>
#include <string>

#include "codegen/backend.h"
#include "codegen/backend_factory.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/cuda/gpu_backend.h"
#include "codegen/cuda/gpu_device_info.h"
#include "codegen/cuda/nvrtc.h"
#include "util/mutex.h"

namespace xtune::cuda {

class CudaBackend : public GpuBackend {
 public:
  // Errors: Unavailable without NVRTC, or without a driver and no target;
  // those of GpuTargetFromOptions.
  static absl::StatusOr<std::unique_ptr<CudaBackend>> Create(
      const BackendOptions& options);

  std::string name() const override { return "cuda"; }
  absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) override;
  bool CanRunKernels() const override { return false; }

  // NVRTC's output for (fusion, config), resources checked against the
  // device's limits: InvalidArgument when they are exceeded.
  absl::StatusOr<NvrtcOutput> CompileToCubin(const Instruction& fusion,
                                             const KernelConfig& config,
                                             std::string* source) const;

 private:
  CudaBackend(GpuDeviceInfo device, std::unique_ptr<Nvrtc> nvrtc,
              const BackendOptions& options)
      : GpuBackend(std::move(device), options.excess_precision),
        nvrtc_(std::move(nvrtc)),
        dump_to_(options.dump_kernels_to) {}
  absl::Status Dump(const Instruction& fusion, const KernelConfig& config,
                    const std::string& source, const NvrtcOutput& out);

  std::unique_ptr<Nvrtc> nvrtc_;
  std::string dump_to_;
  Mutex dump_mu_;
};

// "cuda", for the registry.
BackendRegistration CudaBackendRegistration();

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUDA_BACKEND_H_
