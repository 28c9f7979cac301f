// What the backends `cuda` and `cuda_emulator` share: the GPU they compile
// for (its device string keys the cache), the search spaces
// (cuda_candidates.h), and the kernel a (fusion, config) generates,
// rounding f16/bf16 results and accumulators without excess precision.
#ifndef XTUNE_CODEGEN_CUDA_GPU_BACKEND_H_
#define XTUNE_CODEGEN_CUDA_GPU_BACKEND_H_

#include <string>
#include <vector>

#include "codegen/backend.h"
#include "codegen/cuda/cuda_kernels.h"
#include "codegen/cuda/gpu_device_info.h"
#include "codegen/cuda/library_conv.h"
#include "codegen/cuda/library_gemm.h"
#include "codegen/cuda/triton_gemm.h"

namespace xtune::cuda {

// A cuDNN call computed as an implicit gemm: the triton_gemm kernel with
// the call's convolution as its core (cpu::GemmFusion::conv), with
// triton_gemm's parameters. Stored as xtune's own result kind, as XLA has
// no Triton convolutions.
inline constexpr char kImplicitGemmKind[] = "cuda_implicit_gemm";

class GpuBackend : public Backend {
 public:
  std::string DeviceDescription() const override;
  std::vector<KernelConfig> Candidates(const Instruction& fusion,
                                       bool exhaustive) const override;
  KernelConfig DefaultConfig(const Instruction& fusion) const override;
  bool ExcessPrecision() const override { return excess_precision_; }
  // From Ampere (sm_80) on, as XLA.
  bool Tf32Dots() const override { return device_.cc_major >= 8; }
  // FP8 tensor cores (mma with e4m3/e5m2 operands): sm_89 and later.
  bool Fp8Mma() const { return device_.cc_major * 10 + device_.cc_minor >= 89; }
  // Any config of the fusion's kind, with that kind's parameters, that the
  // generator takes: configs from a cache made elsewhere (another xtune, a
  // GPU's exhaustive search) need not be in this search space.
  absl::Status CheckConfig(const Instruction& fusion,
                           const KernelConfig& config) const override;

  // cuda_cublaslt configs are library calls, stored as XLA's
  // GemmKey{algorithm}; cuda_cudnn ones too, as XLA's ConvKey{algorithm,
  // tensor_ops_enabled} (its heuristic's choice, -1, in the default codec);
  // triton_gemm configs are XLA's TritonGemmKey; the others use the default
  // codec.
  bool IsLibraryCall(const KernelConfig& config) const override;
  absl::Status ConfigToResult(const KernelConfig& config,
                              xla::AutotuneResult* result) const override;
  absl::StatusOr<KernelConfig> ConfigFromResult(
      const xla::AutotuneResult& result) const override;
  // XLA's NATIVE_EMITTER result: the fusion's default generated kernel.
  absl::StatusOr<KernelConfig> ConfigFromResultFor(
      const Instruction& fusion,
      const xla::AutotuneResult& result) const override;

  // The generated kernel (body after the prelude). InvalidArgument for a
  // config CheckConfig rejects; Unimplemented for gemm fusions (see
  // LibrarySource) and for what the generators cannot do.
  absl::StatusOr<CudaKernelSource> Source(const Instruction& fusion,
                                          const KernelConfig& config) const;
  // The generated gemm's kernels (triton_gemm.h) for a triton_gemm config.
  // InvalidArgument for a config the generator refuses; Unimplemented for
  // dots it cannot express.
  absl::StatusOr<TritonGemm> TritonSource(const Instruction& fusion,
                                          const KernelConfig& config) const;
  // The library candidate's kernels for a gemm fusion (library_gemm.h).
  // InvalidArgument for a config that is not cuda_cublaslt; Unimplemented
  // for dots it cannot express (the evaluator computes them).
  absl::StatusOr<LibraryGemm> LibrarySource(const Instruction& fusion,
                                            const KernelConfig& config) const;

  // The cuDNN candidate's kernels for XLA's forward or bias+activation
  // cuDNN call (library_conv.h). InvalidArgument for a config that is not
  // cuda_cudnn or a fusion that takes none.
  absl::StatusOr<LibraryConv> ConvSource(const Instruction& fusion,
                                         const KernelConfig& config) const;

  // The SHA-256 of the sources of every kernel the config builds: the library candidate's cuBLASLt algorithms share their pack
  // and epilogue kernels, so the autotuner compiles them once. The config's
  // text when the kernels cannot be generated (Compile reports why).
  std::string CodeKey(const Instruction& fusion,
                      const KernelConfig& config) const override;

  const GpuDeviceInfo& device() const { return device_; }

  // The generated kernels' default for a fusion: for a cuDNN call whose
  // convolution is one gemm (not grouped), the implicit gemm
  // (kImplicitGemmKind: XLA's default Triton tiling, the input's patches
  // read by the loaders); else the fusion's kind's (cuda_candidates.h).
  KernelConfig GeneratedDefault(const Instruction& fusion) const;

 protected:
  GpuBackend(GpuDeviceInfo device, bool excess_precision)
      : device_(std::move(device)), excess_precision_(excess_precision) {}

 private:
  // The config's kind is the fusion's and its parameters are the kind's.
  absl::Status CheckKindAndParameters(const Instruction& fusion,
                                      const KernelConfig& config) const;
  // The fused computation the generators see: a copy rounding every
  // f16/bf16 result without excess precision (`holder` keeps it), else the
  // fusion's own.
  const Computation& Generated(const Instruction& fusion,
                               std::unique_ptr<Module>* holder) const;

  GpuDeviceInfo device_;
  bool excess_precision_;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_BACKEND_H_
