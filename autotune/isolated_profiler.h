// IsolatedProfiler: times each candidate in a child process made with
// fork(). The child inherits the loaded kernel and the inputs, writes the
// output into shared memory and the timings into a pipe; the parent waits
// with a timeout. A SIGSEGV, an abort or an infinite loop in generated code
// kills only the child.
//
// Call Profile() from one thread at a time, while no other thread of the
// process is computing (the child gets only the calling thread; the backend
// rebuilds its pool there through Backend::ResetAfterFork()).
#ifndef XTUNE_AUTOTUNE_ISOLATED_PROFILER_H_
#define XTUNE_AUTOTUNE_ISOLATED_PROFILER_H_

#include "autotune/profiler.h"

namespace xtune {

class IsolatedProfiler : public Profiler {
 public:
  explicit IsolatedProfiler(Backend* backend) : backend_(backend) {}

  absl::StatusOr<ProfileResult> Profile(Kernel& kernel,
                                        const KernelConfig& config,
                                        absl::Span<const Literal> inputs,
                                        const Shape& output_shape,
                                        const ProfileOptions& options) override;

 private:
  Backend* backend_;
};

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_ISOLATED_PROFILER_H_
