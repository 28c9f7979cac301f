// InProcessProfiler: times kernels in the calling process — a warm-up run,
// then repetitions until ProfileOptions' count and budget are met. No
// isolation: fit only for kernels that cannot crash or hang (the
// interpreter's, test backends'). Host buffers only: inputs are read in
// place through Backend::HostAlias semantics (the Literal's bytes).
#ifndef XTUNE_CODEGEN_IN_PROCESS_PROFILER_H_
#define XTUNE_CODEGEN_IN_PROCESS_PROFILER_H_

#include "codegen/profiler.h"

namespace xtune {

class InProcessProfiler : public Profiler {
 public:
  absl::StatusOr<ProfileResult> Profile(Kernel& kernel,
                                        const KernelConfig& config,
                                        absl::Span<const Literal> inputs,
                                        const Shape& output_shape,
                                        const ProfileOptions& options) override;
};

}  // namespace xtune

#endif  // XTUNE_CODEGEN_IN_PROCESS_PROFILER_H_
