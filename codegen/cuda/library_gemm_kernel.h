// LibraryGemmKernel: the library candidate of a gemm fusion run as its
// three steps (library_gemm.h): the pack kernels, the gemm, the epilogue
// kernel. The steps are Kernels of the backend that made them (GPU
// launches, or emulated kernels), the gemm a function (cuBLASLt, or the
// emulator's HostGemm); scratch buffers come from that backend, are made on
// the first Run and kept until the kernel goes away.
//
// Thread-compatible (Kernel's contract).
#ifndef XTUNE_CODEGEN_CUDA_LIBRARY_GEMM_KERNEL_H_
#define XTUNE_CODEGEN_CUDA_LIBRARY_GEMM_KERNEL_H_

#include <functional>
#include <memory>
#include <string>

#include "codegen/backend.h"
#include "codegen/cuda/gpu_kernel.h"
#include "codegen/cuda/library_conv.h"
#include "codegen/cuda/library_gemm.h"

namespace xtune::cuda {

class LibraryGemmKernel : public QueuedKernel {
 public:
  // C = A x B for `shape`; each a buffer of the backend.
  using GemmFn = std::function<absl::Status(const GemmShape& shape,
                                            DeviceBuffer a, DeviceBuffer b,
                                            DeviceBuffer c)>;
  // `epilogue` is null when the gemm writes the fusion's output itself.
  // `finish` (may be null) waits for the steps when they are queued rather
  // than run (GPU kernels are enqueued, and `gemm` need not wait).
  LibraryGemmKernel(std::string name, Backend* backend, GemmShape shape,
                    std::unique_ptr<Kernel> pack_a,
                    std::unique_ptr<Kernel> pack_b,
                    std::unique_ptr<Kernel> epilogue, GemmFn gemm,
                    std::function<absl::Status()> finish = nullptr)
      : name_(std::move(name)),
        backend_(backend),
        shape_(shape),
        pack_a_(std::move(pack_a)),
        pack_b_(std::move(pack_b)),
        epilogue_(std::move(epilogue)),
        gemm_(std::move(gemm)),
        finish_(std::move(finish)) {}
  ~LibraryGemmKernel() override;

  // Errors: the steps' own, each prefixed with the fusion and the step;
  // ResourceExhausted when the scratch buffers cannot be had.
  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override;
  // The steps without the final wait (GPU kernels queued back to back);
  // Run() = Enqueue() + finish.
  absl::Status Enqueue(absl::Span<const DeviceBuffer> inputs,
                       DeviceBuffer output) override;

  const GemmShape& shape() const { return shape_; }

 private:
  std::string name_;
  Backend* backend_;
  GemmShape shape_;
  std::unique_ptr<Kernel> pack_a_, pack_b_, epilogue_;
  GemmFn gemm_;
  std::function<absl::Status()> finish_;
  bool allocated_ = false;
  DeviceBuffer a_, b_, c_;
};

// SplitKKernel: a split-k gemm's two kernels: `main` writes f32 partials
// into a scratch buffer of `partial_bytes` (made on the first Run, kept),
// `finish` sums them and applies the epilogue (inputs: the fusion's, then
// the partials). GPU kernels are queued and waited for once (`wait`, may
// be null for emulated kernels).
class SplitKKernel : public QueuedKernel {
 public:
  SplitKKernel(std::string name, Backend* backend, int64_t partial_bytes,
               std::unique_ptr<Kernel> main, std::unique_ptr<Kernel> finish,
               std::function<absl::Status()> wait)
      : name_(std::move(name)),
        backend_(backend),
        partial_bytes_(partial_bytes),
        main_(std::move(main)),
        finish_(std::move(finish)),
        wait_(std::move(wait)) {}
  ~SplitKKernel() override;
  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override;
  absl::Status Enqueue(absl::Span<const DeviceBuffer> inputs,
                       DeviceBuffer output) override;

 private:
  std::string name_;
  Backend* backend_;
  int64_t partial_bytes_;
  std::unique_ptr<Kernel> main_, finish_;
  std::function<absl::Status()> wait_;
  bool allocated_ = false;
  DeviceBuffer partials_;
};

// LibraryConvKernel: the cuDNN candidate of a convolution fusion run as its
// four steps (library_conv.h): pack_x, pack_w, the convolution (cuDNN, or
// the emulator's HostConv), the epilogue; scratch buffers as above.
class LibraryConvKernel : public QueuedKernel {
 public:
  using ConvFn = std::function<absl::Status(const ConvShape& shape, DeviceBuffer x,
                                            DeviceBuffer w, DeviceBuffer y)>;
  LibraryConvKernel(std::string name, Backend* backend, ConvShape shape,
                    std::unique_ptr<Kernel> pack_x, std::unique_ptr<Kernel> pack_w,
                    std::unique_ptr<Kernel> epilogue, ConvFn conv,
                    std::function<absl::Status()> finish = nullptr)
      : name_(std::move(name)),
        backend_(backend),
        shape_(std::move(shape)),
        pack_x_(std::move(pack_x)),
        pack_w_(std::move(pack_w)),
        epilogue_(std::move(epilogue)),
        conv_(std::move(conv)),
        finish_(std::move(finish)) {}
  ~LibraryConvKernel() override;
  absl::Status Run(absl::Span<const DeviceBuffer> inputs, DeviceBuffer output) override;
  absl::Status Enqueue(absl::Span<const DeviceBuffer> inputs, DeviceBuffer output) override;

 private:
  std::string name_;
  Backend* backend_;
  ConvShape shape_;
  std::unique_ptr<Kernel> pack_x_, pack_w_, epilogue_;
  ConvFn conv_;
  std::function<absl::Status()> finish_;
  bool allocated_ = false;
  DeviceBuffer x_, w_, y_;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_LIBRARY_GEMM_KERNEL_H_
