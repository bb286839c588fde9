// Weng-Lin Plackett-Luce updates (arena/stats/online_ratings.h), worked out
// by hand from the paper's Algorithm 4 with its defaults (mean 25,
// uncertainty s = 25/3, beta = 25/6, gamma = s / c).
#include "arena/stats/online_ratings.h"

#include <cmath>

#include "gtest/gtest.h"

namespace arena {
namespace {

constexpr double kEps = 1e-6;

// Two new players, the first wins. c^2 = 2 (s^2 + beta^2) = 173.6111; both
// strengths equal, so the winner's chance at first place is 1/2:
// omega = +-(1/2) s^2 / c = +-2.635231, delta = (1/4) s^2 / c^2 x s / c =
// 0.0632456, new s = s sqrt(1 - delta) = 8.065506. (OpenSkill's README
// shows the same pair: 27.635, 8.0655 and 22.365, 8.0655.)
TEST(OnlineRatings, TwoNewPlayersAsWorkedByHand) {
  const auto r = UpdateOnlineRatings({{}, {}}, {1, 2});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].mu, 27.635231383, kEps);
  EXPECT_NEAR(r[1].mu, 22.364768617, kEps);
  EXPECT_NEAR(r[0].sigma, 8.065506316, kEps);
  EXPECT_NEAR(r[1].sigma, 8.065506316, kEps);
}

// Three new players placed 1, 2, 3. c^2 = 3 (s^2 + beta^2) = 260.4167,
// s^2 / c = 4.303315. First: in the race for first place only (chance
// 1/3): omega = 2/3, delta = 2/9. Second: loses the race for first (chance
// 1/3) and wins the one for second (1/2): omega = -1/3 + 1/2 = 1/6,
// delta = 2/9 + 1/4. Third: -1/3 - 1/2 + 0 = -5/6, the same delta.
TEST(OnlineRatings, ThreeNewPlayersAsWorkedByHand) {
  const auto r = UpdateOnlineRatings({{}, {}, {}}, {1, 2, 3});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0].mu, 25 + (2.0 / 3) * 4.303315, 1e-5);
  EXPECT_NEAR(r[1].mu, 25 + (1.0 / 6) * 4.303315, 1e-5);
  EXPECT_NEAR(r[2].mu, 25 - (5.0 / 6) * 4.303315, 1e-5);
  EXPECT_NEAR(r[0].sigma, 8.204837031, kEps);
  EXPECT_NEAR(r[1].sigma, 8.057829748, kEps);
  EXPECT_NEAR(r[2].sigma, 8.057829748, kEps);
  // Seats in another order, the same players: the same ratings.
  const auto again = UpdateOnlineRatings({{}, {}, {}}, {3, 1, 2});
  EXPECT_NEAR(again[1].mu, r[0].mu, kEps);
  EXPECT_NEAR(again[2].mu, r[1].mu, kEps);
  EXPECT_NEAR(again[0].mu, r[2].mu, kEps);
}

// A tie between equals moves no mean (each gains 1/4 and loses 1/4 of the
// shared place), and is as informative as a win: the same uncertainty.
TEST(OnlineRatings, ATieBetweenEqualsMovesNoMean) {
  const auto r = UpdateOnlineRatings({{}, {}}, {1, 1});
  EXPECT_NEAR(r[0].mu, 25, kEps);
  EXPECT_NEAR(r[1].mu, 25, kEps);
  EXPECT_NEAR(r[0].sigma, 8.065506316, kEps);
}

// An upset teaches more than the expected result; a sure player moves
// less than an unsure one; ratings far apart neither overflow nor go NaN.
TEST(OnlineRatings, SurpriseAndCertaintyScaleTheChange) {
  const OnlineRating strong{35, 2}, weak{15, 2};
  const double expected = UpdateOnlineRatings({strong, weak}, {1, 2})[0].mu - strong.mu;
  const double upset = UpdateOnlineRatings({strong, weak}, {2, 1})[1].mu - weak.mu;
  EXPECT_GT(expected, 0);
  EXPECT_GT(upset, 5 * expected);
  const OnlineRating sure{25, 1}, unsure{25, 8};
  const auto r = UpdateOnlineRatings({sure, unsure}, {1, 2});
  EXPECT_LT(r[0].mu - 25, 0.1 * (25 - r[1].mu));
  const auto far = UpdateOnlineRatings({{1e6, 1}, {-1e6, 1}}, {2, 1});
  for (const auto& x : far) {
    EXPECT_TRUE(std::isfinite(x.mu) && std::isfinite(x.sigma));
    EXPECT_GT(x.sigma, 0);
  }
  // Bad input: the ratings as they were.
  EXPECT_EQ(UpdateOnlineRatings({{}, {}}, {1}).size(), 2u);
  EXPECT_EQ(UpdateOnlineRatings({{}, {}}, {1})[0].mu, 25);
  EXPECT_EQ(UpdateOnlineRatings({{}}, {1})[0].sigma, 25.0 / 3);
}

TEST(OnlineRatings, TheLeaderboardBoundIsMeanLessThreeUncertainties) {
  EXPECT_NEAR(ConservativeRating({25, 25.0 / 3}), 0, kEps);
  EXPECT_NEAR(ConservativeRating({30, 2}, 2), 26, kEps);
}

}  // namespace
}  // namespace arena
