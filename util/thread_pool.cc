#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

namespace xtune {
namespace {

// The pool whose worker is running on this thread, if any. ParallelFor runs
// nested calls inline: helpers queued from inside a pool task would only start
// after the tasks ahead of them (often the rest of the outer loop), so they
// would add queue traffic without adding parallelism.
//
// No call can deadlock either way: the caller claims indices itself until
// none is left, and then only waits for indices other threads have already
// claimed and are running; queued helpers that never start are not waited for.
thread_local const ThreadPool* current_pool = nullptr;

// State shared between a ParallelFor caller and the helper tasks it queues.
// Helpers hold it by shared_ptr because they may start after the loop is
// over (when workers were busy); such late helpers find no index left and
// never touch `fn`, whose referent lives on the caller's stack.
struct ParallelForState {
  ParallelForState(int64_t n, absl::FunctionRef<void(int64_t)> fn)
      : n(n), fn(fn) {}

  // Claims and runs indices until none is left.
  void Work() {
    int64_t done = 0;
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      fn(i);
      ++done;
    }
    if (done > 0 &&
        completed.fetch_add(done, std::memory_order_acq_rel) + done == n) {
      MutexLock lock(&mu);
      finished = true;
    }
  }

  const int64_t n;
  const absl::FunctionRef<void(int64_t)> fn;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> completed{0};
  Mutex mu;
  bool finished ABSL_GUARDED_BY(mu) = false;
};

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) {
    num_threads = static_cast<int>(std::thread::hardware_concurrency());
  }
  num_threads = std::max(num_threads, 1);
  workers_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  MutexLock lock(&mu_);
  queue_.push_back(std::move(fn));
}

void ThreadPool::WorkerLoop() {
  current_pool = this;
  while (true) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ThreadPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mu_) {
            return pool->stopping_ || !pool->queue_.empty();
          },
          this));
      // Drain the queue before stopping so no scheduled task is dropped.
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void ThreadPool::ParallelFor(int64_t n, int max_parallelism,
                             absl::FunctionRef<void(int64_t)> fn) {
  if (n <= 0) return;
  if (current_pool == this) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  int64_t threads =
      max_parallelism <= 0 ? int64_t{size()} + 1 : int64_t{max_parallelism};
  threads = std::min({threads, int64_t{size()} + 1, n});
  if (threads <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ParallelForState>(n, fn);
  {
    MutexLock lock(&mu_);
    for (int64_t i = 0; i + 1 < threads; ++i) {
      queue_.push_back([state] { state->Work(); });
    }
  }
  // The caller works as one of the pool's threads meanwhile, so loops
  // nested in its share run inline too, as they do on the workers.
  const ThreadPool* outer = current_pool;
  current_pool = this;
  state->Work();
  current_pool = outer;
  MutexLock lock(&state->mu);
  state->mu.Await(absl::Condition(&state->finished));
}

}  // namespace xtune
