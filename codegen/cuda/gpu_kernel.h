// GpuKernel: one fusion's kernel as a cubin with its launch geometry,
// launched on device 0 through the driver (driver.h). Every kernel takes
// the device addresses of the fusion's inputs, then of its output
// (cuda_kernels.h). The module is loaded on the first Run, in the
// backend's context.
//
// Thread-compatible: one Run at a time (Kernel's contract).
#ifndef XTUNE_CODEGEN_CUDA_GPU_KERNEL_H_
#define XTUNE_CODEGEN_CUDA_GPU_KERNEL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "codegen/backend.h"
#include "codegen/cuda/driver.h"

namespace xtune::cuda {

// The entry function of every generated kernel.
inline constexpr char kKernelFunction[] = "xt_kernel";

// A kernel whose work can be queued on the default stream without waiting
// for it (a launch, or several steps: library_gemm_kernel.h), so that the
// profiler's events bracket the device's work only.
class QueuedKernel : public Kernel {
 public:
  // Run() without the final wait: a fault surfaces at the next
  // synchronisation.
  virtual absl::Status Enqueue(absl::Span<const DeviceBuffer> inputs,
                               DeviceBuffer output) = 0;
};

class GpuKernel : public QueuedKernel {
 public:
  // `in_place_input`: CudaKernelSource::in_place_input (-1: none).
  GpuKernel(std::shared_ptr<Driver> driver, std::string name,
            std::string cubin, int64_t grid, int block, int inputs,
            int in_place_input = -1)
      : driver_(std::move(driver)),
        name_(std::move(name)),
        cubin_(std::move(cubin)),
        grid_(grid),
        block_(block),
        inputs_(inputs),
        in_place_input_(in_place_input) {}
  ~GpuKernel() override;

  // Launches the kernel and waits for it; an in-place kernel's input is
  // first copied into the output when the two buffers differ.
  // InvalidArgument for the wrong number of buffers or an image the driver
  // refuses; Internal naming the fusion for a launch that failed or faulted
  // (the driver's error, e.g. CUDA_ERROR_ILLEGAL_ADDRESS; the process's
  // context is then unusable).
  absl::Status Run(absl::Span<const DeviceBuffer> inputs,
                   DeviceBuffer output) override;
  absl::Status Enqueue(absl::Span<const DeviceBuffer> inputs,
                       DeviceBuffer output) override;

  const std::string& name() const { return name_; }
  const std::string& cubin() const { return cubin_; }
  int64_t grid() const { return grid_; }
  int block() const { return block_; }
  int in_place_input() const { return in_place_input_; }

 private:
  std::shared_ptr<Driver> driver_;
  std::string name_;
  std::string cubin_;
  int64_t grid_;
  int block_;
  int inputs_;
  int in_place_input_;
  bool loaded_ = false;
  Driver::Function function_;
};

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_KERNEL_H_
