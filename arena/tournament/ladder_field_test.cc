// A ladder's field (arena/tournament/ladder_field.h): versions and their
// priors, matchmaking's order and fairness, the leaderboard.
#include "arena/tournament/ladder_field.h"

#include <cmath>
#include <map>
#include <set>

#include "gtest/gtest.h"

namespace arena {
namespace {

// A new entrant starts at 25 +- 25/3; its next version at its last mean,
// its uncertainty raised in quadrature by new_version_sigma (never above a
// new entrant's); the older version leaves the field, its record stays.
TEST(LadderField, ANewVersionStartsFromItsEntrantsLastMean) {
  LadderFieldOptions o;
  o.new_version_sigma = 3;
  LadderField field(o);
  const int a1 = field.Submit(0);
  const int b = field.Submit(1);
  EXPECT_EQ(field.versions()[a1].rating.mu, 25);
  EXPECT_NEAR(field.versions()[a1].rating.sigma, 25.0 / 3, 1e-12);
  field.Record({a1, b}, {1, 2});  // a1: 27.6352 +- 8.0655 (online_ratings_test)
  const int a2 = field.Submit(0);
  const auto& v = field.versions();
  EXPECT_FALSE(v[a1].active);
  EXPECT_TRUE(v[a2].active);
  EXPECT_EQ(v[a2].number, 2);
  EXPECT_NEAR(v[a2].rating.mu, 27.635231, 1e-5);
  // hypot(8.065506, 3) = 8.605362, above 25/3: capped.
  EXPECT_NEAR(v[a2].rating.sigma, 25.0 / 3, 1e-12);
  EXPECT_EQ(field.ActiveVersion(0), a2);
  EXPECT_EQ(field.Leaderboard(), (std::vector<int>{a2, b}));
  field.Withdraw(1);
  EXPECT_EQ(field.ActiveVersion(1), -1);
  EXPECT_EQ(field.Leaderboard(), (std::vector<int>{a2}));
  // a2 refused: a1 plays again, as it stood; the next version is the 3rd.
  field.Reinstate(0, a1);
  EXPECT_TRUE(field.versions()[a1].active);
  EXPECT_FALSE(field.versions()[a2].active);
  EXPECT_EQ(field.ActiveVersion(0), a1);
  EXPECT_NEAR(field.versions()[a1].rating.mu, 27.635231, 1e-5);
  EXPECT_EQ(field.Leaderboard(), (std::vector<int>{a1}));
  EXPECT_EQ(field.versions()[field.Submit(0)].number, 3);
}

TEST(LadderField, AnUnsureVersionsRaisedSigmaIsKeptBelowANewEntrants) {
  LadderFieldOptions o;
  o.new_version_sigma = 2;
  LadderField field(o);
  const int a = field.Submit(0);
  const int b = field.Submit(1);
  for (int i = 0; i < 40; ++i) field.Record({a, b}, {i % 3 == 0 ? 2 : 1, i % 3 == 0 ? 1 : 2});
  const double sigma = field.versions()[a].rating.sigma;
  ASSERT_LT(sigma, 4);
  const int a2 = field.Submit(0);
  EXPECT_NEAR(field.versions()[a2].rating.sigma, std::hypot(sigma, 2.0), 1e-12);
}

// Each batch seats every version at one table at most; versions still
// placing anchor the first tables, each against an established version
// (not against the other newcomer, whose mean is as near).
TEST(LadderField, PlacementFirstAgainstEstablishedOpponents) {
  LadderFieldOptions o;
  o.seats = 2;
  o.placement_matches = 5;
  LadderField field(o);
  Rng rng(7);
  // 10 established versions: pairs that split 200 matches each.
  std::vector<int> old;
  for (int e = 0; e < 10; ++e) old.push_back(field.Submit(e));
  for (int round = 0; round < 100; ++round) {
    for (int e = 0; e + 1 < 10; e += 2) {
      field.Record({old[e], old[e + 1]}, {1, 2});
      field.Record({old[e], old[e + 1]}, {2, 1});
    }
  }
  for (int v : old) ASSERT_LT(field.versions()[v].rating.sigma, 2.5) << "version " << v;
  const int n1 = field.Submit(10);
  const int n2 = field.Submit(11);
  for (int batch = 0; batch < 5; ++batch) {
    const auto tables = field.NextBatch(4, rng);
    ASSERT_EQ(tables.size(), 4u);
    std::set<int> seen;
    for (const auto& t : tables) {
      ASSERT_EQ(t.size(), 2u);
      for (int v : t) EXPECT_TRUE(seen.insert(v).second) << "version " << v << " twice";
    }
    for (int k = 0; k < 2; ++k) {
      const auto& t = tables[k];
      const bool n1_in = t[0] == n1 || t[1] == n1, n2_in = t[0] == n2 || t[1] == n2;
      EXPECT_TRUE(n1_in != n2_in) << "batch " << batch << ", table " << k
                                  << ": not one newcomer against an established version";
    }
    for (const auto& t : tables) field.Record(t, {1, 2});
  }
  EXPECT_EQ(field.versions()[n1].matches, 5);
  EXPECT_EQ(field.versions()[n2].matches, 5);
  // Placed, they no longer come first: the batch after is by uncertainty,
  // and theirs is still the highest.
  const auto next = field.NextBatch(1, rng);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_TRUE(next[0][0] == n1 || next[0][1] == n1 || next[0][0] == n2 || next[0][1] == n2);
}

// No version waits more than starve_after batches while others play, even
// when every other version is more uncertain.
TEST(LadderField, NoVersionStarves) {
  LadderFieldOptions o;
  o.seats = 4;
  o.placement_matches = 0;
  o.starve_after = 3;
  LadderField field(o);
  Rng rng(11);
  for (int e = 0; e < 20; ++e) field.Submit(e);
  std::vector<int> last(20, -1);
  for (int batch = 0; batch < 60; ++batch) {
    for (const auto& t : field.NextBatch(2, rng)) {  // 8 of 20 play a batch
      for (int v : t) {
        EXPECT_LE(batch - last[v], o.starve_after + 2) << "version " << v;
        last[v] = batch;
      }
      field.Record(t, {1, 2, 3, 4});
    }
  }
  for (int v = 0; v < 20; ++v) EXPECT_GE(last[v], 60 - o.starve_after - 3) << "version " << v;
}

// A field too small for the batch's tables fills it in passes, each version
// at one table a pass, placement first in every pass: the newcomer anchors
// each table, against the established versions in turn.
TEST(LadderField, ASmallFieldFillsItsBatchInPasses) {
  LadderFieldOptions o;
  o.seats = 2;
  LadderField field(o);
  Rng rng(3);
  const int a = field.Submit(0);
  const int b = field.Submit(1);
  for (int i = 0; i < 40; ++i) field.Record({a, b}, {1 + i % 2, 2 - i % 2});
  const int n = field.Submit(2);
  EXPECT_EQ(field.NextBatch(4, rng).size(), 1u);  // one table a version
  const auto tables = field.NextBatch(4, rng, 4);
  ASSERT_EQ(tables.size(), 4u);
  std::map<int, int> at;
  for (const auto& t : tables) {
    ASSERT_EQ(t.size(), 2u);
    EXPECT_NE(t[0], t[1]);
    EXPECT_TRUE(t[0] == n || t[1] == n) << "a table without the newcomer";
    for (int v : t) ++at[v];
  }
  EXPECT_EQ(at[n], 4);
  EXPECT_EQ(at[a] + at[b], 4);
  EXPECT_EQ(field.NextBatch(3, rng, 2).size(), 2u);  // at most 2 a version
}

TEST(LadderField, TooFewVersionsMakeNoTable) {
  LadderFieldOptions o;
  o.seats = 3;
  LadderField field(o);
  Rng rng(1);
  field.Submit(0);
  field.Submit(1);
  EXPECT_TRUE(field.NextBatch(4, rng).empty());
  field.Submit(2);
  EXPECT_EQ(field.NextBatch(4, rng).size(), 1u);
  EXPECT_EQ(field.Submit(-1), -1);
  field.Record({0, 99}, {1, 2});  // an unknown version: nothing moves
  EXPECT_EQ(field.versions()[0].matches, 0);
}

}  // namespace
}  // namespace arena
