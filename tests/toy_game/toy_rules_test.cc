// The toy game's rulings (rules.md), each with values worked out by hand,
// its bot's policy, and its messages through a record: packed in the
// protocol's `other` slots, written as {"@type": ...} JSON and read back.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "arena/records/record_tools.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "policy.h"
#include "referee/games/registry.h"
#include "referee/records/json_writer.h"
#include "referee/records/record.h"
#include "tests/test_util.h"
#include "toy.h"

namespace toy {
namespace {

using arena::v1::Event;

ToyGame Game(int seats, int hand_size) { return ToyGame(seats, hand_size); }

ToyEvent Unpack(const Event& e) {
  ToyEvent t;
  EXPECT_TRUE(e.other().UnpackTo(&t)) << e.ShortDebugString();
  return t;
}

ToyView ViewOf(const ToyState& s, int seat) {
  arena::v1::View v;
  s.FillView(seat, &v);
  ToyView t;
  EXPECT_TRUE(v.other().UnpackTo(&t));
  return t;
}

TEST(ToyRules, SeatsAndHandSizeAreChecked) {
  EXPECT_TRUE(arena::CreateGame("toy", {}, 0).ok());  // registered; 2 seats
  EXPECT_TRUE(arena::CreateGame("toy", {{"hand_size", "3"}}, 3).ok());
  EXPECT_FALSE(arena::CreateGame("toy", {}, 4).ok());
  EXPECT_FALSE(arena::CreateGame("toy", {{"hand_size", "5"}}, 2).ok());
  auto too_many = arena::CreateGame("toy", {{"hand_size", "4"}}, 3);  // 12 cards > 10
  ASSERT_FALSE(too_many.ok());
  EXPECT_TRUE(absl::StrContains(too_many.status().message(), "the deck has 10"));
  EXPECT_FALSE(arena::CreateGame("toy", {{"jokers", "true"}}, 2).ok());
}

// Seat 0 is dealt ranks 2, 5, 9 (ids 1, 4, 8); seat 1 ranks 1, 7, 8 (0, 6, 7).
TEST(ToyRules, AWholeMatchByHand) {
  const ToyGame game = Game(2, 3);
  ToyState s(game, 1, {1, 8, 4, 7, 0, 6, 9, 2, 3, 5});
  // The deal: each seat sees its own cards; the other only how many.
  ASSERT_EQ(s.events().size(), 2u);
  const arena::LoggedEvent& deal0 = s.events()[0];
  EXPECT_FALSE(deal0.is_public);
  EXPECT_EQ(deal0.seats_mask, 1u);
  EXPECT_EQ(Unpack(deal0.event).dealt().cards().size(), 3);
  EXPECT_EQ(Unpack(deal0.event).dealt().cards(1), 8);  // as dealt, not sorted
  ASSERT_NE(arena::EventForSeat(deal0, 1), nullptr);
  const ToyEvent told = Unpack(*arena::EventForSeat(deal0, 1));
  EXPECT_EQ(told.dealt().count(), 3);
  EXPECT_TRUE(told.dealt().cards().empty());
  EXPECT_EQ(s.DescribeEvent(deal0.event), "seat 0 is dealt 3 cards: 2, 9, 5");
  EXPECT_EQ(s.DescribeEvent(deal0.redacted), "seat 0 is dealt 3 cards");

  // Both seats decide at once; legal actions are the hand, ascending.
  EXPECT_EQ(s.ActingSeats(), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.NumLegalActions(0), 3);
  EXPECT_EQ(s.ActionLabel(0, 0), "play 2");
  EXPECT_EQ(s.ActionLabel(1, 2), "play 8");
  google::protobuf::RepeatedPtrField<arena::v1::Action> legal;
  s.FillLegalActions(1, &legal);
  ToyAction a;
  ASSERT_TRUE(legal.Get(1).other().UnpackTo(&a));
  EXPECT_EQ(a.card(), 6);
  ToyView v = ViewOf(s, 1);
  EXPECT_EQ(std::vector<int>(v.hand().begin(), v.hand().end()), (std::vector<int>{0, 6, 7}));
  EXPECT_EQ(v.phase(), toy::v1::TOY_PHASE_PLAYING);

  // Round 1: 9 against 8, seat 0 takes it.
  s.Apply({2, 2});
  ASSERT_EQ(s.events().size(), 4u);
  EXPECT_TRUE(s.events()[2].is_public);
  EXPECT_EQ(s.DescribeEvent(s.events()[2].event), "round 1: cards played, by seat: 9, 8");
  EXPECT_EQ(s.DescribeEvent(s.events()[3].event), "round 1: seat 0 takes it with 9");
  EXPECT_EQ(s.events()[3].event.step(), 1);
  // Round 2: 2 against 7, seat 1 takes it.
  s.Apply({0, 1});
  EXPECT_EQ(s.Scores(), (std::vector<int>{1, 1}));
  v = ViewOf(s, 0);
  EXPECT_EQ(v.round(), 2);
  EXPECT_EQ(std::vector<int>(v.hand().begin(), v.hand().end()), (std::vector<int>{4}));
  EXPECT_EQ(std::vector<int>(v.played_cards().begin(), v.played_cards().end()),
            (std::vector<int>{8, 7, 1, 6}));
  // Round 3: the last cards, 5 against 1 (one legal action each).
  EXPECT_EQ(s.NumLegalActions(1), 1);
  s.Apply({0, 0});
  EXPECT_TRUE(s.IsTerminal());
  EXPECT_TRUE(s.ActingSeats().empty());
  EXPECT_EQ(ViewOf(s, 1).phase(), toy::v1::TOY_PHASE_FINISHED);
  const arena::v1::MatchResult r = s.Result();
  EXPECT_EQ(std::vector<double>(r.scores().begin(), r.scores().end()),
            (std::vector<double>{2, 1}));
  EXPECT_EQ(std::vector<int>(r.placements().begin(), r.placements().end()),
            (std::vector<int>{1, 2}));
  EXPECT_TRUE(r.higher_score_wins());
  EXPECT_EQ(r.end_reason(), arena::v1::END_REASON_NORMAL);
  EXPECT_EQ(r.decisions(), 3);
  EXPECT_EQ(r.detail(), "rounds won by seat: 2, 1");
}

TEST(ToyRules, TheDecisionCapStopsAfterItsStep) {
  const ToyGame game = Game(2, 3);
  ToyState s(game, 1, {1, 8, 4, 7, 0, 6, 9, 2, 3, 5});
  s.set_decision_cap(1);
  s.Apply({2, 2});  // the capping step is resolved: seat 0 takes round 1
  EXPECT_EQ(s.events().size(), 4u);
  EXPECT_TRUE(s.ActingSeats().empty());
  EXPECT_FALSE(s.IsTerminal());
  const arena::v1::MatchResult r = s.Result();
  EXPECT_EQ(r.end_reason(), arena::v1::END_REASON_UNSPECIFIED);  // the runner says "cap"
  EXPECT_EQ(r.placements(0), 1);
  EXPECT_EQ(r.detail(), "unfinished; rounds won by seat: 1, 0");
}

TEST(ToyRules, TheSeededDealIsFixedBySeedAndUsesEachCardOnce) {
  const ToyGame game = Game(3, 3);
  ToyState a(game, 42), b(game, 42), c(game, 43);
  std::vector<int> all;
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(a.Hand(s), b.Hand(s));
    EXPECT_TRUE(std::is_sorted(a.Hand(s).begin(), a.Hand(s).end()));
    all.insert(all.end(), a.Hand(s).begin(), a.Hand(s).end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end());
  EXPECT_EQ(all.size(), 9u);
  EXPECT_NE(a.Hand(0), c.Hand(0));
}

// The policy: the lowest sure winner (every higher card seen), else the lowest.
int Choose(std::vector<int> hand, std::vector<int> played) {
  arena::v1::MatchStart m;
  ToyRules rules;
  rules.set_deck_size(10);
  rules.set_hand_size(3);
  m.mutable_rules()->mutable_other()->PackFrom(rules);
  arena::v1::DecisionRequest r;
  ToyView v;
  for (int c : hand) {
    v.add_hand(c);
    ToyAction a;
    a.set_card(c);
    r.add_legal_actions()->mutable_other()->PackFrom(a);
  }
  for (int c : played) v.add_played_cards(c);
  r.mutable_view()->mutable_other()->PackFrom(v);
  return ChooseToyAction(m, r);
}

TEST(ToyPolicy, KeepsSureWinnersForWhenTheyAreNeeded) {
  EXPECT_EQ(Choose({2, 9}, {}), 1);         // 10 is the top card: a sure winner
  EXPECT_EQ(Choose({2, 5}, {}), 0);         // no sure winner: the lowest card
  EXPECT_EQ(Choose({2, 8}, {9}), 1);        // 10 played: 9 is sure now
  EXPECT_EQ(Choose({7, 8, 9}, {}), 0);      // all sure: the lowest of them
  EXPECT_EQ(Choose({3, 6}, {9, 8, 7}), 1);  // 7 sure (8, 9, 10 played)
  EXPECT_EQ(Choose({1}, {}), 0);
  // Another game's request: the first action.
  EXPECT_EQ(ChooseToyAction(arena::v1::MatchStart(), arena::v1::DecisionRequest()), 0);
}

// The `other` slots through a record: written in protobuf's canonical JSON
// for Any, byte for byte as protobuf writes it, read back to the same
// lines, and verified by re-simulation.
TEST(ToyRecord, AnyIsWrittenCanonicallyAndReadBack) {
  auto game = arena::CreateGame("toy", {}, 3);
  ASSERT_TRUE(game.ok());
  arena::MatchSpec spec;
  spec.match_id = "toy-json";
  spec.game_name = "toy";
  spec.seed = 7;
  auto m = arena::testing::PlayLocal(**game, spec, arena::testing::RandomPolicy(7));
  int events = 0;
  for (const std::string& json : m.record_lines) {
    arena::v1::RecordLine back;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &back).ok()) << json;
    std::string again;
    arena::AppendJson(back, &again);
    EXPECT_EQ(again, json);
    std::string lib;
    google::protobuf::util::JsonPrintOptions o;
    o.preserve_proto_field_names = true;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(back, &lib, o).ok());
    if (!back.has_header()) {
      EXPECT_EQ(json, lib);  // (a header's maps are sorted here, not there)
    }
    if (back.has_event()) {
      ++events;
      EXPECT_TRUE(absl::StrContains(json, "\"other\":{\"@type\":"
                                          "\"type.googleapis.com/toy.v1.ToyEvent\","))
          << json;
    }
  }
  EXPECT_EQ(events, 3 + 3 * 2);  // 3 deals, 2 events a round
  const auto lines = arena::testing::ParseOrFail(m.record_lines);
  EXPECT_TRUE(arena::VerifyRecord(lines, "toy-json").ok());
  // An Any with nothing in it is {} as protobuf writes it.
  Event empty;
  empty.mutable_other();
  std::string json;
  arena::AppendJson(empty, &json);
  EXPECT_EQ(json, "{\"other\":{}}");
}

}  // namespace
}  // namespace toy
