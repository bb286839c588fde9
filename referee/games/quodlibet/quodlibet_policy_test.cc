// The heuristic Quodlibet policy against uniform random players, in process:
// whole parties (4 kingdoms, 48 deals), the policy at one seat (rotating)
// and random players at the other three, under both rulesets. A random seat
// wins a quarter of the parties.
#include <cstdio>
#include <memory>

#include "referee/games/quodlibet/policy.h"
#include "gtest/gtest.h"
#include "referee/games/quodlibet/quodlibet.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace bots {
namespace {

struct Tally {
  double wins = 0;  // placement 1 counts 1, shared among the seats placed 1
  int matches = 0;
  double margin = 0;  // sum of (mean of the others' totals - own total)
  double rate() const { return matches ? wins / matches : 0; }
};

Tally PlayParties(const Options& options, int parties, uint64_t seed) {
  auto game = quodlibet::CreateQuodlibet(options, 4);
  EXPECT_TRUE(game.ok()) << game.status();
  Tally tally;
  if (!game.ok()) return tally;
  Rng random_player(seed);
  v1::DecisionRequest request;
  for (int m = 0; m < parties; ++m) {
    const int policy_seat = m % 4;
    auto state = (*game)->NewInitialState(DeriveSeed(seed, m));
    v1::Rules rules;
    state->FillRules(&rules);
    int decisions = 0;
    while (!state->IsTerminal() && decisions < 20000) {
      const int seat = state->ActingSeats()[0];
      int action;
      if (seat == policy_seat) {
        request.Clear();
        request.set_seat(seat);
        state->FillView(seat, request.mutable_view());
        state->FillLegalActions(seat, request.mutable_legal_actions());
        action = ChooseQuodlibetAction(rules.quodlibet(), request);
        EXPECT_GE(action, 0);
        EXPECT_LT(action, request.legal_actions_size());
      } else {
        action = static_cast<int>(random_player.Uniform(
            static_cast<uint32_t>(state->NumLegalActions(seat))));
      }
      state->Apply({action});
      ++decisions;
    }
    EXPECT_TRUE(state->IsTerminal());
    const v1::MatchResult result = state->Result();
    if (result.placements(policy_seat) == 1) {
      int firsts = 0;
      for (int p : result.placements()) firsts += p == 1;
      tally.wins += 1.0 / firsts;
    }
    double others = 0;
    for (int s = 0; s < 4; ++s) {
      if (s != policy_seat) others += result.scores(s);
    }
    tally.margin += others / 3 - result.scores(policy_seat);
    ++tally.matches;
  }
  return tally;
}

TEST(QuodlibetPolicy, BeatsRandomOverWholeParties) {
  for (const char* ruleset : {"badenia", "encyclopedia"}) {
    const Tally t = PlayParties({{"ruleset", ruleset}}, 200, 20240607);
    std::printf(
        "policy vs 3 random, %s: won %.1f%% of %d parties; mean total %.0f "
        "points below the others' mean\n",
        ruleset, 100 * t.rate(), t.matches, t.margin / t.matches);
    EXPECT_EQ(t.matches, 200);
    EXPECT_GT(t.rate(), 0.75) << ruleset;  // random: 25%
    EXPECT_GT(t.margin / t.matches, 400) << ruleset;
  }
}

}  // namespace
}  // namespace bots
}  // namespace arena
