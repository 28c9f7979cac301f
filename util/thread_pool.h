// A fixed-size pool of worker threads with a blocking parallel-for.
//
// Used to compile and measure autotuning candidates concurrently. Work is
// either fire-and-forget (`Schedule`) or a blocking loop over an index range
// (`ParallelFor`) in which the calling thread takes part, so a ParallelFor
// makes progress even when every worker is busy.
//
// Thread-safe: every member function may be called from any thread,
// including from tasks running on the pool itself.
#ifndef XTUNE_UTIL_THREAD_POOL_H_
#define XTUNE_UTIL_THREAD_POOL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "util/mutex.h"

namespace xtune {

class ThreadPool {
 public:
  // Starts `num_threads` workers; 0 means std::thread::hardware_concurrency()
  // (at least 1). Negative values are treated as 0.
  explicit ThreadPool(int num_threads);

  // Runs every task already scheduled (including tasks those tasks schedule),
  // then joins the workers. Must not be called from a pool task.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The number of worker threads.
  int size() const { return static_cast<int>(workers_.size()); }

  // Queues `fn` to run on some worker. Returns immediately; tasks start in
  // FIFO order. `fn` must not throw.
  void Schedule(std::function<void()> fn);

  // Calls fn(i) exactly once for every i in [0, n) and returns when all calls
  // have finished. At most `max_parallelism` threads (the calling thread
  // included) run `fn` at the same time; `max_parallelism` <= 0 means the
  // pool size plus the calling thread. The order of calls is unspecified.
  //
  // When called from a task running on this pool, the calls run inline and
  // serially on the calling thread: waiting for other workers from inside a
  // worker could deadlock. `fn` must not throw.
  void ParallelFor(int64_t n, int max_parallelism,
                   absl::FunctionRef<void(int64_t)> fn);

 private:
  void WorkerLoop();

  Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace xtune

#endif  // XTUNE_UTIL_THREAD_POOL_H_
