#include "autotune/selection.h"

#include "gtest/gtest.h"

namespace xtune {
namespace {

Timed T(double median, bool eligible = true) {
  return Timed{median, {median, median, median, median}, eligible};
}

TEST(SelectionTest, MedianAndNoiseBand) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2);
  EXPECT_EQ(NoiseBand({1, 1, 1}, 0.02), 0.02);  // too few samples
  EXPECT_DOUBLE_EQ(NoiseBand({1.0, 1.0, 1.1, 1.2, 1.3, 1.0, 1.0, 1.0}, 0.02),
                   0.2);  // IQR (1.2 - 1.0) over median 1.0
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

TEST(SelectionTest, NoisyFastestWidensTheBand) {
  Timed noisy{1.0, {0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 0.7, 1.0}, true};
  EXPECT_EQ(SelectWinner({T(1.2), noisy}, 0.02), 0);
}

TEST(SelectionTest, IneligibleNeverWin) {
  EXPECT_EQ(SelectWinner({T(0.1, false), T(1.0)}, 0.02), 1);
  EXPECT_EQ(SelectWinner({T(0.1, false)}, 0.02), -1);
  EXPECT_EQ(SelectWinner({}, 0.02), -1);
}

}  // namespace
}  // namespace xtune
