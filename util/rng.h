// A small deterministic pseudo-random generator (SplitMix64). Unlike the
// <random> distributions, its output is specified bit for bit, so the same
// seed gives the same data on every platform and compiler.
//
// Not thread-safe: one generator per thread.
#ifndef XTUNE_UTIL_RNG_H_
#define XTUNE_UTIL_RNG_H_

#include <cstdint>

namespace xtune {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform in [lo, hi] (inclusive); requires lo <= hi.
  int64_t NextInt(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(span == 0 ? Next() : Next() % span);
  }

 private:
  uint64_t state_;
};

}  // namespace xtune

#endif  // XTUNE_UTIL_RNG_H_
