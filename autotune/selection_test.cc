#include "autotune/selection.h"

#include "gtest/gtest.h"

namespace xtune {
namespace {

// A candidate whose every run takes `s` seconds.
Timed T(double s, bool eligible = true) {
  return Timed{std::vector<double>(10, s), {s, s, s}, eligible};
}

TEST(SelectionTest, Statistics) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2);
  std::vector<double> v;
  for (int i = 1; i <= 11; ++i) v.push_back(i);
  EXPECT_EQ(Quantile(v, 0.1), 2);
  EXPECT_EQ(Quantile(v, 0.0), 1);
  EXPECT_EQ(Quantile(v, 1.0), 11);
  EXPECT_EQ(Score(v), 6);
  EXPECT_EQ(Quantile({}, 0.5), 0);
}

TEST(SelectionTest, FastestWinsOutsideTheBand) {
  EXPECT_EQ(SelectWinner({T(1.0), T(0.5), T(0.9)}, 0.02), 1);
}

TEST(SelectionTest, TiesGoToTheEarliestCanonicalConfig) {
  // 1.01 is within 2% of 1.0: tied, and earlier in canonical order.
  double band = 0;
  EXPECT_EQ(SelectWinner({T(2.0), T(1.01), T(1.0)}, 0.02, &band), 1);
  EXPECT_EQ(band, 0.02);
  // 1.03 is not.
  EXPECT_EQ(SelectWinner({T(1.03), T(1.0)}, 0.02), 1);
}

TEST(SelectionTest, ConfigsFastOnlySometimesDoNotWinOnTheirBestCase) {
  // Fast in a few runs, slow in most (a threaded kernel on a busy machine).
  Timed bimodal{{1.0, 1.0, 1.0, 1.0, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3},
                {1.3, 1.3, 1.3}, true};
  EXPECT_EQ(SelectWinner({T(1.1), bimodal}, 0.02), 0);
}

TEST(SelectionTest, MicrosecondKernelsTieWithinTheTimingJitter) {
  // 1.5 us against 1.42 us: 5.6% apart, steady rounds. At 1.5 us the band
  // is 0.15 us / 1.42 us, 10.6%: tied, and the earlier one wins.
  double band = 0;
  EXPECT_EQ(SelectWinner({T(1.5e-6), T(1.42e-6)}, 0.03, &band), 0);
  EXPECT_NEAR(band, kTimingJitterSeconds / 1.42e-6, 1e-9);
  // The same ratio at 15 us is outside the 3% band.
  EXPECT_EQ(SelectWinner({T(15e-6), T(14.2e-6)}, 0.03, &band), 1);
  EXPECT_EQ(band, 0.03);
  // Never wider than 25%.
  EXPECT_EQ(SelectWinner({T(0.2e-6), T(0.1e-6)}, 0.03, &band), 1);
  EXPECT_EQ(band, 0.25);
  // A min_band above 25% still holds.
  EXPECT_EQ(SelectWinner({T(1.28), T(1.0)}, 0.3, &band), 0);
  EXPECT_EQ(band, 0.3);
}

TEST(SelectionTest, RoundToRoundDriftWidensTheReportedBandNotTheChoice) {
  // The machine drifts: every candidate's rounds disagree by 10%. The band
  // callers see says so; the 8% faster one still wins.
  Timed a{std::vector<double>(10, 1.08), {1.03, 1.138, 1.08}, true};
  Timed b{std::vector<double>(10, 1.0), {0.95, 1.05, 1.0}, true};
  double band = 0;
  EXPECT_EQ(SelectWinner({a, b}, 0.02, &band), 1);
  EXPECT_NEAR(band, 0.1, 1e-12);
  // Within the floor of it, the earlier one.
  Timed c{std::vector<double>(10, 1.015), {0.965, 1.065, 1.015}, true};
  EXPECT_EQ(SelectWinner({c, b}, 0.02, &band), 0);
}

TEST(SelectionTest, OneErraticCandidateDoesNotMakeEverythingTie) {
  // The fastest is erratic across rounds (60%); the others are steady.
  Timed erratic{std::vector<double>(10, 0.7), {0.6, 1.02, 0.7}, true};
  double band = 0;
  EXPECT_EQ(SelectWinner({T(1.0), T(1.1), erratic}, 0.02, &band), 2);
  EXPECT_EQ(band, 0.02);
}

TEST(SelectionTest, AFasterMedianWinsHoweverItsRoundsSpread) {
  // 15% faster by its median, its rounds spread over 35%. (The rule before
  // made a candidate beat the chosen one by its own spread too: replayed
  // on four tunings' logs, that made them agree less and choose slower
  // configs; see selection.cc.)
  Timed erratic{std::vector<double>(10, 0.85), {0.7, 1.0, 0.85}, true};
  double band = 0;
  EXPECT_EQ(SelectWinner({T(1.0), erratic}, 0.03, &band), 1);
  // 2% faster is within the 3% floor: the earlier one.
  Timed close{std::vector<double>(10, 0.98), {0.8, 1.1, 0.98}, true};
  EXPECT_EQ(SelectWinner({T(1.0), close}, 0.03), 0);
}

TEST(SelectionTest, MoreThreadsMustBeFasterByTheirOwnNoise) {
  // The same erratic 15% faster candidate on two threads, against a steady
  // one-thread one: not faster than its own 35% spread, so it loses.
  Timed threaded{std::vector<double>(10, 0.85), {0.7, 1.0, 0.85}, true, 2};
  EXPECT_EQ(SelectWinner({T(1.0), threaded}, 0.03), 0);
  // Steady, it wins; and an erratic one with no more threads than the
  // chosen one needs only the floor.
  Timed steady{std::vector<double>(10, 0.85), {0.84, 0.86, 0.85}, true, 2};
  EXPECT_EQ(SelectWinner({T(1.0), steady}, 0.03), 1);
  Timed two = T(1.0);
  two.threads = 2;
  EXPECT_EQ(SelectWinner({two, threaded}, 0.03), 1);
  // Fewer threads need only the floor, however erratic.
  Timed one{std::vector<double>(10, 0.85), {0.7, 1.0, 0.85}, true, 1};
  EXPECT_EQ(SelectWinner({two, one}, 0.03), 1);
}

TEST(SelectionTest, ASteadyFasterOneDisplacesAnEarlierOneWhateverTheOthers) {
  // What mlp's first gemm measured in a noisy run: the first pass was 25%
  // slow, the threaded kernels were erratic, and the old band (25% for
  // all) made the first config win though the third is 7% faster in every
  // later round, and the threaded BLAS call 13% faster than that in its
  // last four.
  Timed mr4{std::vector<double>(10, 87.7), {112.2, 89.5, 87.2, 87.8, 87.2, 86.2}, true};
  Timed threaded{std::vector<double>(10, 102.7), {67.2, 117.5, 101.3, 92.6, 118.8, 97.9}, true};
  Timed mr8{std::vector<double>(10, 81.8), {101.1, 84.0, 81.2, 81.4, 81.2, 81.1}, true};
  Timed blas2{std::vector<double>(10, 75.9), {96.3, 88.4, 70.3, 71.4, 70.5, 68.6}, true};
  EXPECT_NEAR(RoundSpread(mr4), (89.5 - 86.2) / 87.7, 1e-12);  // round 0 left out
  EXPECT_NEAR(RoundSpread(mr8), (84.0 - 81.1) / 81.8, 1e-12);
  EXPECT_EQ(RoundSpread(T(1.0)), 0);
  Timed one{{1.0}, {1.0}, true};
  EXPECT_EQ(RoundSpread(one), 0);
  double band = 0;
  EXPECT_EQ(SelectWinner({mr4, threaded, mr8}, 0.03, &band), 2);
  EXPECT_NEAR(band, 0.03, 1e-12);
  EXPECT_EQ(SelectWinner({mr4, threaded, mr8, blas2}, 0.03, &band), 3);
  EXPECT_NEAR(band, 0.03, 1e-12);
}

TEST(SelectionTest, APassWhenTheMachineWasSlowIsLevelled) {
  // Every candidate's second round 30% slow, the third 10% fast: the
  // machine, not the kernels. Levelled, the rounds agree, the band stays
  // at its floor and the 5% faster one wins.
  Timed a{std::vector<double>(10, 1.0), {1.0, 1.3, 0.9}, true};
  Timed b{std::vector<double>(10, 0.95), {0.95, 1.235, 0.855}, true};
  Timed c{std::vector<double>(10, 1.2), {1.2, 1.56, 1.08}, true};
  std::vector<std::vector<double>> levelled = LevelRounds({a, b, c});
  ASSERT_EQ(levelled.size(), 3u);
  for (double r : levelled[0]) EXPECT_NEAR(r, 1.0, 1e-12);
  for (double r : levelled[1]) EXPECT_NEAR(r, 0.95, 1e-12);
  double band = 0;
  EXPECT_EQ(SelectWinner({a, b, c}, 0.03, &band), 1);
  EXPECT_NEAR(band, 0.03, 1e-12);
  // Unlevelled, each spread 40%: the band was 25% and the first won.
  EXPECT_NEAR(RoundSpread(a), 0.4, 1e-12);
  // With fewer than three candidates a pass cannot be told from the
  // kernels: left as it is.
  levelled = LevelRounds({a, b});
  EXPECT_EQ(levelled[0], a.round_scores);
}

TEST(SelectionTest, IneligibleNeverWin) {
  EXPECT_EQ(SelectWinner({T(0.1, false), T(1.0)}, 0.02), 1);
  EXPECT_EQ(SelectWinner({T(0.1, false)}, 0.02), -1);
  EXPECT_EQ(SelectWinner({}, 0.02), -1);
}

}  // namespace
}  // namespace xtune
