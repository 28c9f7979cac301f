// Choosing the winner among timed candidates, deterministically: candidates
// whose median is within the noise band of the best count as tied, and
// ties go to the earliest config in canonical order, so two runs on a quiet
// machine pick the same config.
//
// The median (not a low percentile) so that a config that is fast only now
// and then — a threaded kernel on a busy machine — does not win on its best
// case. Its stability comes from timing all candidates of a fusion in one
// worker process (the same memory placement for all: across processes,
// cold-cache medians move by 10-20%) in interleaved rounds.
#ifndef XTUNE_AUTOTUNE_SELECTION_H_
#define XTUNE_AUTOTUNE_SELECTION_H_

#include <vector>

namespace xtune {

// The median of `seconds` (the lower middle for an even count).
double Median(std::vector<double> seconds);

// The q-quantile of `seconds` (nearest rank, q in [0, 1]); 0 when empty.
double Quantile(std::vector<double> seconds, double q);

// The statistic candidates are compared by: the median.
double Score(const std::vector<double>& seconds);

struct Timed {
  std::vector<double> seconds;       // every timed run
  std::vector<double> round_scores;  // Score() of each timing round
  bool eligible = true;
};

// The time resolution of one timed CPU run (clock reads, the state the
// cache flush leaves, the worker's scheduling): the medians two tunings
// measure for the same 1.4 us column reduction differ by up to 7%, for a
// 4 us one by 1-3%. 0.15 us: a band of 10% at 1.4 us, 3.75% at 4 us.
inline constexpr double kTimingJitterSeconds = 0.15e-6;

// Index into `candidates` (in canonical order) of the winner: the first
// eligible candidate whose Score() is within (1 + band) of the best
// eligible score. The band is the machine's drift between worker
// processes — the median over eligible candidates of the spread of their
// round scores, (max - min) / score — never below `min_band` nor below
// kTimingJitterSeconds over the best score, and never above 0.25. (The median, not the best candidate's own spread: one erratic
// candidate, e.g. a library starting its threads, must not make everything
// tie.) -1 when none is eligible. `*band` (when non-null) receives the band.
int SelectWinner(const std::vector<Timed>& candidates, double min_band,
                 double* band = nullptr);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_SELECTION_H_
