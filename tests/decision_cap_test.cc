// The decision cap in all four games, through the runner and the verifier:
// a match capped at any small step count ends with decisions == cap (or
// normally, if the capping step ended the game), its record re-simulates,
// and a record that disagrees with its cap is refused. The rules of what
// happens at the cap are pinned per game in the rules tests (QuasenboRulings
// .AtTheCap*, PestenRulings.*AtTheCap*, QuodlibetCap.*, QuabbleCap.*).
#include <string>
#include <vector>

#include "arena/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

struct GameSeats {
  const char* game;
  int seats;
};
const GameSeats kGames[] = {
    {"quasenbo", 3}, {"pesten", 3}, {"quodlibet", 4}, {"quabble", 4}};

MatchSpec Spec(const char* game, uint64_t seed, int64_t cap) {
  MatchSpec spec;
  spec.match_id = std::string(game) + "-" + std::to_string(seed);
  spec.game_name = game;
  spec.seed = seed;
  spec.decision_cap = cap;
  spec.auto_moves = seed % 2 ? v1::AUTO_MOVES_SINGLE : v1::AUTO_MOVES_NONE;
  return spec;
}

TEST(DecisionCap, CappedMatchesOfEveryGameEndAtTheCapAndVerify) {
  for (const GameSeats& g : kGames) {
    auto game = CreateGame(g.game, {}, g.seats);
    ASSERT_TRUE(game.ok()) << game.status();
    int capped = 0;
    for (int64_t cap : {1, 2, 3, 4, 5, 7, 9, 12, 17, 25, 40, 60}) {
      for (uint64_t seed = 1; seed <= 25; ++seed) {
        auto m = testing::PlayLocal(**game, Spec(g.game, seed * 31 + cap, cap),
                                    testing::RandomPolicy(seed));
        const v1::MatchResult& r = m.outcome.result;
        auto lines = testing::ParseOrFail(m.record_lines);
        if (r.end_reason() == v1::END_REASON_DECISION_CAP) {
          ++capped;
          ASSERT_EQ(r.decisions(), cap) << g.game;
          // The last decision in the record is the capping step.
          int last = -1;
          for (const auto& l : lines) {
            if (l.has_decision()) last = l.decision().step();
          }
          ASSERT_EQ(last, cap - 1) << g.game;
        } else {
          ASSERT_EQ(r.end_reason(), v1::END_REASON_NORMAL) << g.game;
          ASSERT_LE(r.decisions(), cap) << g.game;
        }
        absl::Status st = VerifyRecord(lines, "t");
        ASSERT_TRUE(st.ok()) << g.game << " cap " << cap << ": " << st;
      }
    }
    EXPECT_GT(capped, 250) << g.game;  // of 300
  }
}

TEST(DecisionCap, RecordsThatDisagreeWithTheirCapAreRefused) {
  for (const GameSeats& g : kGames) {
    auto game = CreateGame(g.game, {}, g.seats);
    ASSERT_TRUE(game.ok()) << game.status();
    int tried = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const int64_t cap = 3 + seed % 5;
      auto m = testing::PlayLocal(**game, Spec(g.game, seed, cap),
                                  testing::RandomPolicy(seed));
      if (m.outcome.result.end_reason() != v1::END_REASON_DECISION_CAP) continue;
      const auto lines = testing::ParseOrFail(m.record_lines);
      ASSERT_TRUE(VerifyRecord(lines, "t").ok());
      ++tried;
      // A decision after the capping step.
      {
        auto bad = lines;
        v1::RecordLine extra;
        for (const auto& l : lines) {
          if (l.has_decision()) extra = l;
        }
        extra.mutable_decision()->set_step(static_cast<int32_t>(cap));
        bad.insert(bad.end() - 1, extra);
        absl::Status st = VerifyRecord(bad, "t");
        ASSERT_FALSE(st.ok()) << g.game;
        // The state stopped at the cap has no acting seat (main's verifier
        // also says "a decision after the header's decision cap").
        EXPECT_THAT(st.message(), HasSubstr("decision")) << g.game;
      }
      // The header says a smaller cap: the record goes on past it.
      {
        auto bad = lines;
        bad[0].mutable_header()->set_decision_cap(cap - 1);
        EXPECT_FALSE(VerifyRecord(bad, "t").ok()) << g.game;
      }
      // The header says a larger cap: the result comes too early.
      {
        auto bad = lines;
        bad[0].mutable_header()->set_decision_cap(cap + 1);
        EXPECT_FALSE(VerifyRecord(bad, "t").ok()) << g.game;
      }
    }
    EXPECT_GT(tried, 10) << g.game;
  }
}

}  // namespace
}  // namespace arena
