#include "arena/stats/ratings.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace {

constexpr double kNatPerElo = 2.302585092994045684 / 400.0;

double Uniform01(Rng& rng) {
  return ((rng.Next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// Plackett-Luce outcomes: utility = strength + Gumbel noise, best first.
// Any seating (a player may fill several seats): `groups` deal groups,
// each one match per rotation of `seating`.
std::vector<RatedMatch> SimulateSeating(const std::vector<double>& elo,
                                        const std::vector<int>& seating, int groups,
                                        Rng& rng) {
  const int seats = static_cast<int>(seating.size());
  std::vector<RatedMatch> out;
  for (int g = 0; g < groups; ++g) {
    for (int rot = 0; rot < seats; ++rot) {
      RatedMatch m;
      m.deal_group = "g" + std::to_string(g);
      std::vector<double> u(seats);
      for (int s = 0; s < seats; ++s) {
        const int p = seating[(s + rot) % seats];
        m.seat_players.push_back(p);
        u[s] = elo[p] * kNatPerElo - std::log(-std::log(Uniform01(rng)));
      }
      for (int s = 0; s < seats; ++s) {
        int place = 1;
        for (int t = 0; t < seats; ++t) place += u[t] > u[s];
        m.placements.push_back(place);
        m.scores.push_back(seats - place);
      }
      out.push_back(m);
    }
  }
  return out;
}

// Every player in one seat: players 0..n-1 shifted by the rotation.
std::vector<RatedMatch> Simulate(const std::vector<double>& elo, int groups,
                                 Rng& rng) {
  std::vector<int> seating(elo.size());
  std::iota(seating.begin(), seating.end(), 0);
  return SimulateSeating(elo, seating, groups, rng);
}

TEST(Ratings, TwoPlayersThreeWinsInFourIsFourHundredLog3Apart) {
  // 75 of 100 comparisons won: p = 3/4, D = 400 log10(3) = 190.849 Elo.
  PairCounts c(2);
  c.n[0][1] = c.n[1][0] = 100;
  c.w[0][1] = 75;
  c.w[1][0] = 25;
  std::vector<double> r = FitBradleyTerry(c, 1e-9);
  EXPECT_NEAR((r[0] - r[1]) / kNatPerElo, 190.849, 0.01);
}

TEST(Ratings, RecoversKnownStrengthsWithCoveringIntervals) {
  // Four players, four seats, centred true ratings.
  const std::vector<double> truth = {-150, -50, 20, 180};
  Rng rng(2024);
  int covered = 0, total = 0;
  double max_mean_error = 0;
  std::vector<double> mean(4, 0.0);
  const int trials = 60;
  for (int t = 0; t < trials; ++t) {
    auto matches = Simulate(truth, 40, rng);
    RatingOptions o;
    o.bootstrap = 200;
    o.seed = 100 + t;
    auto r = FitRatings(4, matches, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->deal_groups, 40);
    EXPECT_EQ(r->bootstrap, 200);
    for (int p = 0; p < 4; ++p) {
      ++total;
      covered += r->low[p] <= truth[p] && truth[p] <= r->high[p];
      mean[p] += r->elo[p] / trials;
      EXPECT_LT(r->low[p], r->elo[p]);
      EXPECT_GT(r->high[p], r->elo[p]);
    }
  }
  for (int p = 0; p < 4; ++p) {
    max_mean_error = std::max(max_mean_error, std::abs(mean[p] - truth[p]));
  }
  // 60 trials of 160 matches: the mean estimate is within 15 Elo of the truth.
  EXPECT_LT(max_mean_error, 15.0);
  EXPECT_GE(covered, 0.90 * total) << covered << " of " << total;
  std::printf("coverage %d of %d, max mean error %.1f Elo\n", covered, total, max_mean_error);
}

TEST(Ratings, LargeSampleIsCloseAndOrdered) {
  const std::vector<double> truth = {-100, 0, 100};
  Rng rng(7);
  auto matches = Simulate(truth, 2000, rng);
  RatingOptions o;
  o.bootstrap = 100;
  auto r = FitRatings(3, matches, o);
  ASSERT_TRUE(r.ok());
  for (int p = 0; p < 3; ++p) EXPECT_NEAR(r->elo[p], truth[p], 12.0) << p;
  EXPECT_EQ(r->rank, (std::vector<int>{3, 2, 1}));
  EXPECT_GT(r->los[2][0], 0.999);
  EXPECT_LT(r->los[0][2], 0.001);
  EXPECT_NEAR(r->los[1][2] + r->los[2][1], 1.0, 1e-9);
  // 2000 groups x 3 matches x 3 pairs; each player is in 2 pairs per match.
  EXPECT_EQ(r->comparisons[0], 2000 * 3 * 2);
}

TEST(Ratings, TiesShareRanksAndCountHalf) {
  // a and b tie every match for first; c is last every time.
  std::vector<RatedMatch> ms;
  for (int g = 0; g < 20; ++g) {
    ms.push_back({"g" + std::to_string(g), {0, 1, 2}, {1, 1, 3}, {5, 5, 0}});
    ms.push_back({"g" + std::to_string(g), {2, 0, 1}, {3, 1, 1}, {0, 5, 5}});
  }
  RatingOptions o;
  o.bootstrap = 50;
  auto r = FitRatings(3, ms, o);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->elo[0], r->elo[1], 1e-9);
  EXPECT_EQ(r->rank, (std::vector<int>{1, 1, 3}));
  EXPECT_NEAR(r->los[0][1], 0.5, 1e-9);
  EXPECT_GT(r->elo[0], r->elo[2] + 200);
  auto h = HeadToHeads(3, ms);
  EXPECT_EQ(h[0][1].matches, 40);
  EXPECT_EQ(h[0][1].tied, 40);
  EXPECT_EQ(h[0][2].ahead, 40);
  EXPECT_EQ(h[2][0].behind, 40);
}

// `groups` deal groups g0, g1, ... of two matches between players 0 and 1,
// seats swapped: 0 wins the first; the second too if `zero_wins_both`, else
// seat 0 (player 1) does, and the group is split.
std::vector<RatedMatch> TwoMatchGroups(int groups, bool zero_wins_both) {
  std::vector<RatedMatch> ms;
  for (int g = 0; g < groups; ++g) {
    ms.push_back({"g" + std::to_string(g), {0, 1}, {1, 2}, {1, 0}});
    if (zero_wins_both) {
      ms.push_back({"g" + std::to_string(g), {1, 0}, {2, 1}, {0, 1}});
    } else {
      ms.push_back({"g" + std::to_string(g), {1, 0}, {1, 2}, {1, 0}});
    }
  }
  return ms;
}

TEST(Ratings, EqualPlayersShareRankOne) {
  // Two players, each wins one of the two matches of every deal group.
  auto r = FitRatings(2, TwoMatchGroups(10, /*zero_wins_both=*/false), RatingOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->elo[0], 0.0, 1e-9);
  EXPECT_NEAR(r->elo[1], 0.0, 1e-9);
  EXPECT_EQ(r->rank, (std::vector<int>{1, 1}));
}

TEST(Ratings, HeadToHeadUsesMeanOfABotsSeats) {
  // Bot 0 fills seats 0 and 2 (placements 1 and 3, scores 10 and 2),
  // bot 1 seat 1 (placement 2, score 6): bot 0 means 6 points, placement 2.
  std::vector<RatedMatch> ms = {{"g", {0, 1, 0}, {1, 2, 3}, {10, 6, 2}}};
  auto h = HeadToHeads(2, ms);
  EXPECT_EQ(h[0][1].matches, 1);
  EXPECT_EQ(h[0][1].tied, 1);
  EXPECT_DOUBLE_EQ(h[0][1].score, 6.0);
  EXPECT_DOUBLE_EQ(h[0][1].opponent_score, 6.0);
  EXPECT_DOUBLE_EQ(h[0][1].placement, 2.0);
  EXPECT_EQ(h[0][0].matches, 0);
}

TEST(Ratings, SameSeedSameIntervals) {
  Rng rng(3);
  auto ms = Simulate({-30, 0, 30}, 30, rng);
  RatingOptions o;
  o.bootstrap = 100;
  auto a = FitRatings(3, ms, o);
  auto b = FitRatings(3, ms, o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->low, b->low);
  EXPECT_EQ(a->high, b->high);
  // Match order does not matter.
  std::reverse(ms.begin(), ms.end());
  auto c = FitRatings(3, ms, o);
  ASSERT_TRUE(c.ok());
  for (int p = 0; p < 3; ++p) {
    EXPECT_NEAR(a->low[p], c->low[p], 1e-9);
    EXPECT_NEAR(a->elo[p], c->elo[p], 1e-9);
  }
}

TEST(Ratings, UnbeatenPlayerGetsAFiniteRating) {
  std::vector<RatedMatch> ms;
  for (int g = 0; g < 5; ++g) ms.push_back({"g" + std::to_string(g), {0, 1}, {1, 2}, {1, 0}});
  auto r = FitRatings(2, ms, RatingOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::isfinite(r->elo[0]));
  EXPECT_GT(r->elo[0], 100);
  EXPECT_NEAR(r->elo[0], -r->elo[1], 1e-9);
}

TEST(Ratings, BadInputIsNamed) {
  std::vector<RatedMatch> ms = {{"g7", {0, 5}, {1, 2}, {}}};
  auto r = FitRatings(2, ms, RatingOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("g7"), std::string::npos);
  ms = {{"g8", {0, 1}, {1}, {}}};
  EXPECT_FALSE(FitRatings(2, ms, RatingOptions{}).ok());
  ms = {{"g9", {0, 1}, {0, 1}, {}}};
  EXPECT_FALSE(FitRatings(2, ms, RatingOptions{}).ok());
  RatingOptions o;
  o.prior_draws = 0;
  EXPECT_FALSE(FitRatings(2, {}, o).ok());
}


// Small samples: 4, 8, 12 and 20 matches, true ratings known, including
// strengths far enough apart that one bot often wins every comparison
// (complete separation). Three designs: two bots in two seats (the usual
// duplicate pair), four bots in four seats, and two bots in four seats
// (one of them in three), as a Pesten tournament of two bots seats them.
TEST(Ratings, SmallSamplesKeepTheirCoverageAndWidth) {
  struct Design {
    const char* name;
    std::vector<int> seating;             // rotated: one match per rotation
    std::vector<std::vector<double>> truths;  // centred
  };
  const std::vector<Design> designs = {
      {"2 bots, 2 seats", {0, 1}, {{0, 0}, {-50, 50}, {-100, 100}, {-200, 200}, {-300, 300}}},
      {"4 bots, 4 seats", {0, 1, 2, 3}, {{-150, -50, 20, 180}, {-300, -100, 100, 300}}},
      {"2 bots, 4 seats", {0, 0, 0, 1}, {{-100, 100}, {-200, 200}}},
  };
  const int trials = 150;
  int all_covered = 0, all_total = 0;
  for (const Design& d : designs) {
    const int seats = static_cast<int>(d.seating.size());
    for (int matches : {4, 8, 12, 20}) {
      const int groups = (matches + seats - 1) / seats;
      int covered = 0, total = 0, boot = 0, profile = 0, separated = 0;
      double min_width = 1e300;
      Rng rng(1000 * seats + matches);
      for (const auto& truth : d.truths) {
        const int players = static_cast<int>(truth.size());
        for (int t = 0; t < trials; ++t) {
          auto ms = SimulateSeating(truth, d.seating, groups, rng);
          RatingOptions o;
          o.bootstrap = 100;
          o.seed = 7 + t;
          auto r = FitRatings(players, ms, o);
          ASSERT_TRUE(r.ok()) << r.status();
          // Separation: some player won or lost every comparison it took part in.
          PairCounts c(players);
          for (const auto& m : ms) AddMatch(m, 1.0, &c);
          for (int p = 0; p < players; ++p) {
            double n = 0, w = 0;
            for (int q = 0; q < players; ++q) n += c.n[p][q], w += c.w[p][q];
            if (w == 0 || w == n) {
              ++separated;
              break;
            }
          }
          for (int p = 0; p < players; ++p) {
            ++total;
            covered += r->low[p] <= truth[p] && truth[p] <= r->high[p];
            boot += r->boot_low[p] <= truth[p] && truth[p] <= r->boot_high[p];
            profile += r->profile_low[p] <= truth[p] && truth[p] <= r->profile_high[p];
            min_width = std::min(min_width, r->high[p] - r->low[p]);
            ASSERT_LE(r->low[p], r->elo[p]);
            ASSERT_GE(r->high[p], r->elo[p]);
            ASSERT_TRUE(std::isfinite(r->low[p]) && std::isfinite(r->high[p]));
          }
        }
      }
      const double share = static_cast<double>(covered) / total;
      std::printf("%s, %2d matches: %d of %d intervals cover (%.1f%%; profile alone "
                  "%.1f%%, bootstrap alone %.1f%%), %d of %zu tournaments separated, "
                  "narrowest %.0f Elo\n",
                  d.name, matches, covered, total, 100.0 * share, 100.0 * profile / total,
                  100.0 * boot / total, separated, trials * d.truths.size(), min_width);
      // Nominal 95%. Each cell holds 300 to 750 intervals (binomial standard
      // error 0.8 to 1.3 points at 95%), and in small samples the outcomes
      // are few and discrete, so coverage cannot sit at 95% exactly: the
      // intervals may err on the safe side, not below 90%.
      EXPECT_GE(share, 0.90) << d.name << ", " << matches << " matches";
      EXPECT_LE(share, 0.995) << d.name << ", " << matches << " matches";
      // Never a point: at least 100 Elo wide with 20 matches or fewer.
      EXPECT_GT(min_width, 100.0) << d.name << ", " << matches << " matches";
      all_covered += covered;
      all_total += total;
    }
  }
  std::printf("all: %d of %d (%.1f%%)\n", all_covered, all_total,
              100.0 * all_covered / all_total);
}

TEST(Ratings, FourMatchesAllWonGiveAWideIntervalNotAPoint) {
  // Two deal groups of two matches, a wins all four: the fit is finite (the
  // prior) and the interval is wide; the LOS is high but not certainty.
  auto r = FitRatings(2, TwoMatchGroups(2, /*zero_wins_both=*/true), RatingOptions{});
  ASSERT_TRUE(r.ok());
  std::printf("4 of 4 won: %+.0f [%+.0f, %+.0f], LOS %.3f\n", r->elo[0], r->low[0],
              r->high[0], r->los[0][1]);
  EXPECT_GT(r->elo[0], 100);
  EXPECT_LT(r->low[0], r->elo[0] - 100);
  EXPECT_GT(r->high[0], r->elo[0] + 100);
  EXPECT_LT(r->low[0], 100);  // four matches do not prove much
  EXPECT_LT(r->los[0][1], 0.999);
  EXPECT_GT(r->los[0][1], 0.8);
}

// A two-seat round robin of `players` bots, `groups` deal groups a pair
// (each two matches, seats swapped); player 0 wins a comparison with
// probability `p0` when `p0` > 0, every other comparison is a fair coin.
std::vector<RatedMatch> CoinRoundRobin(int players, int groups, double p0, Rng& rng) {
  std::vector<RatedMatch> out;
  int g = 0;
  for (int i = 0; i < players; ++i) {
    for (int j = i + 1; j < players; ++j) {
      for (int k = 0; k < groups; ++k, ++g) {
        for (int swap = 0; swap < 2; ++swap) {
          const double p = i == 0 && p0 > 0 ? p0 : 0.5;
          const bool i_wins = Uniform01(rng) < p;
          RatedMatch m;
          m.deal_group = "g" + std::to_string(g);
          m.seat_players = swap ? std::vector<int>{j, i} : std::vector<int>{i, j};
          m.placements = (i_wins != (swap == 1)) ? std::vector<int>{1, 2}
                                                 : std::vector<int>{2, 1};
          m.scores = {0, 0};
          out.push_back(m);
        }
      }
    }
  }
  return out;
}

// The ratings of a 64-bot CoinRoundRobin of 2 deal groups a pair (8,064
// matches), with 200 bootstrap replicates; `seed` seeds the coins.
absl::StatusOr<Ratings> FitCoinField(uint64_t seed, double p0) {
  Rng rng(seed);
  RatingOptions o;
  o.bootstrap = 200;
  return FitRatings(64, CoinRoundRobin(64, 2, p0, rng), o);
}

TEST(Ratings, SixtyFourEqualBotsHaveWideRankIntervalsAndNoOrder) {
  // 64 copies of one bot (every result a fair coin, fixed seed), 2 deal
  // groups a pair: 8,064 matches, 252 a bot. Nothing tells them apart, so
  // the rank intervals must span half the field on average, and no pair may
  // be called surely ordered. The luckiest and unluckiest bots' intervals
  // are cut by the end of the field (the last one's runs to 64 and no
  // further), so each alone must span at least a quarter of it.
  auto r = FitCoinField(64, 0);
  ASSERT_TRUE(r.ok());
  int narrowest = 64, widest = 0, total = 0;
  for (int i = 0; i < 64; ++i) {
    const int width = r->rank_high[i] - r->rank_low[i] + 1;
    narrowest = std::min(narrowest, width);
    widest = std::max(widest, width);
    total += width;
    EXPECT_LE(r->rank_low[i], r->rank[i]) << i;
    EXPECT_GE(r->rank_high[i], r->rank[i]) << i;
    EXPECT_GE(width, 16) << "bot " << i << ": ranks " << r->rank_low[i] << "-"
                         << r->rank_high[i];
  }
  std::printf("64 equal bots: rank intervals %d to %d ranks wide, %.1f on average\n",
              narrowest, widest, total / 64.0);
  EXPECT_GE(total, 32 * 64);
  EXPECT_EQ(r->pairs_compared, 64 * 63 / 2);
  int ordered = 0;
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 64; ++j) ordered += r->surely_ahead[i][j];
  }
  EXPECT_EQ(ordered, 0);
}

TEST(Ratings, ADominantBotIsSurelyAheadOfEveryOther) {
  // The same field, but bot 0 wins 90% of its comparisons (+382 Elo over
  // the rest): it must be ranked 1 surely, and ahead of all 63.
  auto r = FitCoinField(65, 0.9);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rank[0], 1);
  EXPECT_EQ(r->rank_low[0], 1);
  EXPECT_EQ(r->rank_high[0], 1);
  int ahead = 0, among_others = 0;
  for (int j = 1; j < 64; ++j) {
    ahead += r->surely_ahead[0][j];
    EXPECT_FALSE(r->surely_ahead[j][0]);
    EXPECT_GE(r->rank_low[j], 2);
    for (int k = 1; k < 64; ++k) among_others += r->surely_ahead[j][k];
  }
  EXPECT_EQ(ahead, 63);
  std::printf("dominant bot: ahead of %d; %d pairs of the others ordered\n", ahead,
              among_others);
}

TEST(Ratings, RankIntervalsAreTheSameForTheSameSeedAndPointsWithoutIntervals) {
  Rng rng(7);
  const auto ms = CoinRoundRobin(8, 3, 0.7, rng);
  RatingOptions o;
  o.bootstrap = 100;
  auto a = FitRatings(8, ms, o);
  auto b = FitRatings(8, ms, o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rank_low, b->rank_low);
  EXPECT_EQ(a->rank_high, b->rank_high);
  EXPECT_EQ(a->surely_ahead, b->surely_ahead);
  o.bootstrap = 0;
  auto none = FitRatings(8, ms, o);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->rank_low, none->rank);
  EXPECT_EQ(none->rank_high, none->rank);
  EXPECT_EQ(none->pairs_compared, 0);
}

TEST(Ratings, OneDealGroupGivesRankIntervalsFromTheLos) {
  // One group (no bootstrap): two matches, a wins both. LOS(a, b) is below
  // 0.975 (two matches prove little), so each bot may be first or second.
  std::vector<RatedMatch> ms = {{"g", {0, 1}, {1, 2}, {1, 0}}, {"g", {1, 0}, {2, 1}, {0, 1}}};
  auto r = FitRatings(2, ms, RatingOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->bootstrap, 0);
  ASSERT_LT(r->los[0][1], 0.975);
  EXPECT_EQ(r->rank_low, (std::vector<int>{1, 1}));
  EXPECT_EQ(r->rank_high, (std::vector<int>{2, 2}));
  EXPECT_EQ(r->pairs_compared, 1);
  EXPECT_FALSE(r->surely_ahead[0][1]);
}

TEST(ExactSum, IsExactAndTheSameInAnyOrder) {
  // 1e100 + 1 - 1e100 is 1 exactly (a plain sum gives 0).
  ExactSum a;
  for (double x : {1e100, 1.0, -1e100}) a.Add(x);
  EXPECT_EQ(a.Value(), 1.0);
  // Ten times 0.1: the exact sum of the ten doubles nearest 0.1, rounded
  // once, is 1 (a plain left-to-right sum gives 0.9999999999999999).
  ExactSum tenth;
  for (int i = 0; i < 10; ++i) tenth.Add(0.1);
  EXPECT_EQ(tenth.Value(), 1.0);
  // Thirds, sevenths and large and small terms, in shuffled orders: every
  // order gives the same bits.
  std::vector<double> terms;
  for (int i = 1; i <= 300; ++i) {
    terms.push_back(1.0 / (i % 7 + 1) + (i % 3 == 0 ? 1e12 : 0) - (i % 5 == 0 ? 1e-9 : 0));
  }
  auto sum_in = [](const std::vector<double>& v) {
    ExactSum s;
    for (double x : v) s.Add(x);
    return s.Value();
  };
  const double first = sum_in(terms);
  Rng rng(7);
  for (int round = 0; round < 20; ++round) {
    for (size_t i = terms.size() - 1; i > 0; --i) {
      std::swap(terms[i], terms[rng.Uniform(static_cast<uint32_t>(i + 1))]);
    }
    EXPECT_EQ(sum_in(terms), first) << "order " << round;
  }
  ExactSum empty;
  EXPECT_EQ(empty.Value(), 0.0);
  ExactSum inf;
  for (double x : {1.0, HUGE_VAL, 2.0}) inf.Add(x);
  EXPECT_EQ(inf.Value(), HUGE_VAL);
  inf.Add(-HUGE_VAL);
  EXPECT_TRUE(std::isnan(inf.Value()));
}

std::vector<std::string> GroupOrder(const std::vector<std::string>& names) {
  // Each group's one pair is (0, k): k tells the groups apart.
  std::vector<std::pair<std::string, int>> added;
  for (size_t k = 0; k < names.size(); ++k) added.push_back({names[k], int(k) + 1});
  DealGroupComparisons c;
  for (const auto& [name, k] : added) {
    const std::vector<int> players = {0, k}, places = {1, 2};
    EXPECT_TRUE(c.Add(name, players, places).ok());
  }
  std::vector<std::string> order;
  c.ForEachGroup([&](absl::Span<const DealGroupComparisons::Pair> pairs) {
    EXPECT_EQ(pairs.size(), 1u);
    order.push_back(names[pairs[0].j - 1]);
  });
  return order;
}

TEST(DealGroupComparisons, GroupsComeInNameOrderWhateverTheOrderAdded) {
  // Byte order of the names (as a std::map<std::string> would give):
  // "g10" < "g9", "g009" < "g01" < "g1", "" first, a name of 25 digits.
  const std::vector<std::string> sorted = {
      "",  "1234567890123456789012345", "9", "g", "g009", "g01", "g1", "g10",
      "g9", "g9x", "h-000001", "h-000002", "h-000010", "x18446744073709551616"};
  std::vector<std::string> shuffled = {sorted[7], sorted[13], sorted[4], sorted[0],
                                       sorted[10], sorted[1], sorted[12], sorted[2],
                                       sorted[5], sorted[9], sorted[3], sorted[11],
                                       sorted[8], sorted[6]};
  EXPECT_EQ(GroupOrder(shuffled), sorted);
  EXPECT_EQ(GroupOrder(sorted), sorted);
}

// A copy compares names through its own prefixes: it outlives the original,
// orders the groups the same way and grows apart from it.
TEST(DealGroupComparisons, ACopyOutlivesTheOriginalAndGrowsApart) {
  std::unique_ptr<DealGroupComparisons> original = std::make_unique<DealGroupComparisons>();
  for (const char* name : {"h-000010", "g9", "h-000002", "g10", "", "x7"}) {
    ASSERT_TRUE(original->Add(name, std::vector<int>{0, 1}, std::vector<int>{1, 2}).ok());
  }
  ASSERT_TRUE(original->Add("g9", std::vector<int>{2, 0}, std::vector<int>{1, 2}).ok());
  DealGroupComparisons copy(*original);
  ASSERT_TRUE(original->Add("a1", std::vector<int>{0, 3}, std::vector<int>{1, 2}).ok());
  EXPECT_EQ(original->groups(), 7);
  EXPECT_EQ(original->players(), 4);
  original.reset();
  // New groups with prefixes old and new, added to the copy alone.
  ASSERT_TRUE(copy.Add("h-000003", std::vector<int>{1, 0}, std::vector<int>{1, 2}).ok());
  ASSERT_TRUE(copy.Add("b5", std::vector<int>{1, 0}, std::vector<int>{1, 2}).ok());
  EXPECT_EQ(copy.groups(), 8);
  EXPECT_EQ(copy.players(), 3);
  EXPECT_EQ(copy.comparisons(), (std::vector<int64_t>{9, 8, 1}));
  std::vector<size_t> pairs_per_group;
  copy.ForEachGroup([&](absl::Span<const DealGroupComparisons::Pair> p) {
    pairs_per_group.push_back(p.size());
  });
  // "", b5, g10, g9 (two pairs), h-000002, h-000003, h-000010, x7.
  EXPECT_EQ(pairs_per_group, (std::vector<size_t>{1, 1, 1, 2, 1, 1, 1, 1}));
  DealGroupComparisons assigned;
  assigned = copy;
  EXPECT_EQ(assigned.groups(), 8);
  EXPECT_EQ(assigned.comparisons(), copy.comparisons());
}

TEST(DealGroupComparisons, CountsAPairsComparisonsAcrossTheGroupsMatches) {
  DealGroupComparisons c;
  // Group g1: players 3 and 1 meet twice (3 wins once, one tie); player 2
  // plays 1 once and wins; a match of 1 against itself compares nothing.
  ASSERT_TRUE(c.Add("g1", std::vector<int>{3, 1}, std::vector<int>{1, 2}).ok());
  ASSERT_TRUE(c.Add("g1", std::vector<int>{1, 3}, std::vector<int>{1, 1}).ok());
  ASSERT_TRUE(c.Add("g1", std::vector<int>{1, 2}, std::vector<int>{2, 1}).ok());
  ASSERT_TRUE(c.Add("g0", std::vector<int>{1, 1}, std::vector<int>{1, 2}).ok());
  EXPECT_EQ(c.groups(), 2);
  EXPECT_EQ(c.players(), 4);
  // Comparisons, per seat against each seat of another player: player 1 has
  // one in each of the first three matches, 3 one in each of the first two,
  // 2 one; the g0 match has none.
  EXPECT_EQ(c.comparisons(), (std::vector<int64_t>{0, 3, 1, 2}));
  std::vector<std::vector<DealGroupComparisons::Pair>> seen;
  c.ForEachGroup([&](absl::Span<const DealGroupComparisons::Pair> p) {
    seen.emplace_back(p.begin(), p.end());
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].empty());  // g0: a group with no comparison still counts
  ASSERT_EQ(seen[1].size(), 2u);
  EXPECT_EQ(seen[1][0].i, 1);
  EXPECT_EQ(seen[1][0].j, 2);
  EXPECT_EQ(seen[1][0].n, 1);
  EXPECT_EQ(seen[1][0].w, 0);  // 2 won
  EXPECT_EQ(seen[1][1].i, 1);
  EXPECT_EQ(seen[1][1].j, 3);
  EXPECT_EQ(seen[1][1].n, 2);
  EXPECT_EQ(seen[1][1].w, 0.5);  // lost once, tied once
  // Bad matches change nothing.
  EXPECT_FALSE(c.Add("g2", std::vector<int>{0, -1}, std::vector<int>{1, 2}).ok());
  EXPECT_FALSE(c.Add("g2", std::vector<int>{0, 5}, std::vector<int>{1, 0}).ok());
  EXPECT_FALSE(c.Add("g2", std::vector<int>{0, 5}, std::vector<int>{1}).ok());
  EXPECT_EQ(c.groups(), 2);
  EXPECT_EQ(c.players(), 4);
}

TEST(DealGroupComparisons, FitIsTheSameAsFromTheMatchesWithPlayersRenumbered) {
  Rng rng(99);
  std::vector<RatedMatch> ms = Simulate({-100, 0, 60, 40}, 40, rng);
  RatingOptions o;
  o.bootstrap = 200;
  auto direct = FitRatings(4, ms, o);
  ASSERT_TRUE(direct.ok());
  // The same matches added in reverse order, player p added as 3 - p.
  DealGroupComparisons c;
  for (auto it = ms.rbegin(); it != ms.rend(); ++it) {
    std::vector<int> renamed;
    for (int p : it->seat_players) renamed.push_back(3 - p);
    ASSERT_TRUE(c.Add(it->deal_group, renamed, it->placements).ok());
  }
  const std::vector<int> player_of = {3, 2, 1, 0};
  auto grouped = FitRatings(4, c, player_of, o);
  ASSERT_TRUE(grouped.ok());
  EXPECT_EQ(grouped->elo, direct->elo);
  EXPECT_EQ(grouped->low, direct->low);
  EXPECT_EQ(grouped->high, direct->high);
  EXPECT_EQ(grouped->los, direct->los);
  EXPECT_EQ(grouped->comparisons, direct->comparisons);
  EXPECT_EQ(grouped->deal_groups, 40);
  // A player mapped out of range is named.
  auto bad = FitRatings(3, c, player_of, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("player 3"), std::string::npos);
}

}  // namespace
}  // namespace arena
