// The host side of the ABI between xtune and a generated CPU kernel (the
// kernel side is XtContext in the prelude, prelude.cc): a kernel object
// exports `xtune_kernel(inputs, output, config_values, context)`; the
// context gives it a parallel-for over a thread pool and OpenBLAS's sgemm.
// Shared by the CPU backend (kernels run in the compiler) and the worker
// program (kernels timed in a separate process).
#ifndef XTUNE_CODEGEN_CPU_KERNEL_ABI_H_
#define XTUNE_CODEGEN_CPU_KERNEL_ABI_H_

#include <cstdint>

#include "util/thread_pool.h"

namespace xtune::cpu {

// Mirrors XtContext in the kernel prelude, field for field.
struct XtContext {
  void (*parallel_for)(void* pool, int64_t n, int64_t max_threads,
                       void (*fn)(void*, int64_t), void* arg);
  void* pool;
  void (*sgemm)(int order, int transa, int transb, int m, int n, int k,
                float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc);
  void (*set_blas_threads)(int);
};

// The exported entry point of every kernel object.
inline constexpr char kKernelSymbol[] = "xtune_kernel";
using KernelFn = void (*)(const void* const* inputs, void* output,
                          const int64_t* config_values,
                          const XtContext* context);

// A context whose parallel-for runs on `pool` (borrowed).
XtContext MakeContext(ThreadPool* pool);

}  // namespace xtune::cpu

#endif  // XTUNE_CODEGEN_CPU_KERNEL_ABI_H_
