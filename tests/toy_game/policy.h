// The toy game's bot: keeps its sure winners for when they are needed.
// A card is a sure winner if every card above it is in this seat's hand or
// already played. It plays its lowest sure winner if it holds one, else its
// lowest card. (Against a random player, the order of play does not change
// the expected rounds won; the bot is here to show how a bot reads an
// `other` view, not to be strong.)
//
// Stateless and thread-safe: everything comes from the arguments.
#ifndef ARENA_TESTS_TOY_GAME_POLICY_H_
#define ARENA_TESTS_TOY_GAME_POLICY_H_

#include "arena/v1/arena.pb.h"

namespace toy {

// Returns an index into request.legal_actions(); 0 if the request is not
// the toy game's.
int ChooseToyAction(const arena::v1::MatchStart& match,
                    const arena::v1::DecisionRequest& request);

}  // namespace toy

#endif  // ARENA_TESTS_TOY_GAME_POLICY_H_
