// CpuProfiler: times CPU kernels in the worker program xtune_cpu_worker
// (codegen/worker_profiler.h has the session, restart and poisoning rules
// it shares with the GPU profiler). Each kernel is named by its object's
// path and digest and loaded by the worker on first use.
//
// Thread-compatible: one thread uses a profiler at a time; other threads
// of the process may do anything meanwhile.
#ifndef XTUNE_CODEGEN_CPU_CPU_PROFILER_H_
#define XTUNE_CODEGEN_CPU_CPU_PROFILER_H_

#include <string>
#include <vector>

#include "codegen/worker_profiler.h"

namespace xtune::cpu {

class CpuProfiler : public WorkerProfiler {
 public:
  // `worker` is the program; "" finds it (FindCpuWorker(), worker_path.h)
  // when the first worker starts. `threads` is the size of the
  // worker's thread pool; `flush_bytes` what a cache flush writes where
  // clflush is not available.
  CpuProfiler(std::string worker, int threads, int64_t flush_bytes)
      : WorkerProfiler(std::move(worker)),
        threads_(threads),
        flush_bytes_(flush_bytes) {}

 protected:
  absl::StatusOr<std::string> FindWorker() const override;
  std::string SetupMessage(absl::Span<Kernel* const> kernels,
                           const WorkerLayout& layout,
                           std::vector<bool>* runnable) const override;
  std::string ForeignKernelError() const override {
    return "the CPU profiler times only the CPU backend's kernels";
  }

 private:
  int threads_;
  int64_t flush_bytes_;
};

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_PROFILER_H_
