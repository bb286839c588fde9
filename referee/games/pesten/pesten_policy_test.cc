// The heuristic Pesten policy against uniform random players, in process:
// the engine directly, requests built as the referee builds them (the 10's
// simultaneous pass included), fixed seeds, the policy's seat rotated.
#include <cstdio>
#include <memory>
#include <vector>

#include "referee/games/pesten/policy.h"
#include "gtest/gtest.h"
#include "referee/games/pesten/pesten.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace bots {
namespace {

using pesten::PestenState;

struct Tally {
  double wins = 0;  // placement 1 counts 1 (shared among the seats placed 1)
  int matches = 0;
  int capped = 0;
  double rate() const { return matches ? wins / matches : 0; }
};

// Plays `matches` matches with the policy at one seat (rotating) and random
// players elsewhere; returns the policy's share of wins.
Tally PlayMatches(const Options& options, int seats, int matches,
                  uint64_t seed) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      pesten::CreatePesten(options, seats);
  EXPECT_TRUE(game.ok()) << game.status();
  Tally tally;
  if (!game.ok()) return tally;
  const int64_t cap = (*game)->info().default_decision_cap;
  Rng random_player(seed);
  v1::DecisionRequest request;
  for (int m = 0; m < matches; ++m) {
    const int policy_seat = m % seats;
    std::unique_ptr<State> state =
        (*game)->NewInitialState(DeriveSeed(seed, m));
    v1::Rules rules;
    state->FillRules(&rules);
    int64_t decisions = 0;
    std::vector<int> actions;
    while (!state->IsTerminal() && decisions < cap) {
      actions.clear();
      for (int seat : state->ActingSeats()) {
        const int num = state->NumLegalActions(seat);
        int action;
        if (seat == policy_seat) {
          request.Clear();
          request.set_seat(seat);
          state->FillView(seat, request.mutable_view());
          state->FillLegalActions(seat, request.mutable_legal_actions());
          action = ChoosePestenAction(rules.pesten(), request);
          EXPECT_GE(action, 0);
          EXPECT_LT(action, num);
        } else {
          action = static_cast<int>(
              random_player.Uniform(static_cast<uint32_t>(num)));
        }
        actions.push_back(action);
      }
      state->Apply(actions);
      ++decisions;
    }
    if (!state->IsTerminal()) ++tally.capped;
    const v1::MatchResult result = state->Result();
    if (result.placements(policy_seat) == 1) {
      int firsts = 0;
      for (int p : result.placements()) firsts += p == 1;
      tally.wins += 1.0 / firsts;
    }
    ++tally.matches;
  }
  return tally;
}

TEST(PestenPolicy, BeatsRandomHeadsUp) {
  // 50% would be a coin toss. Measured: 100.0%.
  const Tally t = PlayMatches({}, 2, 1000, 20240601);
  std::printf("policy vs random, 2 seats: %.1f%% of %d matches (%d capped)\n",
              100 * t.rate(), t.matches, t.capped);
  EXPECT_EQ(t.capped, 0);
  EXPECT_GT(t.rate(), 0.97);
}

TEST(PestenPolicy, BeatsThreeRandomPlayers) {
  // A random player's share would be 25%. Measured: 99.8%.
  const Tally t = PlayMatches({}, 4, 1000, 99);
  std::printf("policy vs 3 random, 4 seats: %.1f%% of %d matches (%d capped)\n",
              100 * t.rate(), t.matches, t.capped);
  EXPECT_EQ(t.capped, 0);
  EXPECT_GT(t.rate(), 0.95);
}

TEST(PestenPolicy, BeatsFiveRandomPlayersWithFourJokers) {
  // A random player's share would be 16.7%. Measured: 99.9%.
  const Tally t = PlayMatches({{"jokers", "4"}}, 6, 1000, 6);
  std::printf("policy vs 5 random, 6 seats, 4 Jokers: %.1f%% of %d matches\n",
              100 * t.rate(), t.matches);
  EXPECT_GT(t.rate(), 0.95);
}

v1::DecisionRequest RequestAt(const pesten::PestenGame& game,
                              const PestenState::Position& p,
                              v1::Rules* rules) {
  auto state = PestenState::FromPositionForTest(game, p, 1);
  EXPECT_TRUE(state.ok()) << state.status();
  v1::DecisionRequest request;
  if (!state.ok()) return request;
  (*state)->FillRules(rules);
  request.set_seat(p.current_seat);
  (*state)->FillView(p.current_seat, request.mutable_view());
  (*state)->FillLegalActions(p.current_seat, request.mutable_legal_actions());
  return request;
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
