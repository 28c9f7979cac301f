// CpuProfiler: times CPU kernels in the worker program xtune_cpu_worker
// (started with posix_spawn, never fork), so a kernel that crashes, hangs or
// is OOM-killed fails as a candidate and never takes the compiler down.
//
// Within a fusion session (BeginFusion) one worker times every candidate of
// the fusion: the inputs are copied once into shared memory, each kernel is
// named by its object's path and digest and loaded by the worker on first
// use, and outputs come back through the same shared memory (poisoned
// before each command, so a kernel that writes nothing cannot pass for
// one that is right). A worker that dies — before, during or between
// commands — fails the candidate it was running (if any), and the next
// command gets a fresh worker. Without a session each Profile() uses a
// one-off worker.
//
// Thread-compatible: one thread uses a profiler at a time; other threads
// of the process may do anything meanwhile.
#ifndef XTUNE_CODEGEN_CPU_CPU_PROFILER_H_
#define XTUNE_CODEGEN_CPU_CPU_PROFILER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "codegen/cpu/cpu_worker_protocol.h"
#include "codegen/profiler.h"
#include "util/shared_memory.h"
#include "util/worker_process.h"

namespace xtune::cpu {

class CpuProfiler : public Profiler {
 public:
  // `worker` is the program; "" finds it (FindCpuWorker(), worker_path.h)
  // when the first worker starts. `threads` is the size of the
  // worker's thread pool; `flush_bytes` what a cache flush writes where
  // clflush is not available.
  CpuProfiler(std::string worker, int threads, int64_t flush_bytes);
  ~CpuProfiler() override;

  absl::Status BeginFusion(absl::Span<Kernel* const> kernels,
                           absl::Span<const Literal> inputs,
                           const Shape& output_shape) override;
  void EndFusion() override;
  absl::StatusOr<ProfileResult> Profile(Kernel& kernel,
                                        const KernelConfig& config,
                                        absl::Span<const Literal> inputs,
                                        const Shape& output_shape,
                                        const ProfileOptions& options) override;

  // The running worker's pid, or -1 (for tests that kill it).
  pid_t worker_pid() const { return worker_ ? worker_->pid() : -1; }
  // Workers started so far.
  int64_t workers_started() const { return workers_started_; }

 private:
  // Starts a worker and sends it the session's setup.
  absl::Status StartWorker(absl::Time deadline);

  std::string worker_path_;
  int threads_;
  int64_t flush_bytes_;
  bool in_session_ = false;
  std::vector<Kernel*> kernels_;
  WorkerSetup setup_;
  Shape output_shape_;
  SharedMemory shared_;
  std::unique_ptr<WorkerProcess> worker_;
  int64_t workers_started_ = 0;
};

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_CPU_PROFILER_H_
