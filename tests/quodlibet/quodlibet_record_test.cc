// Quodlibet records: whole parties under both rulesets, and single-contract
// matches, re-simulate exactly from their records; a changed record is
// caught.
#include "arena/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

testing::LocalMatch PlayOne(const Options& o, uint64_t seed,
                            v1::AutoMoves auto_moves = v1::AUTO_MOVES_SINGLE) {
  auto game = CreateGame("quodlibet", o, 4);
  EXPECT_TRUE(game.ok()) << game.status();
  MatchSpec spec;
  spec.match_id = "q" + std::to_string(seed);
  spec.game_name = "quodlibet";
  spec.options = o;
  spec.seed = seed;
  spec.auto_moves = auto_moves;
  return testing::PlayLocal(**game, spec, testing::RandomPolicy(seed * 31));
}

TEST(QuodlibetRecords, WholePartiesReSimulateUnderBothRulesets) {
  int verified = 0;
  for (const char* ruleset : {"badenia", "encyclopedia"}) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      auto m = PlayOne({{"ruleset", ruleset}}, seed * 7919,
                       seed % 2 ? v1::AUTO_MOVES_NONE : v1::AUTO_MOVES_SINGLE);
      EXPECT_EQ(m.outcome.result.end_reason(), v1::END_REASON_NORMAL);
      EXPECT_EQ(m.outcome.result.score_lines_size(), 48 * 4);
      auto lines = testing::ParseOrFail(m.record_lines);
      int scored = 0;
      for (const auto& l : lines) {
        scored += l.has_event() && l.event().event().quodlibet().has_deal_scored();
      }
      EXPECT_EQ(scored, 48);
      absl::Status s = VerifyRecord(lines, "test");
      ASSERT_TRUE(s.ok()) << s;
      ++verified;
    }
  }
  EXPECT_EQ(verified, 16);
}

TEST(QuodlibetRecords, EveryFixedContractReSimulates) {
  int verified = 0;
  for (const char* ruleset : {"badenia", "encyclopedia"}) {
    for (const char* c : {"minus", "alarich", "no_reds", "first_three_and_last",
                          "ober_unter", "plus", "good_hunting", "bad_neighbour",
                          "open_trousers", "quadrature", "snack"}) {
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        auto m = PlayOne({{"ruleset", ruleset}, {"contract", c}}, seed);
        absl::Status s = VerifyRecord(testing::ParseOrFail(m.record_lines), "test");
        ASSERT_TRUE(s.ok()) << ruleset << " " << c << ": " << s;
        ++verified;
      }
    }
  }
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    ASSERT_TRUE(VerifyRecord(testing::ParseOrFail(PlayOne({{"contract", "all_or_nothing"}}, seed)
                                       .record_lines),
                             "t").ok());
    ASSERT_TRUE(VerifyRecord(testing::ParseOrFail(PlayOne({{"contract", "bribe"},
                                            {"ruleset", "encyclopedia"}},
                                           seed).record_lines),
                             "t").ok());
    verified += 2;
  }
  EXPECT_EQ(verified, 120);
}

TEST(QuodlibetRecords, SameSeedAndActionsGiveTheSameRecord) {
  auto a = PlayOne({{"kingdoms", "1"}}, 42);
  auto b = PlayOne({{"kingdoms", "1"}}, 42);
  testing::ExpectSameRecordButWallClock(a.record_lines, b.record_lines);
}

TEST(QuodlibetRecords, ChangedSlotOrderOrActionIsCaught) {
  auto lines = testing::ParseOrFail(PlayOne({{"contract", "open_trousers"}}, 5,
                             v1::AUTO_MOVES_NONE).record_lines);
  ASSERT_TRUE(VerifyRecord(lines, "t").ok());
  // Swap two slots of a hand shown face up to the others.
  auto changed = lines;
  bool done = false;
  for (auto& l : changed) {
    if (!l.has_event()) continue;
    auto* e = l.mutable_event()->mutable_event()->mutable_quodlibet();
    if (e->has_hand_shown() && e->hand_shown().cards_size() > 1) {
      auto* cards = e->mutable_hand_shown()->mutable_cards();
      std::swap(*cards->Mutable(0), *cards->Mutable(1));
      done = true;
      break;
    }
  }
  ASSERT_TRUE(done);
  EXPECT_THAT(VerifyRecord(changed, "t").message(), HasSubstr("event differs"));
  // Another slot played.
  changed = lines;
  for (auto& l : changed) {
    if (l.has_decision() && l.decision().step() == 3) {
      auto* a = l.mutable_decision()->mutable_actions(0);
      a->set_action(a->action() == 0 ? 1 : 0);
      break;
    }
  }
  EXPECT_FALSE(VerifyRecord(changed, "t").ok());
}

TEST(QuodlibetRecords, DecisionCapEndsThePartieByTotals) {
  auto game = CreateGame("quodlibet", {}, 4);
  ASSERT_TRUE(game.ok());
  MatchSpec spec;
  spec.match_id = "capped";
  spec.game_name = "quodlibet";
  spec.seed = 3;
  spec.decision_cap = 200;
  auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(1));
  EXPECT_EQ(m.outcome.result.end_reason(), v1::END_REASON_DECISION_CAP);
  EXPECT_EQ(m.outcome.result.decisions(), 200);
  EXPECT_GT(m.outcome.result.score_lines_size(), 0);
  EXPECT_TRUE(VerifyRecord(testing::ParseOrFail(m.record_lines), "t").ok());
}

}  // namespace
}  // namespace arena
