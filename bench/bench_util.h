// Shared helpers of the benchmarks: timing (median of repetitions after a
// warm-up), JSON lines, and compiling a module's fusions for the CPU.
#ifndef XTUNE_BENCH_BENCH_UTIL_H_
#define XTUNE_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace xtune::bench {

// Median seconds of `fn` over repetitions: one warm-up call, then at least
// `min_reps` calls and until `min_seconds` have passed.
inline double MedianSeconds(const std::function<void()>& fn, int min_reps = 3,
                            double min_seconds = 0.3) {
  fn();
  std::vector<double> times;
  double total = 0;
  while (static_cast<int>(times.size()) < min_reps || total < min_seconds) {
    auto start = std::chrono::steady_clock::now();
    fn();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count();
    times.push_back(s);
    total += s;
    if (times.size() >= 50) break;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace xtune::bench

#endif  // XTUNE_BENCH_BENCH_UTIL_H_
