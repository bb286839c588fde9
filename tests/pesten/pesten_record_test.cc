// Pesten records: every match re-simulates from its record alone, exactly,
// over many seeds and every seat and Joker count (rounds, 10's passes,
// reshuffles, capped matches included); the same seed and actions give the
// same record; and a record whose passed card was changed is refused.
#include <string>
#include <vector>

#include "arena/record_tools.h"
#include "bots/pesten/policy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

MatchSpec Spec(uint64_t seed, Options o) {
  MatchSpec spec;
  spec.match_id = "pesten-" + std::to_string(seed);
  spec.game_name = "pesten";
  spec.options = std::move(o);
  spec.seed = seed;
  return spec;
}

// The heuristic policy on odd seats, uniform random on even ones.
LocalSeatLink::Policy Mixed(uint64_t seed) {
  auto random = testing::RandomPolicy(seed);
  return [random](int seat, const v1::MatchStart& start,
                  const v1::DecisionRequest& r) {
    if (seat % 2 == 0) return random(seat, start, r);
    return bots::ChoosePestenAction(start.rules().pesten(), r);
  };
}

TEST(PestenRecords, ReSimulateExactlyOverManySeeds) {
  int verified = 0, finished = 0, passes = 0, rounds = 0;
  for (int seats = 2; seats <= 6; ++seats) {
    for (int jokers : {0, 2, 4}) {
      Options o{{"jokers", std::to_string(jokers)}};
      auto game = CreateGame("pesten", o, seats);
      ASSERT_TRUE(game.ok()) << game.status();
      for (uint64_t seed = 1; seed <= 14; ++seed) {
        MatchSpec spec = Spec(seed * 7919 + seats * 10 + jokers, o);
        // Every third match all random, capped: a capped record verifies too.
        const bool all_random = seed % 3 == 0;
        if (all_random) spec.decision_cap = 1500;
        spec.auto_moves = seed % 2 ? v1::AUTO_MOVES_SINGLE : v1::AUTO_MOVES_NONE;
        auto m = testing::PlayLocal(
            **game, spec,
            all_random ? testing::RandomPolicy(seed) : Mixed(seed));
        auto lines = testing::ParseOrFail(m.record_lines);
        absl::Status s = VerifyRecord(lines, "test");
        ASSERT_TRUE(s.ok()) << s;
        ++verified;
        finished += m.outcome.result.end_reason() == v1::END_REASON_NORMAL;
        for (const auto& l : lines) {
          if (!l.has_event()) continue;
          passes += l.event().event().pesten().has_card_passed();
          rounds += l.event().event().pesten().has_round_won();
        }
      }
    }
  }
  std::printf("%d records verified (%d finished, %d rounds won, %d passes)\n",
              verified, finished, rounds, passes);
  EXPECT_EQ(verified, 210);
  EXPECT_GT(finished, 100);
  EXPECT_GT(passes, 0);
}

TEST(PestenRecords, SameSeedAndActionsGiveTheSameRecord) {
  auto game = CreateGame("pesten", {}, 4);
  ASSERT_TRUE(game.ok());
  auto a = testing::PlayLocal(**game, Spec(42, {}), Mixed(9));
  auto b = testing::PlayLocal(**game, Spec(42, {}), Mixed(9));
  testing::ExpectSameRecordButWallClock(a.record_lines, b.record_lines);
}

TEST(PestenRecords, AChangedPassedCardIsRefused) {
  auto game = CreateGame("pesten", {}, 3);
  ASSERT_TRUE(game.ok());
  // Find a match with a 10's pass, then change the card of its first pass.
  for (uint64_t seed = 1; seed < 200; ++seed) {
    auto m = testing::PlayLocal(**game, Spec(seed, {}), Mixed(seed));
    auto lines = testing::ParseOrFail(m.record_lines);
    for (auto& l : lines) {
      if (!l.has_event() || !l.event().event().pesten().has_card_passed()) {
        continue;
      }
      auto* passed =
          l.mutable_event()->mutable_event()->mutable_pesten()->mutable_card_passed();
      passed->set_card((passed->card() + 1) % 54);
      absl::Status s = VerifyRecord(lines, "test");
      ASSERT_FALSE(s.ok());
      EXPECT_THAT(std::string(s.message()), HasSubstr("event differs"));
      return;
    }
  }
  FAIL() << "no match with a 10's pass in 200 seeds";
}

}  // namespace
}  // namespace arena
