// Kernel source text shared by the backends that generate C++-like
// kernels (cpu, cuda, cuda_emulator), embedded at build time from
// codegen/prelude/.
#ifndef XTUNE_CODEGEN_KERNEL_TEXT_H_
#define XTUNE_CODEGEN_KERNEL_TEXT_H_

#include <string>

#include "ir/dtype.h"

namespace xtune {

// A call of an 8-bit float helper of xt_scalar.h (codegen/fp8_text.cc) (xt_f82f, xt_f2f8,
// xt_round_f8) on `value` with the constants of 8-bit float type `t`:
// Fp8Call("xt_f82f", "p[i]", DType::kF8E4M3FN) is
// "xt_f82f(p[i], 4, 3, 7, 1)".
std::string Fp8Call(const char* helper, const std::string& value, DType t);

// codegen/prelude/xt_scalar.h: the scalar helpers, after a backend's
// prelude.
extern const char kXtScalarHelpers[];

}  // namespace xtune

#endif  // XTUNE_CODEGEN_KERNEL_TEXT_H_
