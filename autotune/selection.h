// Choosing the winner among timed candidates, deterministically: a config
// wins over an earlier one in canonical order only when it is faster by
// more than the noise band's floor, so near-ties go to the earliest config
// and two runs on a quiet machine pick the same config.
//
// The median (not a low percentile) so that a config that is fast only now
// and then — a threaded kernel on a busy machine — does not win on its best
// case. Its stability comes from timing all candidates of a fusion in one
// worker process (the same memory placement for all: across processes,
// cold-cache medians move by 10-20%) in interleaved rounds.
#ifndef XTUNE_AUTOTUNE_SELECTION_H_
#define XTUNE_AUTOTUNE_SELECTION_H_

#include <cstdint>
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
  // The host threads its kernel runs on (Backend::HostThreads); see
  // SelectWinner. Default 1.
  int64_t threads = 1;
};

// The time resolution of one timed CPU run (clock reads, the state the
// cache flush leaves, the worker's scheduling): the medians two tunings
// measure for the same 1.4 us column reduction differ by up to 7%, for a
// 4 us one by 1-3%. 0.15 us: a band of 10% at 1.4 us, 3.75% at 4 us.
inline constexpr double kTimingJitterSeconds = 0.15e-6;

// The spread of `candidate`'s round scores, (max - min) / Score(), over
// its rounds with the slowest left out when it has four or more
// (interference only slows runs down, and one disturbed round must not
// make a steady kernel look erratic); 0 with fewer than two rounds.
double RoundSpread(const Timed& candidate);

// The round scores of `candidates`, levelled for the machine's state:
// round r of every candidate was timed in the same pass over them, so
// when a pass ran while the machine was slow (a neighbour, a frequency
// step: on the shared 2-vCPU machines here whole passes move by 10-30%),
// all its rounds are divided by the median, over the candidates with two
// rounds or more, of their round r over their median round. Passes with
// fewer than three such candidates are left as they are.
std::vector<std::vector<double>> LevelRounds(const std::vector<Timed>& candidates);

// Index into `candidates` (in canonical order) of the winner. Candidates
// are compared by the median of their levelled rounds (LevelRounds; the
// pooled Score() for one without rounds). Walking the eligible candidates
// in order, a candidate replaces the one chosen so far when its score
// times (1 + the floor) is below the chosen one's, the floor being
// max(min_band, kTimingJitterSeconds / best score) (that second term
// capped at 0.25): a later config must be faster by more than what one
// timed run resolves, so near-ties go to the earliest config. A candidate
// with more threads than the chosen one must also be faster by its own
// noise, the spread of its levelled rounds as in RoundSpread() (clamped
// like the band below): what a second thread is worth on a shared machine
// changes from one round to the next, and a threaded kernel timed in a
// good moment costs more in the running module. The band
// reported in `*band` (when non-null) is the median, over eligible
// candidates with two rounds or more, of the spread of their levelled
// rounds as in RoundSpread() — the machine's drift, which callers use to
// decide how close is close (finalists, in-module margins) — clamped to
// [floor, max(min_band, 0.25)]. The winner is always within the floor of
// the best score. -1 when none is eligible.
int SelectWinner(const std::vector<Timed>& candidates, double min_band,
                 double* band = nullptr);

}  // namespace xtune

#endif  // XTUNE_AUTOTUNE_SELECTION_H_
