#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"

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

// How long an idle worker, and a ParallelFor caller waiting for its
// helpers, keep polling before they block. Waking a blocked thread costs a
// futex wake-up and, on a virtual machine whose other vCPU has halted,
// tens of microseconds: more than a small kernel's whole run. Measured on a
// 2-vCPU machine, a two-thread gemm that takes 19 us with its helper
// awake took 48 us (slower than one thread, 33 us) when the helper blocked
// between runs, and 36 us with 200 us of polling: the autotuner's runs are
// further apart than that (cache flushes), a module's kernels are not.
// Runtimes poll for the same reason (OpenMP, Eigen's pool).
constexpr absl::Duration kSpin = absl::Milliseconds(2);

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Polls `ready` until it holds or kSpin has passed; whether it holds.
template <typename F>
bool SpinUntil(F ready) {
  if (ready()) return true;
  const absl::Time deadline = absl::Now() + kSpin;
  do {
    for (int i = 0; i < 64; ++i) {
      Relax();
      if (ready()) return true;
    }
  } while (absl::Now() < deadline);
  return ready();
}

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
      all_done.store(true, std::memory_order_release);
    }
  }

  const int64_t n;
  const absl::FunctionRef<void(int64_t)> fn;
  std::atomic<int64_t> next{0};
  // Set with `finished`, for the caller to poll without the lock.
  std::atomic<bool> all_done{false};
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
  queued_.fetch_add(1, std::memory_order_release);
}

void ThreadPool::WorkerLoop() {
  current_pool = this;
  while (true) {
    std::function<void()> task;
    SpinUntil([this] { return queued_.load(std::memory_order_acquire) > 0; });
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
      queued_.fetch_sub(1, std::memory_order_relaxed);
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
    queued_.fetch_add(threads - 1, std::memory_order_release);
  }
  // The caller works as one of the pool's threads meanwhile, so loops
  // nested in its share run inline too, as they do on the workers.
  const ThreadPool* outer = current_pool;
  current_pool = this;
  state->Work();
  current_pool = outer;
  if (SpinUntil([&] { return state->all_done.load(std::memory_order_acquire); })) return;
  MutexLock lock(&state->mu);
  state->mu.Await(absl::Condition(&state->finished));
}

}  // namespace xtune
