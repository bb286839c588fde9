// A bundled bot's policy against uniform random players, in process, for
// the games' policy tests (referee/games/<game>/<game>_policy_test.cc): the
// engine directly, requests built as the referee builds them (simultaneous
// steps included), fixed seeds, the policy's seat rotating over the matches.
// What the policy must reach is each test's own figure.
//
// Header-only; every call owns what it plays (no shared state).
#ifndef ARENA_TESTS_POLICY_VS_RANDOM_H_
#define ARENA_TESTS_POLICY_VS_RANDOM_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/v1/arena.pb.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "referee/game_api/game.h"
#include "referee/game_api/rng.h"

namespace arena::testing {

// A bundled game's policy: the index of its choice among the request's
// legal actions, from the game's own rules message (v1::PestenRules, ...).
template <typename GameRules>
using Policy = int (*)(const GameRules&, const v1::DecisionRequest&);

struct PolicyTally {
  double wins = 0;  // placement 1 counts 1, shared among the seats placed 1
  int matches = 0;
  int capped = 0;  // matches stopped by the decision cap, unfinished
  // Summed over the matches: how far the policy's score is better than the
  // mean of the others' scores (above it if higher scores win, else below).
  double margin = 0;
  double rate() const { return matches ? wins / matches : 0; }
  double mean_margin() const { return matches ? margin / matches : 0; }
};

// The request `seat` is sent at `state` (its view and legal actions).
inline v1::DecisionRequest RequestFor(const State& state, int seat) {
  v1::DecisionRequest request;
  request.set_seat(seat);
  state.FillView(seat, request.mutable_view());
  state.FillLegalActions(seat, request.mutable_legal_actions());
  return request;
}

// The game's own message in `rules` (what rules.pesten() is for Pesten):
// the field of Rules whose type is GameRules.
template <typename GameRules>
const GameRules& GameRulesOf(const v1::Rules& rules) {
  const google::protobuf::Descriptor* d = v1::Rules::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->message_type() == GameRules::descriptor()) {
      return static_cast<const GameRules&>(
          rules.GetReflection()->GetMessage(rules, d->field(i)));
    }
  }
  ADD_FAILURE() << "arena.v1.Rules has no field of type "
                << GameRules::descriptor()->full_name();
  return GameRules::default_instance();
}

// Plays `matches` matches of `game` (expected to have been created), match
// m from the seed DeriveSeed(seed, m), with the policy at seat m % seats and
// one random player, seeded with `seed`, choosing for every other seat. A
// match stops when it ends or after `decision_cap` decisions (0: the game's
// default cap). Expects every choice of the policy to be a legal index.
// Prints the tally on a line of its own.
template <typename GameRules>
PolicyTally PlayPolicyAgainstRandom(
    const absl::StatusOr<std::unique_ptr<Game>>& game, Policy<GameRules> policy,
    int matches, uint64_t seed, int64_t decision_cap = 0) {
  EXPECT_TRUE(game.ok()) << game.status();
  if (!game.ok()) return {};
  const int seats = (*game)->num_seats();
  const int64_t cap =
      decision_cap > 0 ? decision_cap : (*game)->info().default_decision_cap;
  PolicyTally tally;
  Rng random_player(seed);
  std::vector<int> actions;
  for (int m = 0; m < matches; ++m) {
    const int policy_seat = m % seats;
    std::unique_ptr<State> state =
        (*game)->NewInitialState(DeriveSeed(seed, m));
    v1::Rules rules;
    state->FillRules(&rules);
    const GameRules& game_rules = GameRulesOf<GameRules>(rules);
    int64_t decisions = 0;
    while (!state->IsTerminal() && decisions < cap) {
      actions.clear();
      for (int seat : state->ActingSeats()) {
        const int num = state->NumLegalActions(seat);
        int action;
        if (seat == policy_seat) {
          action = policy(game_rules, RequestFor(*state, seat));
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
    double others = 0;
    for (int s = 0; s < seats; ++s) {
      if (s != policy_seat) others += result.scores(s);
    }
    const double above = result.scores(policy_seat) - others / (seats - 1);
    tally.margin += result.higher_score_wins() ? above : -above;
    ++tally.matches;
  }
  std::printf(
      "%s, %d seats, seed %llu: the policy won %.1f%% of %d matches (%d "
      "capped); its score %.2f points better than the others' mean\n",
      (*game)->info().name.c_str(), seats,
      static_cast<unsigned long long>(seed), 100 * tally.rate(), tally.matches,
      tally.capped, tally.mean_margin());
  return tally;
}

}  // namespace arena::testing

#endif  // ARENA_TESTS_POLICY_VS_RANDOM_H_
