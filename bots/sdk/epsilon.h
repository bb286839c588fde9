// Epsilon-greedy play for any SDK bot: with probability epsilon a decision
// is a legal action drawn uniformly at random instead of the policy's own.
// A field of one bot at several epsilons (0, 0.5, 1) has a known order of
// strength, for calibrating ratings (docs/bots.md, "Weaker on purpose").
//
// Every bot built on BotMain takes --epsilon E (default 0: the policy alone,
// which is not even asked for a random number). The draws are reproducible:
// each decision's generator (referee/game_api/rng.h, never absl::BitGen) is
// seeded from its match id and decision id alone, so a fixed-seed tournament
// plays the same way every time, whatever the threads or the order in which
// requests arrive, and a decision asked again after a reconnect gets the
// same answer.
//
// Thread safety: the policy WithEpsilon returns is as safe as the one it
// wraps; it keeps no state of its own.
#ifndef ARENA_BOTS_SDK_EPSILON_H_
#define ARENA_BOTS_SDK_EPSILON_H_

#include <cstdint>

#include "absl/status/status.h"
#include "arena/v1/arena.pb.h"
#include "bots/sdk/bot.h"

namespace arena::bots {

// OK for an epsilon in [0, 1]; else an error that names --epsilon and the
// value (NaN included).
absl::Status CheckEpsilon(double epsilon);

// The seed of a decision's generator: from its match id and decision id.
uint64_t EpsilonSeed(const v1::DecisionRequest& request);

// One decision: with probability epsilon (drawn from a generator seeded with
// EpsilonSeed(request)) a uniformly random index into
// request.legal_actions(), else policy(match, request). epsilon 0 always
// calls the policy, 1 never does; with no legal actions the policy decides.
// `epsilon` must pass CheckEpsilon.
int ChooseWithEpsilon(double epsilon, const Policy& policy,
                      const v1::MatchStart& match,
                      const v1::DecisionRequest& request);

// `policy` with ChooseWithEpsilon around it; `policy` itself for epsilon 0.
Policy WithEpsilon(double epsilon, Policy policy);

}  // namespace arena::bots

#endif  // ARENA_BOTS_SDK_EPSILON_H_
