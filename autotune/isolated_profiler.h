// IsolatedProfiler: times candidates in a child process made with fork(),
// so a SIGSEGV, an abort or an infinite loop in generated code kills only
// the child. Within a fusion session (BeginFusion) one worker process times
// every candidate of the fusion — commands go down a pipe, timings come
// back up one, outputs land in shared memory — so all candidates run with
// the same physical placement of inputs, output and heap; after a crash or
// a timeout (the worker is killed) the next candidate gets a fresh worker.
// Without a session each Profile() forks a one-off worker.
//
// Use from one thread, while no other thread of the process is computing
// (the child gets only the forking thread; the backend rebuilds its pool
// there through Backend::ResetAfterFork()).
#ifndef XTUNE_AUTOTUNE_ISOLATED_PROFILER_H_
#define XTUNE_AUTOTUNE_ISOLATED_PROFILER_H_

#include <sys/types.h>

#include <vector>

#include "autotune/profiler.h"

namespace xtune {

class IsolatedProfiler : public Profiler {
 public:
  explicit IsolatedProfiler(Backend* backend) : backend_(backend) {}
  ~IsolatedProfiler() override;

  absl::Status BeginFusion(absl::Span<Kernel* const> kernels,
                           absl::Span<const Literal> inputs,
                           const Shape& output_shape) override;
  void EndFusion() override;
  absl::StatusOr<ProfileResult> Profile(Kernel& kernel,
                                        const KernelConfig& config,
                                        absl::Span<const Literal> inputs,
                                        const Shape& output_shape,
                                        const ProfileOptions& options) override;

 private:
  absl::Status StartWorker();
  void StopWorker();

  Backend* backend_;
  bool in_session_ = false;
  std::vector<Kernel*> kernels_;
  std::vector<const Literal*> inputs_;
  Shape output_shape_;
  void* shared_ = nullptr;  // the output, shared with the worker
  size_t shared_bytes_ = 0;
  pid_t worker_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_ISOLATED_PROFILER_H_
