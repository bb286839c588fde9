// The heuristic Quäsenbö policy against a uniform random player, in process:
// the engine directly, requests built as the referee builds them, fixed
// seeds, seats alternated (2 seats) or rotated (4 seats).
#include <cstdio>
#include <memory>
#include <vector>

#include "referee/games/quasenbo/policy.h"
#include "gtest/gtest.h"
#include "referee/games/quasenbo/quasenbo.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace bots {
namespace {

constexpr int kDecisionCap = 2000;

struct Tally {
  double wins = 0;  // placement 1 counts 1, shared among the seats placed 1
  int matches = 0;
  int capped = 0;
  double rate() const { return matches ? wins / matches : 0; }
};

// Plays `matches` matches with the policy at one seat (rotating) and random
// players elsewhere; returns the policy's share of wins.
Tally PlayMatches(const Options& options, int seats, int matches,
                  uint64_t seed) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      quasenbo::CreateQuasenbo(options, seats);
  EXPECT_TRUE(game.ok()) << game.status();
  Tally tally;
  if (!game.ok()) return tally;
  Rng random_player(seed);
  v1::DecisionRequest request;
  for (int m = 0; m < matches; ++m) {
    const int policy_seat = m % seats;
    std::unique_ptr<State> state =
        (*game)->NewInitialState(DeriveSeed(seed, m));
    v1::Rules rules;
    state->FillRules(&rules);
    int decisions = 0;
    while (!state->IsTerminal() && decisions < kDecisionCap) {
      const int seat = state->ActingSeats()[0];
      int action;
      if (seat == policy_seat) {
        request.Clear();
        request.set_seat(seat);
        state->FillView(seat, request.mutable_view());
        state->FillLegalActions(seat, request.mutable_legal_actions());
        action = ChooseQuasenboAction(rules.quasenbo(), request);
        EXPECT_GE(action, 0);
        EXPECT_LT(action, request.legal_actions_size());
      } else {
        action = static_cast<int>(random_player.Uniform(
            static_cast<uint32_t>(state->NumLegalActions(seat))));
      }
      state->Apply({action});
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

TEST(QuasenboPolicy, BeatsRandomHeadsUp) {
  // Measured: 63% (SE about 0.8 points); 50% would be a coin toss.
  const Tally t = PlayMatches({}, 2, 4000, 20240601);
  std::printf("policy vs random, 2 seats: %.1f%% of %d matches (%d capped)\n",
              100 * t.rate(), t.matches, t.capped);
  EXPECT_EQ(t.capped, 0);
  EXPECT_GT(t.rate(), 0.58);
}

TEST(QuasenboPolicy, BeatsRandomHeadsUpWithTheExtendedDeck) {
  const Tally t = PlayMatches({{"excuse", "true"},
                               {"pawns", "true"},
                               {"courts", "true"},
                               {"double_quasenbo", "true"}},
                              2, 2000, 777);
  std::printf(
      "policy vs random, 2 seats, extended deck + double: %.1f%% of %d\n",
      100 * t.rate(), t.matches);
  EXPECT_GT(t.rate(), 0.62);  // measured: 72%
}

TEST(QuasenboPolicy, BeatsThreeRandomPlayers) {
  // A random player's share would be 25%.
  const Tally t = PlayMatches({}, 4, 2000, 99);
  std::printf("policy vs 3 random, 4 seats: %.1f%% of %d matches\n",
              100 * t.rate(), t.matches);
  EXPECT_GT(t.rate(), 0.32);  // measured: 39%
}

TEST(QuasenboPolicy, GoesOutWithoutAQuasenbo) {
  // Last card: the Excuse (id 36), on Mountain [Mo Su] over Pact [Mo Su].
  // Decreeing Moons (action 0) or Suns (1) would be a quäsenbö and no win;
  // Waves (2) is the first decree that goes out.
  absl::StatusOr<std::unique_ptr<quasenbo::QuasenboGame>> game =
      quasenbo::QuasenboGame::Create({{"excuse", "true"}}, 2);
  ASSERT_TRUE(game.ok());
  auto state = quasenbo::QuasenboState::FromPositionForTest(
      **game,
      {{{36 /*Excuse*/}, {33 /*End*/, 32 /*Sea*/}},
       {{27 /*Pact*/}, {12 /*Mountain*/}},
       {31 /*Bard*/}},
      1);
  ASSERT_TRUE(state.ok());
  v1::Rules rules;
  (*state)->FillRules(&rules);
  v1::DecisionRequest request;
  request.set_seat(0);
  (*state)->FillView(0, request.mutable_view());
  (*state)->FillLegalActions(0, request.mutable_legal_actions());
  ASSERT_EQ(request.legal_actions_size(), 6);
  EXPECT_EQ(ChooseQuasenboAction(rules.quasenbo(), request), 2);
}

TEST(QuasenboPolicy, AvoidsItsOwnQuasenbo) {
  // Top: Mountain [Mo Su] over Pact [Mo Su]. Huntress [Mo] would repeat
  // Moons three times; Sailor (4, [Wa Le]) follows by rank safely.
  absl::StatusOr<std::unique_ptr<quasenbo::QuasenboGame>> game =
      quasenbo::QuasenboGame::Create({}, 2);
  ASSERT_TRUE(game.ok());
  auto state = quasenbo::QuasenboState::FromPositionForTest(
      **game,
      {{{13 /*Sailor*/, 30 /*Huntress*/, 35 /*Windfall*/}, {33 /*End*/}},
       {{27 /*Pact*/}, {12 /*Mountain*/}},
       {31 /*Bard*/}},
      1);
  ASSERT_TRUE(state.ok());
  v1::Rules rules;
  (*state)->FillRules(&rules);
  v1::DecisionRequest request;
  request.set_seat(0);
  (*state)->FillView(0, request.mutable_view());
  (*state)->FillLegalActions(0, request.mutable_legal_actions());
  ASSERT_EQ(request.legal_actions_size(), 2);  // Sailor, Huntress
  EXPECT_EQ(ChooseQuasenboAction(rules.quasenbo(), request), 0);
}

}  // namespace
}  // namespace bots
}  // namespace arena
