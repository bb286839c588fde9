#include "arena/stats/sprt.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

// Reference values: the LLR of the logistic-Elo GSPRT computed independently
// with 50-digit arithmetic (mpmath: the mean-constrained maximum-likelihood
// distribution q = p / (1 + x (a - s)) with x from mpmath.findroot, checked
// to sum to 1 and to have mean s to 1e-30; empty categories count 1e-3).
TEST(Sprt, PentanomialLlrMatchesReference) {
  EXPECT_NEAR(LlrPentanomial({10, 60, 200, 80, 15}, 0, 10), 1.71091445605354, 1e-9);
  EXPECT_NEAR(LlrPentanomial({5, 40, 100, 45, 10}, 0, 10), 0.741017251194684, 1e-9);
  EXPECT_NEAR(LlrPentanomial({30, 70, 150, 40, 10}, 0, 10), -4.90809793896342, 1e-9);
  EXPECT_NEAR(LlrPentanomial({0, 12, 50, 20, 3}, -10, 0), 1.98737357721586, 1e-9);
  EXPECT_NEAR(LlrPentanomial({100, 300, 1000, 400, 150}, 0, 5), 5.67570951817131, 1e-9);
  EXPECT_NEAR(LlrPentanomial({10, 60, 200, 80, 15}, 0, 0), 0.0, 1e-12);
}

TEST(Sprt, SevenCategoryLlrMatchesReference) {
  // Three seats, one baseline seat: half points 0..6 per deal group.
  EXPECT_NEAR(LlrLogistic({2, 3, 0, 1, 0, 4, 2}, 0, 10), 0.0239535593327893, 1e-9);
}

TEST(Sprt, LlrAgreesWithTheNormalApproximationByHand) {
  // Counts 10, 60, 200, 80, 15 of values 0, 1/4, 1/2, 3/4, 1: N = 365,
  // mean = 190/365 = 0.520548, E[a^2] = 113.75/365 = 0.311644,
  // var = 0.040674; s0 = 0.5, s1 = L(10) = 0.514390. The usual
  // approximation N (s1 - s0)(2 mean - s0 - s1) / (2 var) = 1.724; the exact
  // GSPRT differs from it by under 1%.
  EXPECT_NEAR(LlrPentanomial({10, 60, 200, 80, 15}, 0, 10), 1.724, 0.02);
}

TEST(Sprt, BoundsAreWaldsForFivePercent) {
  // log(0.05 / 0.95) = -2.944439, log(0.95 / 0.05) = 2.944439.
  SprtBounds b = Bounds(0.05, 0.05);
  EXPECT_NEAR(b.lower, -2.9444389791664404, 1e-12);
  EXPECT_NEAR(b.upper, 2.9444389791664404, 1e-12);
}

TEST(Sprt, DecisionsFollowTheBounds) {
  EXPECT_EQ(Evaluate({100, 300, 1000, 400, 150}, 0, 5, 0.05, 0.05).decision,
            SprtDecision::kH1);
  EXPECT_EQ(Evaluate({30, 70, 150, 40, 10}, 0, 10, 0.05, 0.05).decision,
            SprtDecision::kH0);
  EXPECT_EQ(Evaluate({5, 40, 100, 45, 10}, 0, 10, 0.05, 0.05).decision,
            SprtDecision::kNone);
  EXPECT_EQ(Evaluate({}, 0, 10, 0.05, 0.05).decision, SprtDecision::kNone);
}

TEST(Sprt, GroupHalfPointsPairsTheDeal) {
  // Two seats: candidate 0 wins with seat 0, draws with seat 1: 2 + 1.
  std::vector<RatedMatch> pair = {{"d1", {0, 1}, {1, 2}, {}}, {"d1", {1, 0}, {1, 1}, {}}};
  int max = 0;
  EXPECT_EQ(GroupHalfPoints(pair, 0, 1, &max), 3);
  EXPECT_EQ(max, 4);
  EXPECT_EQ(GroupHalfPoints(pair, 1, 0, &max), 1);
  // Three seats with a filler (2): rotations; candidate before baseline
  // once, behind twice.
  std::vector<RatedMatch> trio = {{"d2", {0, 1, 2}, {1, 2, 3}, {}},
                                  {"d2", {2, 0, 1}, {1, 3, 2}, {}},
                                  {"d2", {1, 2, 0}, {1, 2, 3}, {}}};
  EXPECT_EQ(GroupHalfPoints(trio, 0, 1, &max), 2);
  EXPECT_EQ(max, 6);
  std::vector<RatedMatch> missing = {{"d3", {0, 2}, {1, 2}, {}}};
  EXPECT_EQ(GroupHalfPoints(missing, 0, 1, &max), -1);
}

TEST(Sprt, EloEstimateOfAnEvenMatchIsZero) {
  EloEstimate e = EstimateElo({10, 20, 40, 20, 10});
  EXPECT_NEAR(e.elo, 0.0, 1e-9);
  EXPECT_LT(e.low, 0);
  EXPECT_GT(e.high, 0);
  EXPECT_NEAR(e.low, -e.high, 1e-9);
  // Mean 0.75 (every pair 1.5 of 2): 400 log10(3) = 190.85 Elo, no spread.
  e = EstimateElo({0, 0, 0, 7, 0});
  EXPECT_NEAR(e.elo, 190.849, 0.001);
  EXPECT_NEAR(e.low, e.high, 1e-9);
  // Every one of 10 groups won: the score is taken as 1 - 1/20, i.e.
  // 400 log10(19) = 511.5 Elo, a bound rather than infinity.
  e = EstimateElo({0, 0, 0, 0, 10});
  EXPECT_NEAR(e.elo, 511.5, 0.1);
}

// 199 of 200 groups won outright, one nearly: the mean score is past the
// clamp, so the estimate and the upper end sit on it ("+926.4 [+916.6,
// +926.4]" read as an estimate on its interval's edge). Only the lower end
// is known: the text is a bound.
TEST(Sprt, AnEstimateOnTheClampIsPrintedAsABound) {
  const EloEstimate e = EstimateElo({0, 0, 0, 1, 199});
  EXPECT_DOUBLE_EQ(e.elo, e.high);
  ASSERT_LT(e.low, e.elo);
  const std::string text = EloText(e.elo, e.low, e.high, 200);
  EXPECT_EQ(text, absl::StrFormat("at least %+.1f (95%%)", e.low));
  EXPECT_EQ(text.find('['), std::string::npos);
  // The same lost, from the candidate's side.
  const EloEstimate l = EstimateElo({199, 1, 0, 0, 0});
  EXPECT_EQ(EloText(l.elo, l.low, l.high, 200), absl::StrFormat("at most %+.1f (95%%)", l.high));
}

// The estimate inside, the upper end on the clamp: that end is open.
TEST(Sprt, AnIntervalEndOnTheClampIsOpen) {
  const EloEstimate e = EstimateElo({0, 0, 0, 3, 197});
  ASSERT_LT(e.elo, e.high);
  EXPECT_EQ(EloText(e.elo, e.low, e.high, 200),
            absl::StrFormat("%+.1f [%+.1f, no upper bound] (95%%)", e.elo, e.low));
  // Away from the clamp both ends are printed.
  const EloEstimate m = EstimateElo({10, 20, 40, 20, 10});
  EXPECT_EQ(EloText(m.elo, m.low, m.high, 100),
            absl::StrFormat("%+.1f [%+.1f, %+.1f] (95%%)", m.elo, m.low, m.high));
}

}  // namespace
}  // namespace arena
