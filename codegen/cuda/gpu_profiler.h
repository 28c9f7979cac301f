// GpuProfiler: times the `cuda` backend's kernels (GpuKernel) in the worker
// program xtune_gpu_worker on device 0, by CUDA events around each run,
// after a warm-up by time and, between runs, an L2 flush of flush_bytes (at
// least twice the L2); see gpu_worker_main.cc. The session rules, restarts
// and output poisoning are WorkerProfiler's (codegen/worker_profiler.h): a
// kernel that faults the device fails as a candidate, and the next one gets
// a fresh worker and context. Profile() is Unavailable when the worker
// cannot reach a GPU.
//
// The cuBLASLt candidates of gemm fusions (LibraryGemmKernel) and split-k
// gemms (SplitKKernel, two kernels and a scratch buffer) are timed in this
// process, the same way (events around each run after a warm-up and
// an L2 flush), as XLA times cuBLAS: cuBLASLt needs its own handle and
// scratch, and the pack and epilogue kernels around it are the same
// generated code the emulator checks.
//
// Thread-compatible: one thread uses a profiler at a time.
#ifndef XTUNE_CODEGEN_CUDA_GPU_PROFILER_H_
#define XTUNE_CODEGEN_CUDA_GPU_PROFILER_H_

#include <string>
#include <vector>

#include "codegen/worker_profiler.h"

namespace xtune::cuda {

class CudaBackend;
class QueuedKernel;

class GpuProfiler : public WorkerProfiler {
 public:
  // `worker` is the program; "" finds it (FindGpuWorker()) when the first
  // worker starts.
  // `backend` (may be null: library candidates are then refused) runs the
  // cuBLASLt candidates in this process.
  GpuProfiler(std::string worker, int64_t flush_bytes,
              CudaBackend* backend = nullptr)
      : WorkerProfiler(std::move(worker)),
        flush_bytes_(flush_bytes),
        backend_(backend) {}

  absl::StatusOr<ProfileResult> Profile(Kernel& kernel,
                                        const KernelConfig& config,
                                        absl::Span<const Literal> inputs,
                                        const Shape& output_shape,
                                        const ProfileOptions& options) override;

 protected:
  absl::StatusOr<std::string> FindWorker() const override;
  std::string SetupMessage(absl::Span<Kernel* const> kernels,
                           const WorkerLayout& layout,
                           std::vector<bool>* runnable) const override;
  std::string ForeignKernelError() const override {
    return "the GPU profiler times only the cuda backend's kernels";
  }

 private:
  absl::StatusOr<ProfileResult> ProfileHere(QueuedKernel& kernel,
                                            absl::Span<const Literal> inputs,
                                            const Shape& output_shape,
                                            const ProfileOptions& options);

  int64_t flush_bytes_;
  CudaBackend* backend_;
};

// FindWorkerProgram (util/worker_path.h) for xtune_gpu_worker and
// $XTUNE_GPU_WORKER.
absl::StatusOr<std::string> FindGpuWorker();

}  // namespace xtune::cuda

#endif  // XTUNE_CODEGEN_CUDA_GPU_PROFILER_H_
