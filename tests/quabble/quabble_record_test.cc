// Quabble records re-simulate exactly from the record alone, with 2 to 6
// seats, with the shipped asset list and with one loaded from a file; a record
// whose asset file changed afterwards is refused.
#include <unistd.h>

#include <fstream>

#include "arena/record_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/record.h"
#include "tests/test_util.h"

namespace arena {
namespace {

using ::testing::HasSubstr;

MatchSpec Spec(uint64_t seed, Options o = {}) {
  MatchSpec spec;
  spec.match_id = "q" + std::to_string(seed);
  spec.game_name = "quabble";
  spec.options = std::move(o);
  spec.seed = seed;
  return spec;
}

TEST(QuabbleRecords, ReSimulateExactlyOverManySeeds) {
  int verified = 0;
  for (int seats = 2; seats <= 6; ++seats) {
    auto game = CreateGame("quabble", {}, seats);
    ASSERT_TRUE(game.ok()) << game.status();
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      MatchSpec spec = Spec(seed * 7919 + seats);
      spec.auto_moves = seed % 2 ? v1::AUTO_MOVES_SINGLE : v1::AUTO_MOVES_NONE;
      auto m = testing::PlayLocal(**game, spec, testing::RandomPolicy(seed));
      ASSERT_EQ(m.outcome.result.end_reason(), v1::END_REASON_NORMAL);
      // Every seat's score is explained line by line.
      std::vector<double> sum(seats, 0);
      for (const auto& l : m.outcome.result.score_lines()) sum[l.seat()] += l.points();
      for (int s = 0; s < seats; ++s) {
        ASSERT_DOUBLE_EQ(sum[s], m.outcome.result.scores(s));
      }
      absl::Status st = VerifyRecord(testing::ParseOrFail(m.record_lines), "test");
      ASSERT_TRUE(st.ok()) << st;
      ++verified;
    }
  }
  EXPECT_EQ(verified, 1000);
}

TEST(QuabbleRecords, SameSeedAndActionsGiveTheSameRecord) {
  auto game = CreateGame("quabble", {}, 5);
  ASSERT_TRUE(game.ok());
  auto a = testing::PlayLocal(**game, Spec(42), testing::RandomPolicy(9));
  auto b = testing::PlayLocal(**game, Spec(42), testing::RandomPolicy(9));
  testing::ExpectSameRecordButWallClock(a.record_lines, b.record_lines);
}

TEST(QuabbleRecords, ScoreLinesAreInTheRecordedResult) {
  auto game = CreateGame("quabble", {}, 3);
  ASSERT_TRUE(game.ok());
  auto m = testing::PlayLocal(**game, Spec(7), testing::RandomPolicy(7));
  auto lines = testing::ParseOrFail(m.record_lines);
  ASSERT_TRUE(lines.back().has_result());
  EXPECT_GT(lines.back().result().score_lines_size(), 3);
  EXPECT_TRUE(lines.back().result().higher_score_wins());
}

TEST(QuabbleRecords, DecisionCapAndForfeitRecordsVerify) {
  auto game = CreateGame("quabble", {}, 4);
  ASSERT_TRUE(game.ok());
  MatchSpec spec = Spec(11);
  spec.decision_cap = 9;
  auto capped = testing::PlayLocal(**game, spec, testing::RandomPolicy(1));
  EXPECT_EQ(capped.outcome.result.end_reason(), v1::END_REASON_DECISION_CAP);
  EXPECT_TRUE(VerifyRecord(testing::ParseOrFail(capped.record_lines), "t").ok());

  // Seat 2 answers a claim with an illegal index.
  auto bad = [](int seat, const v1::MatchStart&, const v1::DecisionRequest& r) {
    return seat == 2 && r.view().quabble().phase() == v1::QUABBLE_PHASE_CLAIM
               ? 7
               : 0;
  };
  spec = Spec(12);
  auto forfeit = testing::PlayLocal(**game, spec, bad);
  EXPECT_EQ(forfeit.outcome.result.end_reason(), v1::END_REASON_FORFEIT);
  EXPECT_EQ(forfeit.outcome.result.forfeit_seat(), 2);
  EXPECT_EQ(forfeit.outcome.result.placements(2), 4);
  EXPECT_TRUE(VerifyRecord(testing::ParseOrFail(forfeit.record_lines), "t").ok());
}

TEST(QuabbleRecords, AssetFileMatchesVerifyAndAChangedFileIsCaught) {
  const std::string path = ::testing::TempDir() + "/quabble-rec-" +
                           std::to_string(::getpid()) + ".textproto";
  const std::string list =
      "assets { name: \"Pigs\" count: 20 value: 1 power: "
      "QUABBLE_POWER_SET_SQUARE }\n"
      "assets { name: \"Snatchers\" count: 10 value: 2 power: "
      "QUABBLE_POWER_SNATCH }\n"
      "assets { name: \"Turns\" count: 6 value: 1 power: "
      "QUABBLE_POWER_MISDIRECTION }\n";
  std::ofstream(path) << list;
  Options o{{"assets", path}};
  auto game = CreateGame("quabble", o, 3);
  ASSERT_TRUE(game.ok()) << game.status();
  auto m = testing::PlayLocal(**game, Spec(5, o), testing::RandomPolicy(5));
  auto lines = testing::ParseOrFail(m.record_lines);
  ASSERT_TRUE(VerifyRecord(lines, "t").ok());
  // 36 cards, 3 seats: 5 rounds + 7 with draws.
  int rounds = 0;
  for (const auto& l : lines) {
    if (l.has_event() && l.event().event().quabble().has_round_start()) ++rounds;
  }
  EXPECT_EQ(rounds, 12);

  // The organiser edits the file afterwards: the record no longer matches.
  std::ofstream(path) << "# edited\n" << list << "assets { name: \"More\" count: 1 "
                      << "power: QUABBLE_POWER_NONE }\n";
  absl::Status s = VerifyRecord(lines, "t");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("event differs"));
  EXPECT_THAT(s.message(), HasSubstr("asset_list_fingerprint"));
}

}  // namespace
}  // namespace arena
