// The heuristic Quabble policy against uniform random players, in process:
// the engine directly, requests built as the referee builds them, fixed
// seeds, the policy's seat rotating. A match counts as a win when the policy
// is placed first (shared first places count as a share).
#include <cstdio>
#include <memory>
#include <vector>

#include "referee/games/quabble/policy.h"
#include "gtest/gtest.h"
#include "referee/games/quabble/quabble.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace bots {
namespace {

struct Tally {
  double wins = 0;
  int matches = 0;
  double margin = 0;  // policy score minus mean of the others, summed
  double rate() const { return matches ? wins / matches : 0; }
};

Tally PlayMatches(int seats, int matches, uint64_t seed) {
  auto game = quabble::CreateQuabble({}, seats);
  EXPECT_TRUE(game.ok()) << game.status();
  Tally tally;
  if (!game.ok()) return tally;
  Rng random_player(seed);
  v1::DecisionRequest request;
  for (int m = 0; m < matches; ++m) {
    const int policy_seat = m % seats;
    std::unique_ptr<State> state = (*game)->NewInitialState(DeriveSeed(seed, m));
    v1::Rules rules;
    state->FillRules(&rules);
    while (!state->IsTerminal()) {
      std::vector<int> actions;
      for (int seat : state->ActingSeats()) {
        if (seat == policy_seat) {
          request.Clear();
          request.set_seat(seat);
          state->FillView(seat, request.mutable_view());
          state->FillLegalActions(seat, request.mutable_legal_actions());
          const int a = ChooseQuabbleAction(rules.quabble(), request);
          EXPECT_GE(a, 0);
          EXPECT_LT(a, request.legal_actions_size());
          actions.push_back(a);
        } else {
          actions.push_back(static_cast<int>(random_player.Uniform(
              static_cast<uint32_t>(state->NumLegalActions(seat)))));
        }
      }
      state->Apply(actions);
    }
    const v1::MatchResult result = state->Result();
    if (result.placements(policy_seat) == 1) {
      int firsts = 0;
      for (int p : result.placements()) firsts += p == 1;
      tally.wins += 1.0 / firsts;
    }
    double others = 0;
    for (int s = 0; s < seats; ++s) {
      if (s != policy_seat) others += result.scores(s);
    }
    tally.margin += result.scores(policy_seat) - others / (seats - 1);
    ++tally.matches;
  }
  return tally;
}

TEST(QuabblePolicy, BeatsRandomHeadsUp) {
  const Tally t = PlayMatches(2, 2000, 20240601);
  std::printf("policy vs random, 2 seats: %.1f%% wins of %d matches, "
              "mean margin %+.2f points\n",
              100 * t.rate(), t.matches, t.margin / t.matches);
  EXPECT_GT(t.rate(), 0.90);  // measured 96.7%; 50% would be a coin toss
}

TEST(QuabblePolicy, BeatsRandomAtFourSeats) {
  const Tally t = PlayMatches(4, 2000, 777);
  std::printf("policy vs 3 random, 4 seats: %.1f%% wins of %d matches, "
              "mean margin %+.2f points\n",
              100 * t.rate(), t.matches, t.margin / t.matches);
  EXPECT_GT(t.rate(), 0.70);  // measured 82.3%; 25% would be chance
}

TEST(QuabblePolicy, BeatsRandomAtSixSeats) {
  const Tally t = PlayMatches(6, 1200, 4242);
  std::printf("policy vs 5 random, 6 seats: %.1f%% wins of %d matches, "
              "mean margin %+.2f points\n",
              100 * t.rate(), t.matches, t.margin / t.matches);
  EXPECT_GT(t.rate(), 0.55);  // measured 69.1%; 16.7% would be chance
}

}  // namespace
}  // namespace bots
}  // namespace arena
