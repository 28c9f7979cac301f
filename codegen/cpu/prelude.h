// The C++ text every generated CPU kernel starts with: the kernel ABI
// (XtContext), f16/bf16 conversions, and math functions written so that they
// work on scalars and on GCC vector types alike (exp, log, tanh, erf, ...),
// which keeps transcendental-heavy fusions vectorized.
#ifndef XTUNE_CODEGEN_CPU_PRELUDE_H_
#define XTUNE_CODEGEN_CPU_PRELUDE_H_

#include <string>

namespace xtune::cpu {

// The kernel ABI and the scalar overloads the math templates use; the
// shared scalar helpers (codegen/kernel_text.h: f16/bf16 conversions, XLA's
// integer and min/max semantics) go right after it.
extern const char kKernelPrelude[];

// The system headers kernels include (kKernelPrelude's, and with clang
// immintrin.h of VectorHelpers; GCC kernels use its builtins instead),
// precompiled once (HostCompilerOptions::precompiled_header) and the
// prologue of kernel bundles.
extern const char kKernelSystemHeaders[];

// Lines that turn off GCC's cloning of functions for constant arguments
// (the same code as -fno-ipa-cp-clone, which clang would reject as a
// flag); the CPU backend starts kernels with them
// (CpuBackendOptions::no_constant_clones).
extern const char kNoConstantClones[];

// Vector helpers for `W` float lanes: the typedefs xt_vf (float), xt_vi
// (int32 masks), xt_vu16 and the overloads the math templates need.
// Returns the text to append after kKernelPrelude.
std::string VectorHelpers(int width);

// Math templates instantiable on float and on xt_vf; append after
// VectorHelpers() (or right after the prelude for scalar-only kernels,
// where they are instantiated on float only).
extern const char kKernelMath[];

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_PRELUDE_H_
