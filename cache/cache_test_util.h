// Results and entries for the cache tests (test-only).
#ifndef XTUNE_CACHE_CACHE_TEST_UTIL_H_
#define XTUNE_CACHE_CACHE_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>

#include "cache/autotune_results.pb.h"

namespace xtune {

// A cpu_gemm result (mc 64, nc 256, mr 6, nr 16, split_k 1, 1 thread).
inline xla::AutotuneResult CpuGemmResult(int64_t kc, int64_t nanos = 0) {
  xla::AutotuneResult r;
  auto* k = r.mutable_cpu_gemm();
  k->set_mc(64);
  k->set_nc(256);
  k->set_kc(kc);
  k->set_mr(6);
  k->set_nr(16);
  k->set_split_k(1);
  k->set_threads(1);
  if (nanos != 0) r.mutable_run_time()->set_nanos(nanos);
  return r;
}

// A cpu_loop result (vector width 8, 1 thread).
inline xla::AutotuneResult CpuLoopResult(int64_t unroll, int64_t per_task,
                                         int64_t nanos) {
  xla::AutotuneResult r;
  auto* k = r.mutable_cpu_streaming();
  k->set_kind(xla::AutotuneResult::CpuStreamingKey::LOOP);
  k->set_vector_width(8);
  k->set_unroll(unroll);
  k->set_per_task(per_task);
  k->set_threads(1);
  r.mutable_run_time()->set_nanos(nanos);
  return r;
}

// Appends an entry to `rs`.
inline xla::AutotuneResults::Entry* AddEntry(xla::AutotuneResults* rs,
                                             const std::string& device,
                                             const std::string& hlo,
                                             xla::AutotuneResult r,
                                             int version = 0) {
  auto* e = rs->add_results();
  e->set_device(device);
  e->set_hlo(hlo);
  e->set_version(version);
  *e->mutable_result() = std::move(r);
  return e;
}

}  // namespace xtune

#endif  // XTUNE_CACHE_CACHE_TEST_UTIL_H_
