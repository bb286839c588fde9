// The heuristic Quäsenbö policy against a uniform random player, in process:
// the engine directly, requests built as the referee builds them, fixed
// seeds, seats alternated (2 seats) or rotated (4 seats).
#include <memory>

#include "gtest/gtest.h"
#include "referee/games/quasenbo/policy.h"
#include "referee/games/quasenbo/quasenbo.h"
#include "tests/policy_vs_random.h"

namespace arena {
namespace bots {
namespace {

using testing::PolicyTally;

// Plays `matches` matches with the policy at one seat (rotating) and random
// players elsewhere, each to its end or 2,000 decisions.
PolicyTally PlayMatches(const Options& options, int seats, int matches,
                        uint64_t seed) {
  return testing::PlayPolicyAgainstRandom(
      quasenbo::CreateQuasenbo(options, seats), ChooseQuasenboAction, matches,
      seed,
      /*decision_cap=*/2000);
}

// The request seat 0 is sent at `position` (2 seats), and the rules.
v1::DecisionRequest RequestAt(const Options& options,
                              const quasenbo::QuasenboState::Position& position,
                              v1::Rules* rules) {
  absl::StatusOr<std::unique_ptr<quasenbo::QuasenboGame>> game =
      quasenbo::QuasenboGame::Create(options, 2);
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return {};
  auto state =
      quasenbo::QuasenboState::FromPositionForTest(**game, position, 1);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return {};
  (*state)->FillRules(rules);
  return testing::RequestFor(**state, 0);
}

TEST(QuasenboPolicy, BeatsRandomHeadsUp) {
  // Measured: 63% (SE about 0.8 points); 50% would be a coin toss.
  const PolicyTally t = PlayMatches({}, 2, 4000, 20240601);
  EXPECT_EQ(t.capped, 0);
  EXPECT_GT(t.rate(), 0.58);
}

TEST(QuasenboPolicy, BeatsRandomHeadsUpWithTheExtendedDeck) {
  const PolicyTally t = PlayMatches({{"excuse", "true"},
                                     {"pawns", "true"},
                                     {"courts", "true"},
                                     {"double_quasenbo", "true"}},
                                    2, 2000, 777);
  EXPECT_GT(t.rate(), 0.62);  // measured: 72%
}

TEST(QuasenboPolicy, BeatsThreeRandomPlayers) {
  // A random player's share would be 25%.
  const PolicyTally t = PlayMatches({}, 4, 2000, 99);
  EXPECT_GT(t.rate(), 0.32);  // measured: 39%
}

TEST(QuasenboPolicy, GoesOutWithoutAQuasenbo) {
  // Last card: the Excuse (id 36), on Mountain [Mo Su] over Pact [Mo Su].
  // Decreeing Moons (action 0) or Suns (1) would be a quäsenbö and no win;
  // Waves (2) is the first decree that goes out.
  v1::Rules rules;
  const v1::DecisionRequest request =
      RequestAt({{"excuse", "true"}},
                {{{36 /*Excuse*/}, {33 /*End*/, 32 /*Sea*/}},
                 {{27 /*Pact*/}, {12 /*Mountain*/}},
                 {31 /*Bard*/}},
                &rules);
  ASSERT_EQ(request.legal_actions_size(), 6);
  EXPECT_EQ(ChooseQuasenboAction(rules.quasenbo(), request), 2);
}

TEST(QuasenboPolicy, AvoidsItsOwnQuasenbo) {
  // Top: Mountain [Mo Su] over Pact [Mo Su]. Huntress [Mo] would repeat
  // Moons three times; Sailor (4, [Wa Le]) follows by rank safely.
  v1::Rules rules;
  const v1::DecisionRequest request = RequestAt(
      {},
      {{{13 /*Sailor*/, 30 /*Huntress*/, 35 /*Windfall*/}, {33 /*End*/}},
       {{27 /*Pact*/}, {12 /*Mountain*/}},
       {31 /*Bard*/}},
      &rules);
  ASSERT_EQ(request.legal_actions_size(), 2);  // Sailor, Huntress
  EXPECT_EQ(ChooseQuasenboAction(rules.quasenbo(), request), 0);
}

}  // namespace
}  // namespace bots
}  // namespace arena
