// xtune::Mutex and xtune::MutexLock: absl::Mutex, except under
// ThreadSanitizer. Debian's abseil is a prebuilt, uninstrumented library,
// so TSan cannot see its Mutex synchronize and would report every access it
// guards as a race. In TSan builds these are the same interface (Lock,
// Unlock, Await, AwaitWithTimeout, scoped MutexLock, thread-safety
// annotations) over std::mutex and std::condition_variable, which TSan
// understands; every other build uses absl::Mutex itself.
#ifndef XTUNE_UTIL_MUTEX_H_
#define XTUNE_UTIL_MUTEX_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#if defined(__SANITIZE_THREAD__)
#define XTUNE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XTUNE_TSAN 1
#endif
#endif

#ifdef XTUNE_TSAN
#include <chrono>
#include <condition_variable>
#include <mutex>
#endif

namespace xtune {

#ifdef XTUNE_TSAN

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  explicit Mutex(absl::ConstInitType) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    // Conditions are re-evaluated after every unlock. Notified while held,
    // so a waiter that then destroys the mutex cannot race the notify.
    cv_.notify_all();
    mu_.unlock();
  }
  // Held on entry and on return, as absl::Mutex::Await.
  void Await(const absl::Condition& cond) {
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    cv_.wait(lock, [&] { return cond.Eval(); });
    lock.release();
  }
  bool AwaitWithTimeout(const absl::Condition& cond, absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    bool met = cv_.wait_for(
        lock, std::chrono::nanoseconds(absl::ToInt64Nanoseconds(timeout)),
        [&] { return cond.Eval(); });
    lock.release();
    return met;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

#else

using Mutex = absl::Mutex;
using MutexLock = absl::MutexLock;

#endif

}  // namespace xtune

#endif  // XTUNE_UTIL_MUTEX_H_
