// Kernel source text shared by the backends that generate C++-like
// kernels (cpu, cuda, cuda_emulator), embedded at build time from
// codegen/prelude/.
#ifndef XTUNE_CODEGEN_KERNEL_TEXT_H_
#define XTUNE_CODEGEN_KERNEL_TEXT_H_

namespace xtune {

// codegen/prelude/xt_scalar.h: the scalar helpers, after a backend's
// prelude.
extern const char kXtScalarHelpers[];

}  // namespace xtune

#endif  // XTUNE_CODEGEN_KERNEL_TEXT_H_
