#include "codegen/cpu/kernel_abi.h"

#include <cblas.h>

namespace xtune::cpu {
namespace {

void ParallelFor(void* pool, int64_t n, int64_t max_threads,
                 void (*fn)(void*, int64_t), void* arg) {
  static_cast<ThreadPool*>(pool)->ParallelFor(n, static_cast<int>(max_threads),
                                              [&](int64_t i) { fn(arg, i); });
}

void Sgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
           const float* a, int lda, const float* b, int ldb, float beta,
           float* c, int ldc) {
  cblas_sgemm(static_cast<CBLAS_ORDER>(order),
              static_cast<CBLAS_TRANSPOSE>(transa),
              static_cast<CBLAS_TRANSPOSE>(transb), m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
}

void SetBlasThreads(int threads) { openblas_set_num_threads(threads); }

}  // namespace

XtContext MakeContext(ThreadPool* pool) {
  XtContext c;
  c.parallel_for = &ParallelFor;
  c.pool = pool;
  c.sgemm = &Sgemm;
  c.set_blas_threads = &SetBlasThreads;
  return c;
}

}  // namespace xtune::cpu
