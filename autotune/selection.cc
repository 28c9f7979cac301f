#include "autotune/selection.h"

#include <algorithm>

namespace xtune {

double Median(std::vector<double> seconds) {
  if (seconds.empty()) return 0;
  std::sort(seconds.begin(), seconds.end());
  return seconds[(seconds.size() - 1) / 2];
}

double NoiseBand(std::vector<double> seconds, double min_band) {
  if (seconds.size() < 4) return min_band;
  std::sort(seconds.begin(), seconds.end());
  size_t n = seconds.size();
  double q1 = seconds[n / 4];
  double q3 = seconds[(3 * n) / 4];
  double median = seconds[(n - 1) / 2];
  if (median <= 0) return min_band;
  return std::max(min_band, (q3 - q1) / median);
}

int SelectWinner(const std::vector<Timed>& candidates, double min_band,
                 double* band) {
  int fastest = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].eligible) continue;
    if (fastest < 0 || candidates[i].median < candidates[fastest].median) {
      fastest = static_cast<int>(i);
    }
  }
  if (fastest < 0) return -1;
  double b = NoiseBand(candidates[fastest].seconds, min_band);
  if (band != nullptr) *band = b;
  double limit = candidates[fastest].median * (1 + b);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].eligible && candidates[i].median <= limit) {
      return static_cast<int>(i);
    }
  }
  return fastest;
}

}  // namespace xtune
