// Backend `cuda_emulator`: the CUDA backend's generated kernels, built by
// the host compiler against the emulated prelude and run by the emulator
// (emulator.h) on the CPU, for a named GPU (default an H200). Its device
// string is that GPU's, so it reads the cache entries a real GPU of that
// type wrote; it never tunes (ChecksOnly): `xtune compile` checks every
// candidate against the reference, `xtune run` uses the cached or default
// config. Gemm fusions run as the cuBLASLt candidate (library_gemm.h): its
// generated pack and epilogue kernels emulated, the gemm itself by
// HostGemm in f32. Buffers are host memory.
#ifndef XTUNE_CODEGEN_CUDA_EMULATOR_EMULATOR_BACKEND_H_
#define XTUNE_CODEGEN_CUDA_EMULATOR_EMULATOR_BACKEND_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen/backend.h"
#include "codegen/backend_factory.h"
#include "codegen/cpu/host_compiler.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/cuda/gpu_backend.h"
#include "codegen/cuda/gpu_device_info.h"

namespace xtune::cuda {

class EmulatorBackend : public GpuBackend {
 public:
  // Errors: those of GpuTargetFromOptions; Unavailable without a C++
  // compiler.
  static absl::StatusOr<std::unique_ptr<EmulatorBackend>> Create(
      const BackendOptions& options);

  std::string name() const override { return "cuda_emulator"; }
  absl::StatusOr<std::unique_ptr<Kernel>> Compile(
      const Instruction& fusion, const KernelConfig& config) override;
  // The kernels of every request (1-3 each: a library gemm's pack and
  // epilogue kernels, a split-k gemm's epilogue) that are not cached build
  // as one translation unit (HostCompiler::LoadKernels).
  std::vector<absl::StatusOr<std::unique_ptr<Kernel>>> CompileKernels(
      absl::Span<const KernelRequest> requests) override;
  bool CompilesTogether() const override { return true; }
  bool ChecksOnly() const override { return true; }

 private:
  EmulatorBackend(GpuDeviceInfo device, std::unique_ptr<cpu::HostCompiler> c,
                  bool excess_precision)
      : GpuBackend(std::move(device), excess_precision),
        compiler_(std::move(c)) {}

  // A config's emulated kernels: their names and sources, and how they
  // make the config's Kernel (none: the one part is it).
  struct Plan {
    std::vector<std::pair<std::string, CudaKernelSource>> parts;
    std::function<std::unique_ptr<Kernel>(std::vector<std::unique_ptr<Kernel>>)>
        assemble;
  };
  // Non-const: the kernels it assembles hold the backend.
  absl::StatusOr<Plan> PlanFor(const Instruction& fusion,
                               const KernelConfig& config);

  std::unique_ptr<cpu::HostCompiler> compiler_;
};

// Compiles `body` (a kernel from cuda_kernels.h, or a test's own in the
// same vocabulary) against the emulated prelude and returns a kernel that
// runs it with `grid` x `block` threads; `elem_bytes` as in
// CudaKernelSource. For tests and tools.
absl::StatusOr<std::unique_ptr<Kernel>> CompileForEmulator(
    cpu::HostCompiler& compiler, const std::string& name,
    const CudaKernelSource& source, const GpuDeviceInfo& device);

// The host compiler options the emulator builds kernels with.
cpu::HostCompilerOptions EmulatorCompilerOptions();

// "cuda_emulator", for the registry.
BackendRegistration EmulatorBackendRegistration();

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_EMULATOR_EMULATOR_BACKEND_H_
