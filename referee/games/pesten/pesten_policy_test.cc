// The heuristic Pesten policy against uniform random players, in process:
// the engine directly, requests built as the referee builds them (the 10's
// simultaneous pass included), fixed seeds, the policy's seat rotated.
#include <memory>

#include "gtest/gtest.h"
#include "referee/games/pesten/pesten.h"
#include "referee/games/pesten/policy.h"
#include "tests/policy_vs_random.h"

namespace arena {
namespace bots {
namespace {

using pesten::PestenState;
using testing::PolicyTally;

// Plays `matches` matches with the policy at one seat (rotating) and random
// players elsewhere, each to its end or the game's decision cap.
PolicyTally PlayMatches(const Options& options, int seats, int matches,
                        uint64_t seed) {
  return testing::PlayPolicyAgainstRandom(pesten::CreatePesten(options, seats),
                                          ChoosePestenAction, matches, seed);
}

TEST(PestenPolicy, BeatsRandomHeadsUp) {
  // 50% would be a coin toss. Measured: 100.0%.
  const PolicyTally t = PlayMatches({}, 2, 1000, 20240601);
  EXPECT_EQ(t.capped, 0);
  EXPECT_GT(t.rate(), 0.97);
}

TEST(PestenPolicy, BeatsThreeRandomPlayers) {
  // A random player's share would be 25%. Measured: 99.8%.
  const PolicyTally t = PlayMatches({}, 4, 1000, 99);
  EXPECT_EQ(t.capped, 0);
  EXPECT_GT(t.rate(), 0.95);
}

TEST(PestenPolicy, BeatsFiveRandomPlayersWithFourJokers) {
  // A random player's share would be 16.7%. Measured: 99.9%.
  const PolicyTally t = PlayMatches({{"jokers", "4"}}, 6, 1000, 6);
  EXPECT_GT(t.rate(), 0.95);
}

v1::DecisionRequest RequestAt(const pesten::PestenGame& game,
                              const PestenState::Position& p,
                              v1::Rules* rules) {
  auto state = PestenState::FromPositionForTest(game, p, 1);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return {};
  (*state)->FillRules(rules);
  return testing::RequestFor(**state, p.current_seat);
}

TEST(PestenPolicy, SaysPestenWhenOneCardIsLeft) {
  auto game = pesten::PestenGame::Create({}, 2);
  ASSERT_TRUE(game.ok());
  PestenState::Position p;
  // 5 of Hearts (29) and 9 of Clubs (7) on the 4 of Hearts (28).
  p.hands = {{29, 7}, {40, 14}};
  p.pile = {28};
  p.deck = {36};
  v1::Rules rules;
  const v1::DecisionRequest r = RequestAt(**game, p, &rules);
  ASSERT_EQ(r.legal_actions_size(), 3);  // 5H, 5H + "Pesten", draw
  EXPECT_EQ(ChoosePestenAction(rules.pesten(), r), 1);
}

TEST(PestenPolicy, StacksATwoRatherThanTakingTheObligation) {
  auto game = pesten::PestenGame::Create({}, 3);
  ASSERT_TRUE(game.ok());
  PestenState::Position p;
  // Under a Joker's 5: the 2 of Hearts (26) stacks; 5C (3) and QS (49) not.
  p.hands = {{14, 15}, {26, 3, 49}, {40, 41}};
  p.pile = {52};
  p.obligation = 5;
  p.current_seat = 1;
  p.deck = {36, 10};
  v1::Rules rules;
  const v1::DecisionRequest r = RequestAt(**game, p, &rules);
  ASSERT_EQ(r.legal_actions_size(), 2);
  EXPECT_EQ(ChoosePestenAction(rules.pesten(), r), 0);
}

TEST(PestenPolicy, GoesOutWithAPlainLastCard) {
  auto game = pesten::PestenGame::Create({}, 2);
  ASSERT_TRUE(game.ok());
  PestenState::Position p;
  p.hands = {{36}, {40, 14}};  // Queen of Hearts on the 9 of Hearts (33)
  p.pile = {33};
  p.deck = {10};
  v1::Rules rules;
  const v1::DecisionRequest r = RequestAt(**game, p, &rules);
  ASSERT_EQ(r.legal_actions_size(), 2);
  EXPECT_EQ(ChoosePestenAction(rules.pesten(), r), 0);
}

}  // namespace
}  // namespace bots
}  // namespace arena
