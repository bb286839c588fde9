// ThinkTimes (referee/match/think_times.h): quantiles by nearest rank to
// within 1 %, the largest time exact, merging in any order the same.
#include "referee/match/think_times.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace {

// Five answers: 0, 1, 100, 1,000 and 50,000 us. Nearest rank: the median
// is the 3rd (ceil(0.5 x 5)), 100; the 95th percentile the 5th, 50,000 (its
// bucket's middle is above it: the largest time caps it); the 20th
// percentile the 1st, 0.
TEST(ThinkTimes, QuantilesByNearestRankWorkedByHand) {
  ThinkTimes t;
  for (int64_t us : {1000, 0, 50000, 1, 100}) t.Add(us);
  EXPECT_EQ(t.count(), 5);
  EXPECT_EQ(t.max_us(), 50000);
  EXPECT_NEAR(t.QuantileUs(0.5), 100, 0.5);
  EXPECT_LE(t.QuantileUs(0.95), 50000);
  EXPECT_NEAR(t.QuantileUs(0.95), 50000, 250);
  EXPECT_EQ(t.QuantileUs(0.2), 0);
  EXPECT_NEAR(t.QuantileUs(0.8), 1000, 5);
  EXPECT_EQ(ThinkTimes().QuantileUs(0.5), 0);
  ThinkTimes neg;
  neg.Add(-5);  // a clock that went back counts as 0, never below
  EXPECT_EQ(neg.max_us(), 0);
  EXPECT_EQ(neg.QuantileUs(1), 0);
}

// 20,000 times spread over six orders of magnitude: every percentile within
// 1 % of the exact nearest-rank one; two halves merged either way equal the
// whole.
TEST(ThinkTimes, WithinOnePercentOfTheExactQuantiles) {
  Rng rng(5);
  std::vector<int64_t> all;
  ThinkTimes whole, a, b;
  for (int i = 0; i < 20000; ++i) {
    const double u = static_cast<double>(rng.Next() >> 11) * 0x1.0p-53;
    const int64_t us = static_cast<int64_t>(std::pow(10.0, 6 * u));
    all.push_back(us);
    whole.Add(us);
    (i % 3 == 0 ? a : b).Add(us);
  }
  std::sort(all.begin(), all.end());
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.95, 0.99, 1.0}) {
    const int64_t exact = all[static_cast<size_t>(std::ceil(q * all.size())) - 1];
    EXPECT_NEAR(whole.QuantileUs(q), exact, 0.01 * exact + 1e-9) << "q " << q;
  }
  EXPECT_EQ(whole.max_us(), all.back());
  ThinkTimes ab = a, ba = b;
  ab.Merge(b);
  ba.Merge(a);
  EXPECT_TRUE(ab == whole);
  EXPECT_TRUE(ba == whole);
}

}  // namespace
}  // namespace arena
