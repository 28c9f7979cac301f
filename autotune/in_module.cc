#include "autotune/in_module.h"

#include <algorithm>

namespace xtune {

std::optional<InModuleContest> ContestOf(const Trial& trial, int winner,
                                         const InModuleOptions& options) {
  if (winner < 0 || trial.medians[winner] <= 0) return std::nullopt;
  const double best = trial.medians[winner];
  // The eligible, correct, timed candidates near the winner, fastest first
  // (the winner itself always in), then back to canonical order.
  std::vector<size_t> near;
  for (size_t c = 0; c < trial.configs.size(); ++c) {
    if (static_cast<int>(c) == winner) continue;
    if (trial.failed[c] || trial.wrong[c] || !trial.timed[c].eligible ||
        trial.medians[c] <= 0 || trial.medians[c] > best * options.finalist_ratio) {
      continue;
    }
    near.push_back(c);
  }
  if (near.empty() || options.max_finalists < 2) return std::nullopt;
  std::stable_sort(near.begin(), near.end(), [&](size_t a, size_t b) {
    return trial.medians[a] < trial.medians[b];
  });
  if (near.size() > static_cast<size_t>(options.max_finalists - 1)) {
    near.resize(options.max_finalists - 1);
  }
  near.push_back(static_cast<size_t>(winner));
  std::sort(near.begin(), near.end());
  InModuleContest contest;
  for (size_t c : near) {
    if (static_cast<int>(c) == winner) {
      contest.isolated_winner = static_cast<int>(contest.finalists.size());
    }
    contest.finalists.push_back(trial.configs[c]);
    contest.isolated_medians.push_back(trial.medians[c]);
  }
  return contest;
}

std::vector<int> InModuleWinners(const std::vector<InModuleContest>& contests,
                                 const std::vector<std::vector<Timed>>& timed,
                                 double min_band, std::vector<double>* bands) {
  std::vector<int> winners;
  if (bands != nullptr) bands->assign(contests.size(), 0.0);
  for (size_t i = 0; i < contests.size(); ++i) {
    const InModuleContest& c = contests[i];
    int w = c.isolated_winner;
    if (i < timed.size() && timed[i].size() == c.finalists.size() &&
        !timed[i][w].seconds.empty()) {
      // The band over all finalists; then only those that beat the
      // isolated winner by more than it compete, as isolated candidates do.
      double band = 0;
      SelectWinner(timed[i], min_band, &band);
      if (bands != nullptr) (*bands)[i] = band;
      const double incumbent = Score(timed[i][w].seconds);
      std::vector<Timed> better = timed[i];
      bool any = false;
      for (size_t j = 0; j < better.size(); ++j) {
        better[j].eligible = !better[j].seconds.empty() &&
                             Score(better[j].seconds) * (1 + band) < incumbent;
        any |= better[j].eligible;
      }
      if (any) w = SelectWinner(better, min_band);
    }
    winners.push_back(w >= 0 ? w : c.isolated_winner);
  }
  return winners;
}

}  // namespace xtune
