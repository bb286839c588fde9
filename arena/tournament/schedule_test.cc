// The round-robin cycle (schedule.h): every bot meets every other equally at
// every position, rotations, duplicate deals in whole groups, gauntlets.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "arena/tournament/schedule.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace arena {
namespace {

using ::testing::ElementsAre;

// Every bot at every position equally often; every ordered pair of bots at
// every ordered pair of positions equally often.
void ExpectBalanced(int bots, int seats, size_t expected_count) {
  auto a = Arrangements(bots, seats);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), expected_count);
  std::map<std::pair<int, int>, int> at;
  std::map<std::tuple<int, int, int, int>, int> pairs;
  for (const auto& t : *a) {
    for (int p = 0; p < seats; ++p) {
      ++at[{t[p], p}];
      for (int q = 0; q < seats; ++q) {
        if (p != q) ++pairs[{t[p], p, t[q], q}];
      }
    }
  }
  std::set<int> counts;
  for (auto& [k, n] : at) counts.insert(n);
  EXPECT_EQ(counts.size(), 1u) << bots << " bots, " << seats << " seats";
  EXPECT_EQ(at.size(), static_cast<size_t>(bots * seats));
  std::set<int> pair_counts;
  for (int x = 0; x < bots; ++x)
    for (int y = 0; y < bots; ++y)
      if (x != y)
        for (int p = 0; p < seats; ++p)
          for (int q = 0; q < seats; ++q)
            if (p != q) pair_counts.insert(pairs[{x, p, y, q}]);
  EXPECT_EQ(pair_counts.size(), 1u);
}

TEST(Schedule, EveryBotMeetsEveryOtherEquallyAtEveryPosition) {
  ExpectBalanced(3, 2, 6);    // 3 * 2
  ExpectBalanced(2, 2, 2);
  ExpectBalanced(4, 3, 24);   // 4 * 3 * 2
  ExpectBalanced(2, 4, 14);   // 2^4 - 2: both bots in every match
  ExpectBalanced(3, 4, 36);   // 3^4 - 3 * 2^4 + 3: all three in every match
  ExpectBalanced(3, 5, 150);
}

TEST(Schedule, AFewBotsFillSeveralSeats) {
  auto a = Arrangements(2, 3);
  ASSERT_TRUE(a.ok());
  for (const auto& t : *a) {
    EXPECT_EQ(std::set<int>(t.begin(), t.end()).size(), 2u);
  }
  auto one = Arrangements(1, 3);
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(*one, ElementsAre(ElementsAre(0, 0, 0)));
}

TEST(Schedule, RotationsOfASeating) {
  EXPECT_THAT(DistinctRotations({0, 1, 2}),
              ElementsAre(ElementsAre(0, 1, 2), ElementsAre(1, 2, 0), ElementsAre(2, 0, 1)));
  // 0101 has only two distinct rotations; 0000 one.
  EXPECT_THAT(DistinctRotations({0, 1, 0, 1}),
              ElementsAre(ElementsAre(0, 1, 0, 1), ElementsAre(1, 0, 1, 0)));
  EXPECT_EQ(DistinctRotations({0, 0, 0}).size(), 1u);
}

TEST(Schedule, DuplicateDealsAreWholeRotationGroups) {
  // 3 bots, 2 seats: 6 arrangements in 3 rotation classes {01,10}, {02,20},
  // {12,21}; 7 matches round up to 4 groups of 2.
  auto a = Arrangements(3, 2);
  ASSERT_TRUE(a.ok());
  Schedule s = PlanSchedule(*a, 7, true);
  ASSERT_EQ(s.matches.size(), 8u);
  EXPECT_EQ(s.deal_groups, 4);
  EXPECT_EQ(s.cycle, 6);
  EXPECT_FALSE(s.balanced);
  std::vector<int> deals;
  for (const auto& m : s.matches) deals.push_back(m.deal);
  EXPECT_THAT(deals, ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(s.matches[0].seating, ElementsAre(0, 1));
  EXPECT_THAT(s.matches[1].seating, ElementsAre(1, 0));
  EXPECT_THAT(s.matches[2].seating, ElementsAre(0, 2));
  EXPECT_THAT(s.matches[6].seating, ElementsAre(0, 1));  // the cycle again
  EXPECT_TRUE(PlanSchedule(*a, 6, true).balanced);
  // Independent deals: a deal per match, arrangement i mod 6.
  Schedule ind = PlanSchedule(*a, 7, false);
  ASSERT_EQ(ind.matches.size(), 7u);
  EXPECT_EQ(ind.matches[6].deal, 6);
  EXPECT_THAT(ind.matches[6].seating, ElementsAre(0, 1));
  // 2 bots, 4 seats: classes of 4, 4, 2 and 4 rotations (0001, 0011, 0101,
  // 0111): one cycle is all 14 arrangements.
  auto b = Arrangements(2, 4);
  ASSERT_TRUE(b.ok());
  Schedule four = PlanSchedule(*b, 14, true);
  EXPECT_EQ(four.matches.size(), 14u);
  EXPECT_EQ(four.deal_groups, 4);
  EXPECT_TRUE(four.balanced);
}

TEST(Schedule, GauntletPairsTheHeroWithEachOther) {
  auto g = GauntletArrangements(3, 2, 1);
  ASSERT_TRUE(g.ok());
  EXPECT_THAT(*g, ElementsAre(ElementsAre(1, 0), ElementsAre(0, 1), ElementsAre(1, 2),
                              ElementsAre(2, 1)));
  auto g3 = GauntletArrangements(3, 3, 0);
  ASSERT_TRUE(g3.ok());
  EXPECT_EQ(g3->size(), 12u);  // 2 opponents x (2^3 - 2)
  for (const auto& t : *g3) {
    EXPECT_EQ(std::count(t.begin(), t.end(), 0) > 0, true);
    EXPECT_FALSE(std::count(t.begin(), t.end(), 1) > 0 && std::count(t.begin(), t.end(), 2) > 0);
  }
  EXPECT_FALSE(GauntletArrangements(3, 2, 5).ok());
  EXPECT_FALSE(GauntletArrangements(1, 2, 0).ok());
}

}  // namespace
}  // namespace arena
