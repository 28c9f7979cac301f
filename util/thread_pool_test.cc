#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xtune {
namespace {

// Tracks how many threads are inside a region at once.
class ConcurrencyMeter {
 public:
  void Enter() {
    int now = inside_.fetch_add(1) + 1;
    int seen = max_.load();
    while (now > seen && !max_.compare_exchange_weak(seen, now)) {
    }
  }
  void Leave() { inside_.fetch_sub(1); }
  int inside() const { return inside_.load(); }
  int max() const { return max_.load(); }

 private:
  std::atomic<int> inside_{0};
  std::atomic<int> max_{0};
};

TEST(ThreadPoolTest, SizeIsAsRequested) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
}

TEST(ThreadPoolTest, ZeroThreadsMeansHardwareConcurrency) {
  ThreadPool pool(0);
  int expected =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_EQ(pool.size(), expected);
}

TEST(ThreadPoolTest, ScheduleRunsEveryTask) {
  std::atomic<int> sum{0};
  absl::BlockingCounter done(100);
  ThreadPool pool(4);
  for (int i = 1; i <= 100; ++i) {
    pool.Schedule([&sum, &done, i] {
      sum += i;
      done.DecrementCount();
    });
  }
  done.Wait();
  EXPECT_EQ(sum.load(), 5050);
}

TEST(ThreadPoolTest, DestructorRunsQueuedTasks) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 50; ++i) {
      pool.Schedule([&ran] {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        ++ran;
      });
    }
  }
  EXPECT_EQ(ran.load(), 50);
}

TEST(ThreadPoolTest, ParallelForRunsEveryIndexExactlyOnce) {
  ThreadPool pool(4);
  for (int64_t n : {0, 1, 2, 7, 1000, 100000}) {
    std::vector<std::atomic<int>> hits(n);
    pool.ParallelFor(n, 0, [&](int64_t i) { hits[i].fetch_add(1); });
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
    }
  }
}

TEST(ThreadPoolTest, ParallelForRespectsMaxParallelism) {
  ThreadPool pool(8);
  for (int max_parallelism : {1, 2, 3}) {
    ConcurrencyMeter meter;
    std::atomic<int> calls{0};
    pool.ParallelFor(200, max_parallelism, [&](int64_t) {
      meter.Enter();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++calls;
      meter.Leave();
    });
    EXPECT_EQ(calls.load(), 200);
    EXPECT_LE(meter.max(), max_parallelism);
    EXPECT_GE(meter.max(), 1);
  }
}

TEST(ThreadPoolTest, ParallelForReachesMaxParallelism) {
  // Every call waits until `kWanted` calls are running at once; this only
  // finishes promptly if the pool really runs that many in parallel (the
  // calling thread counts as one of them).
  constexpr int kWanted = 4;
  ThreadPool pool(kWanted - 1);
  ConcurrencyMeter meter;
  std::atomic<bool> gave_up{false};
  pool.ParallelFor(kWanted, kWanted, [&](int64_t) {
    meter.Enter();
    absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (meter.max() < kWanted) {
      if (absl::Now() > deadline) {
        gave_up = true;
        break;
      }
      std::this_thread::yield();
    }
    meter.Leave();
  });
  EXPECT_FALSE(gave_up.load());
  EXPECT_EQ(meter.max(), kWanted);
}

TEST(ThreadPoolTest, ParallelForInsidePoolTaskRunsInlineWithoutDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> inner_calls{0};
  std::atomic<bool> inner_left_thread{false};
  // Outer loop occupies every worker; each iteration starts a nested loop.
  pool.ParallelFor(6, 0, [&](int64_t) {
    std::thread::id outer = std::this_thread::get_id();
    pool.ParallelFor(10, 0, [&](int64_t) {
      ++inner_calls;
      if (std::this_thread::get_id() != outer) inner_left_thread = true;
    });
  });
  EXPECT_EQ(inner_calls.load(), 60);
  EXPECT_FALSE(inner_left_thread.load());

  // From a scheduled task: the nested loop must stay on that worker.
  absl::Notification done;
  std::atomic<int> from_task{0};
  pool.Schedule([&] {
    std::thread::id self = std::this_thread::get_id();
    pool.ParallelFor(20, 0, [&](int64_t) {
      if (std::this_thread::get_id() == self) ++from_task;
    });
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(from_task.load(), 20);
}

TEST(ThreadPoolTest, ParallelForProgressesWhenWorkersAreBusy) {
  ThreadPool pool(1);
  absl::Notification release;
  pool.Schedule([&] { release.WaitForNotification(); });
  // The only worker is blocked, so the caller must do all the work itself.
  std::atomic<int> calls{0};
  pool.ParallelFor(100, 0, [&](int64_t) { ++calls; });
  EXPECT_EQ(calls.load(), 100);
  release.Notify();
}

TEST(ThreadPoolTest, ManyConcurrentParallelForCallers) {
  ThreadPool pool(4);
  constexpr int kCallers = 8;
  constexpr int64_t kN = 2000;
  std::vector<int64_t> sums(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 5; ++round) {
        std::atomic<int64_t> sum{0};
        pool.ParallelFor(kN, (c % 3) + 1, [&](int64_t i) { sum += i; });
        sums[c] += sum.load();
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    EXPECT_EQ(sums[c], 5 * kN * (kN - 1) / 2) << "caller " << c;
  }
}

}  // namespace
}  // namespace xtune
