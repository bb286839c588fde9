// The balanced design (design.h), the adaptive planner (adaptive.h) and the
// schedule checks of plan.h that refuse a config before any bot starts.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "arena/tournament/adaptive.h"
#include "arena/tournament/design.h"
#include "arena/tournament/plan.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

struct Spread {
  int min = 1 << 30, max = -1;
  void Add(int x) { min = std::min(min, x), max = std::max(max, x); }
};

TEST(BalancedDesignTest, EveryEntrantOnceARoundAndPairsMeetAtMostOnce) {
  // 64 entrants at 4 seats: 16 tables a round, 96 meetings; 10 rounds make
  // 960 meetings over 2016 pairs, so no pair needs to meet twice.
  BalancedDesign d(64, 4, /*duplicate=*/true, 7);
  for (int r = 0; r < 10; ++r) {
    auto round = d.NextRound(d.tables_per_round());
    ASSERT_EQ(round.size(), 16u);
    std::set<int> seen;
    for (const auto& t : round) {
      ASSERT_EQ(t.size(), 4u);
      for (int e : t) EXPECT_TRUE(seen.insert(e).second) << "entrant " << e << " twice";
    }
    EXPECT_EQ(seen.size(), 64u);
  }
  Spread meet;
  for (int a = 0; a < 64; ++a) {
    EXPECT_EQ(d.played()[a], 10);
    for (int b = a + 1; b < 64; ++b) meet.Add(d.meetings(a, b));
  }
  EXPECT_EQ(meet.max, 1);
  EXPECT_EQ(meet.min, 0);
}

TEST(BalancedDesignTest, MeetingsStayEvenOverManyRounds) {
  // 16 entrants at 4 seats, 20 rounds: 4 tables x 6 pairs x 20 = 480
  // meetings over 120 pairs, 4 each on average.
  BalancedDesign d(16, 4, /*duplicate=*/true, 11);
  for (int r = 0; r < 20; ++r) d.NextRound(d.tables_per_round());
  Spread meet;
  for (int a = 0; a < 16; ++a) {
    for (int b = a + 1; b < 16; ++b) meet.Add(d.meetings(a, b));
  }
  EXPECT_GE(meet.min, 3);
  EXPECT_LE(meet.max, 5);
}

TEST(BalancedDesignTest, UnevenFieldsStayWithinOneTable) {
  // 31 entrants at 4 seats: 7 tables a round, 3 sit out; after any number
  // of tables every entrant is within one table of every other.
  BalancedDesign d(31, 4, /*duplicate=*/false, 3);
  for (int r = 0; r < 40; ++r) {
    d.NextRound(1 + r % d.tables_per_round());
    const auto [lo, hi] = std::minmax_element(d.played().begin(), d.played().end());
    EXPECT_LE(*hi - *lo, 1) << "after round " << r;
  }
}

TEST(BalancedDesignTest, IndependentDealsEvenOutSeatPositions) {
  // Independent deals: a table is one match at one seating; 9 rounds of 12
  // entrants at 3 seats give each entrant 9 matches, and the order of each
  // table is chosen to even the seat positions. The tables are chosen for
  // the meetings, not the seats, so two entrants of a table may both lack
  // the same seat: within two, not one (duplicate deals are exact).
  BalancedDesign d(12, 3, /*duplicate=*/false, 5);
  std::vector<std::vector<int>> seat(12, std::vector<int>(3, 0));
  int spread = 0;
  for (int r = 0; r < 9; ++r) {
    for (const auto& t : d.NextRound(d.tables_per_round())) {
      for (int s = 0; s < 3; ++s) ++seat[t[s]][s];
    }
  }
  for (int e = 0; e < 12; ++e) {
    const auto [lo, hi] = std::minmax_element(seat[e].begin(), seat[e].end());
    EXPECT_LE(*hi - *lo, 2) << "entrant " << e;
    spread += *hi - *lo;
  }
  EXPECT_LE(spread, 12) << "most entrants within one";
}

TEST(BalancedDesignTest, SameSeedSameTablesOtherSeedOthers) {
  auto tables = [](uint64_t seed) {
    BalancedDesign d(20, 4, true, seed);
    std::vector<std::vector<int>> all;
    for (int r = 0; r < 5; ++r) {
      auto round = d.NextRound(d.tables_per_round());
      all.insert(all.end(), round.begin(), round.end());
    }
    return all;
  };
  EXPECT_EQ(tables(1), tables(1));
  EXPECT_NE(tables(1), tables(2));
}

// A field of known order: entrant e is 60 (e even) Elo apart from e + 1,
// entrant 0 the strongest; matches drawn by Plackett-Luce from `rng`.
void Play(AdaptivePlanner& p, const std::vector<std::vector<int>>& tables,
          const std::vector<double>& elo, Rng& rng) {
  for (const auto& t : tables) {
    std::vector<double> score(t.size());
    for (size_t s = 0; s < t.size(); ++s) {
      const double u = (rng.Next() >> 11) * 0x1.0p-53 + 0x1.0p-54;
      score[s] = elo[t[s]] * std::log(10.0) / 400 - std::log(-std::log(u));
    }
    std::vector<int> place(t.size(), 1);
    for (size_t s = 0; s < t.size(); ++s) {
      for (size_t q = 0; q < t.size(); ++q) place[s] += score[q] > score[s];
    }
    p.Observe(t, place);
  }
}

TEST(AdaptivePlannerTest, NamesTheTopInOrderOnAKnownField) {
  const int n = 16;
  std::vector<double> elo(n);
  for (int e = 0; e < n; ++e) elo[e] = -60.0 * e;
  for (int seats : {2, 4}) {
    AdaptiveOptions o;
    o.top_k = 4;
    AdaptivePlanner p(n, seats, /*duplicate=*/false, 9, o);
    Rng rng(1234 + seats);
    int matches = 0;
    AdaptiveCheck c = p.Check();
    while (!c.met && matches < 100000) {
      auto round = p.NextRound(p.tables_per_round());
      matches += static_cast<int>(round.size());
      Play(p, round, elo, rng);
      c = p.Check();
    }
    ASSERT_TRUE(c.met) << seats << " seats: " << c.Describe({});
    EXPECT_EQ(std::vector<int>(c.order.begin(), c.order.begin() + 4),
              (std::vector<int>{0, 1, 2, 3}))
        << seats << " seats";
    // The comparisons: 1st-2nd, 2nd-3rd, 3rd-4th, and the 4th against all 12 below.
    EXPECT_EQ(c.comparisons.size(), 3u + 12u);
  }
}

TEST(AdaptivePlannerTest, AnEqualFieldIsNeverSeparatedAndNobodyStarves) {
  const int n = 24;
  const std::vector<double> elo(n, 0.0);
  AdaptiveOptions o;
  o.explore_every = 3;
  AdaptivePlanner p(n, 2, false, 4, o);
  Rng rng(99);
  std::vector<int> last(n, -1);
  int separated = 0;
  for (int r = 0; r < 60; ++r) {
    auto round = p.NextRound(p.tables_per_round());
    for (const auto& t : round) {
      for (int e : t) last[e] = r;
    }
    for (int e = 0; e < n; ++e) {
      EXPECT_GT(last[e], r - o.explore_every) << "entrant " << e << " starved at round " << r;
    }
    Play(p, round, elo, rng);
    const AdaptiveCheck c = p.Check();
    separated += c.met;
  }
  EXPECT_EQ(separated, 0);
}

TEST(AdaptivePlannerTest, SameResultsSameRound) {
  auto rounds = [] {
    AdaptivePlanner p(12, 3, true, 17, AdaptiveOptions{});
    Rng rng(5);
    std::vector<double> elo(12);
    for (int e = 0; e < 12; ++e) elo[e] = 25.0 * e;
    std::vector<std::vector<int>> all;
    for (int r = 0; r < 6; ++r) {
      auto round = p.NextRound(p.tables_per_round());
      Play(p, round, elo, rng);
      all.insert(all.end(), round.begin(), round.end());
    }
    return all;
  };
  EXPECT_EQ(rounds(), rounds());
}

v1::TournamentConfig Config(int bots, int seats, int matches, v1::ScheduleKind kind) {
  v1::TournamentConfig c;
  c.set_game("pesten");
  c.set_seats(seats);
  c.set_matches(matches);
  c.set_schedule(kind);
  for (int b = 0; b < bots; ++b) c.add_bots()->set_name("b" + std::to_string(b));
  return c;
}

TEST(CheckScheduleTest, AutoPicksTheCycleOnlyWhenAWholeCycleFits) {
  // 3 bots at 2 seats: 6 seatings.
  EXPECT_EQ(ScheduleKindFor(Config(3, 2, 6, v1::SCHEDULE_KIND_UNSPECIFIED), {}),
            v1::SCHEDULE_KIND_CYCLE);
  EXPECT_EQ(ScheduleKindFor(Config(3, 2, 5, v1::SCHEDULE_KIND_UNSPECIFIED), {}),
            v1::SCHEDULE_KIND_ROUNDS);
  // 64 bots at 4 seats: 15,249,024 seatings.
  EXPECT_EQ(ScheduleKindFor(Config(64, 4, 100000, v1::SCHEDULE_KIND_UNSPECIFIED), {}),
            v1::SCHEDULE_KIND_ROUNDS);
  // Fewer bots than seats: only the cycle seats a bot twice.
  EXPECT_EQ(ScheduleKindFor(Config(2, 4, 1, v1::SCHEDULE_KIND_UNSPECIFIED), {}),
            v1::SCHEDULE_KIND_CYCLE);
}

TEST(CheckScheduleTest, RefusesWhatCannotBePlanned) {
  auto error = [](const v1::TournamentConfig& c) {
    return std::string(CheckSchedule(c, {}).message());
  };
  EXPECT_THAT(error(Config(3, 4, 100, v1::SCHEDULE_KIND_ROUNDS)),
              HasSubstr("at least as many bots as seats"));
  EXPECT_THAT(error(Config(3, 4, 100, v1::SCHEDULE_KIND_ADAPTIVE)),
              HasSubstr("at least as many bots as seats"));
  EXPECT_THAT(error(Config(64, 4, 100, v1::SCHEDULE_KIND_CYCLE)),
              HasSubstr("more than 1000000 seatings"));
  // 64 bots at 4 seats with duplicate deals: 16 tables of 4 rotations.
  EXPECT_THAT(error(Config(64, 4, 63, v1::SCHEDULE_KIND_ADAPTIVE)),
              HasSubstr("below one round"));
  EXPECT_TRUE(CheckSchedule(Config(64, 4, 64, v1::SCHEDULE_KIND_ADAPTIVE), {}).ok());
  // (The adaptive settings' ranges are ValidateConfig's:
  // tests/config_validation_test.cc.)
  v1::TournamentConfig k = Config(8, 2, 1000, v1::SCHEDULE_KIND_ADAPTIVE);
  k.set_shard_count(2);
  EXPECT_THAT(error(k), HasSubstr("unsharded"));
  v1::TournamentConfig g = Config(8, 2, 1000, v1::SCHEDULE_KIND_ROUNDS);
  g.set_gauntlet("b0");
  EXPECT_THAT(error(g), HasSubstr("--gauntlet"));
}

TEST(ScheduleForTest, RoundsCoverTheMatchesWithWholeDealGroups) {
  // 10 bots at 4 seats, duplicate deals: 2 tables a round, 4 rotations each;
  // 30 matches round up to 8 tables (32 matches).
  v1::TournamentConfig c = Config(10, 4, 30, v1::SCHEDULE_KIND_ROUNDS);
  auto s = ScheduleFor(c, {}, 42);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->matches.size(), 32u);
  EXPECT_EQ(s->deal_groups, 8);
  std::vector<int> played(10, 0);
  for (size_t i = 0; i < s->matches.size(); ++i) {
    EXPECT_EQ(s->matches[i].index, static_cast<int>(i));
    EXPECT_EQ(s->matches[i].deal, static_cast<int>(i / 4));
    if (i % 4 == 0) {
      for (int b : s->matches[i].seating) ++played[b];
    }
  }
  // 8 tables x 4 seats = 32 seats over 10 bots: 3 or 4 tables each.
  const auto [lo, hi] = std::minmax_element(played.begin(), played.end());
  EXPECT_EQ(*lo, 3);
  EXPECT_EQ(*hi, 4);
}

}  // namespace
}  // namespace arena
