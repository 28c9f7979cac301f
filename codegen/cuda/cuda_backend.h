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
// With the machine's GPU (no target named) kernels run on device 0: buffers
// are device memory, Kernel::Run launches the cubin (gpu_kernel.h), and the
// autotuner times candidates in xtune_gpu_worker (gpu_profiler.h). With a
// target, kernels are compiled only (Run is Unavailable). Gemm fusions are
// the cuBLASLt candidate (library_gemm.h): generated pack and epilogue
// kernels around cublasLtMatmul, one candidate per algorithm cuBLASLt's
// heuristic proposes (GemmKey{algorithm}); compiling for a target compiles
// their pack and epilogue kernels only.
#ifndef XTUNE_CODEGEN_CUDA_CUDA_BACKEND_H_
#define XTUNE_CODEGEN_CUDA_CUDA_BACKEND_H_

#include <memory>
#include <string>

#include "codegen/backend.h"
#include "codegen/backend_factory.h"
#include "codegen/cuda/cublaslt.h"
#include "codegen/cuda/cudnn.h"
#include "codegen/cuda/cubin_cache.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/cuda/driver.h"
#include "codegen/cuda/gpu_backend.h"
#include "codegen/cuda/gpu_device_info.h"
#include "codegen/cuda/nvrtc.h"
#include "util/file.h"
#include "util/mutex.h"

namespace xtune::cuda {

class CudaBackend : public GpuBackend {
 public:
  // Errors: Unavailable without NVRTC, or without a driver and no target;
  // those of GpuTargetFromOptions.
  static absl::StatusOr<std::unique_ptr<CudaBackend>> Create(
      const BackendOptions& options);

  ~CudaBackend() override;

  std::string name() const override { return "cuda"; }
  absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) override;
  // With other candidates to choose from, a generated gemm whose kernel
  // ptxas reports as spilling registers is InvalidArgument (dropped before
  // timing, with the reason), as XLA drops spilling kernels.
  absl::StatusOr<std::unique_ptr<Kernel>> CompileCandidate(
      const Instruction& fusion, const KernelConfig& config,
      int64_t candidates) override;
  // Whether kernels run here: the GPU is the machine's, not a target.
  bool CanRunKernels() const override { return driver_ != nullptr; }
  absl::StatusOr<std::unique_ptr<Profiler>> CreateProfiler() override;
  // Twice the L2: a flush between timed runs evicts every line.
  int64_t FlushBytes() const override { return 2 * device().l2_cache_size; }

  // Device memory when the GPU is the machine's, else host memory (kernels
  // compiled for a target never run).
  absl::StatusOr<DeviceBuffer> Allocate(int64_t bytes) override;
  absl::Status CopyToDevice(const void* host, DeviceBuffer buffer) override;
  absl::Status CopyFromDevice(DeviceBuffer buffer, void* host) override;
  // Through host memory (a device-to-device copy is not wired yet).
  absl::Status CopyBuffer(DeviceBuffer src, DeviceBuffer dst) override;
  void Free(DeviceBuffer buffer) override;
  std::optional<DeviceBuffer> HostAlias(const void* data,
                                        int64_t bytes) override;

  // NVRTC compiles are kept by content (cubin_cache.h) under the kernel
  // cache root ($XTUNE_CACHE_DIR, ...).
  const CubinCache& cubin_cache() const { return cubins_; }

  // The driver when the GPU is the machine's, else null.
  const std::shared_ptr<Driver>& driver() const { return driver_; }

  // With cuBLASLt (a GPU): one candidate per algorithm its heuristic
  // proposes for a gemm fusion (4 at most, 16 exhaustive).
  std::vector<KernelConfig> Candidates(const Instruction& fusion,
                                       bool exhaustive) const override;
  // On a GPU with cuDNN (cudnn.h), a cuDNN call's cuda_cudnn candidates
  // are the forward algorithms cuDNN supports for it; without cuDNN the
  // call runs as generated kernels (its default too).
  KernelConfig DefaultConfig(const Instruction& fusion) const override;

  // NVRTC's output for one generated kernel named `name` (the fusion, or
  // "<fusion>.pack_a" ...) of (fusion, config), resources checked against
  // the device's limits: InvalidArgument when they are exceeded. `source`
  // receives the whole program text.
  absl::StatusOr<NvrtcOutput> CompileToCubin(const std::string& name,
                                             const KernelConfig& config,
                                             const CudaKernelSource& kernel,
                                             std::string* source) const;

 private:
  CudaBackend(GpuDeviceInfo device, std::shared_ptr<Driver> driver,
              std::unique_ptr<Nvrtc> nvrtc, const BackendOptions& options)
      : GpuBackend(std::move(device), options.excess_precision),
        driver_(std::move(driver)),
        nvrtc_(std::move(nvrtc)),
        cubins_(KernelCacheRoot()),
        dump_to_(options.dump_kernels_to) {}
  // Compiles and (with --xtune_dump_kernels_to) dumps one kernel; on a GPU
  // the result runs it, else it is compiled only. `refuse_spills`:
  // InvalidArgument when ptxas reports spilled registers.
  absl::StatusOr<std::unique_ptr<Kernel>> CompileKernel(
      const Instruction& fusion, const std::string& name,
      const KernelConfig& config, const CudaKernelSource& kernel, int inputs,
      bool refuse_spills = false);
  absl::StatusOr<std::unique_ptr<Kernel>> CompileWith(const Instruction& fusion,
                                                      const KernelConfig& config,
                                                      bool refuse_spills);
  absl::StatusOr<std::unique_ptr<Kernel>> CompileLibraryGemm(
      const Instruction& fusion, const KernelConfig& config);
  absl::StatusOr<std::unique_ptr<Kernel>> CompileLibraryConv(
      const Instruction& fusion, const KernelConfig& config);
  absl::Status Dump(const std::string& name, const KernelConfig& config,
                    const std::string& source, const NvrtcOutput& out);
  // cuBLASLt's scratch, made on first use.
  absl::StatusOr<uint64_t> Workspace();

  std::shared_ptr<Driver> driver_;
  std::unique_ptr<CublasLt> cublaslt_;  // with a GPU, when it loads
  std::string cublaslt_error_;
  std::unique_ptr<Cudnn> cudnn_;  // with a GPU, when it loads
  std::string cudnn_error_;
  Mutex workspace_mu_;
  uint64_t workspace_ = 0;
  std::unique_ptr<Nvrtc> nvrtc_;
  mutable CubinCache cubins_;
  std::string dump_to_;
  Mutex dump_mu_;
};

// "cuda", for the registry.
BackendRegistration CudaBackendRegistration();

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_CUDA_BACKEND_H_
