// WorkerProfiler: the part of a profiler that times kernels in a worker
// program (started with posix_spawn, never fork), shared by the CPU
// backend's (codegen/cpu/cpu_profiler.h) and the GPU's
// (codegen/cuda/gpu_profiler.h). A kernel that crashes, hangs, faults the
// device or is OOM-killed takes only the worker down: it fails as a
// candidate, never the compile.
//
// Within a fusion session (BeginFusion) one worker times every candidate of
// the fusion: the inputs are copied once into shared memory (fd 4 of the
// worker), the subclass describes the session's kernels in the setup
// message, and outputs come back through the same shared memory (poisoned
// before each command, so a kernel that writes nothing cannot pass for one
// that is right). A worker that dies — before, during or between commands —
// fails the candidate it was running (if any), and the next command gets a
// fresh worker; so does one that reports a kernel error (a faulted GPU
// context is unusable). Without a session each Profile() uses a one-off
// worker.
//
// Messages: util/worker_channel.h. Commands are `kernel min_repetitions
// max_repetitions budget_ns flush`; replies carry the seconds of each timed
// repetition.
//
// Thread-compatible: one thread uses a profiler at a time.
#ifndef XTUNE_CODEGEN_WORKER_PROFILER_H_
#define XTUNE_CODEGEN_WORKER_PROFILER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codegen/profiler.h"
#include "util/shared_memory.h"
#include "util/worker_channel.h"
#include "util/worker_process.h"

namespace xtune {

class WorkerProfiler : public Profiler {
 public:
  ~WorkerProfiler() override;

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

 protected:
  // `worker` is the program's path; "" asks FindWorker() when the first
  // worker starts.
  explicit WorkerProfiler(std::string worker) : worker_path_(std::move(worker)) {}

  // Unavailable when the program is nowhere to be found.
  virtual absl::StatusOr<std::string> FindWorker() const = 0;
  // The setup message for `kernels` (the session's, in order) in `layout`;
  // `runnable[i]` says whether the worker can run kernels[i] (one of this
  // backend's).
  virtual std::string SetupMessage(absl::Span<Kernel* const> kernels,
                                   const WorkerLayout& layout,
                                   std::vector<bool>* runnable) const = 0;
  // The error for a kernel the worker cannot run.
  virtual std::string ForeignKernelError() const = 0;

 private:
  absl::Status StartWorker(absl::Time deadline);

  std::string worker_path_;
  bool in_session_ = false;
  std::vector<Kernel*> kernels_;
  std::vector<bool> runnable_;
  std::string setup_;
  WorkerLayout layout_;
  Shape output_shape_;
  SharedMemory shared_;
  std::unique_ptr<WorkerProcess> worker_;
  int64_t workers_started_ = 0;
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_WORKER_PROFILER_H_
