#include "autotune/selection.h"

#include <algorithm>
#include <cmath>

namespace xtune {

double Median(std::vector<double> seconds) {
  if (seconds.empty()) return 0;
  std::sort(seconds.begin(), seconds.end());
  return seconds[(seconds.size() - 1) / 2];
}

double Quantile(std::vector<double> seconds, double q) {
  if (seconds.empty()) return 0;
  std::sort(seconds.begin(), seconds.end());
  size_t i = static_cast<size_t>(std::floor(q * (seconds.size() - 1)));
  return seconds[std::min(i, seconds.size() - 1)];
}

double Score(const std::vector<double>& seconds) { return Median(seconds); }

int SelectWinner(const std::vector<Timed>& candidates, double min_band,
                 double* band) {
  std::vector<double> scores(candidates.size(), 0);
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].eligible || candidates[i].seconds.empty()) continue;
    scores[i] = Score(candidates[i].seconds);
    if (best < 0 || scores[i] < scores[best]) best = static_cast<int>(i);
  }
  if (best < 0) return -1;
  std::vector<double> spreads;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::vector<double>& rounds = candidates[i].round_scores;
    if (!candidates[i].eligible || rounds.size() < 2 || scores[i] <= 0) continue;
    auto [lo, hi] = std::minmax_element(rounds.begin(), rounds.end());
    spreads.push_back((*hi - *lo) / scores[i]);
  }
  // A kernel of a few microseconds cannot be told apart by less than the
  // jitter of one timed run, whatever its rounds say.
  const double hi = std::max(min_band, 0.25);
  const double lo =
      std::max(min_band, std::min(kTimingJitterSeconds / scores[best], 0.25));
  double b = std::clamp(Median(spreads), lo, hi);
  if (band != nullptr) *band = b;
  double limit = scores[best] * (1 + b);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].eligible && !candidates[i].seconds.empty() &&
        scores[i] <= limit) {
      return static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace xtune
