// Choosing the winner among timed candidates, deterministically: candidates
// whose median is within the noise band of the fastest tie, and ties go to
// the earliest config in canonical order, so two runs on a quiet machine
// pick the same config.
#ifndef XTUNE_AUTOTUNE_SELECTION_H_
#define XTUNE_AUTOTUNE_SELECTION_H_

#include <vector>

namespace xtune {

// The median of `seconds` (the lower middle for an even count).
double Median(std::vector<double> seconds);

// The noise band of a sample set: its interquartile range over its median
// (0 with fewer than 4 samples), never below `min_band`.
double NoiseBand(std::vector<double> seconds, double min_band);

struct Timed {
  double median = 0;
  std::vector<double> seconds;
  bool eligible = true;
};

// Index into `candidates` (in canonical order) of the winner: the first
// eligible candidate whose median is within (1 + band) of the fastest
// eligible median, band = NoiseBand(fastest's samples, min_band). -1 when
// none is eligible. `*band` (when non-null) receives the band used.
int SelectWinner(const std::vector<Timed>& candidates, double min_band,
                 double* band = nullptr);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_SELECTION_H_
