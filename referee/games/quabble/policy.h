// A heuristic Quabble player: weighs every legal action by its expected effect
// on (own score - mean score of the others), from what the deciding seat may
// know (its view and the asset list in the rules).
//
// - The score of a table is computed from the treasuries in the view with the
//   asset list's powers (as the referee scores an end position), so the worth
//   of a card to a seat is the change it makes there now: a third pig, a
//   hopper beside hoppers, a second sushi, a grungle without a slayer...
// - Claim: for each of its two cards, the chance that the other seat beside
//   the card claims it too is guessed from that seat's own gain (0.3 / 0.5 /
//   0.7); the card then is shared (half value each) or comes to this seat,
//   and the card not claimed goes to the other seat or to the King.
// - Offer: each card of the hand is weighed by the best claim it would leave
//   (the card offered to this seat is known unless this seat is the active
//   one), less what it would give the receiving seat.
// - Red Snatcher: takes the card that gains the most (own gain plus the
//   owner's loss, weighed as above), or nothing if nothing gains.
// Ties go to the lowest action index, so the choice is deterministic.
//
// Stateless and thread-safe: everything comes from the arguments.
#ifndef ARENA_REFEREE_GAMES_QUABBLE_POLICY_H_
#define ARENA_REFEREE_GAMES_QUABBLE_POLICY_H_

#include "arena/v1/arena.pb.h"
#include "arena/v1/quabble.pb.h"

namespace arena {
namespace bots {

// Returns an index into request.legal_actions() (0 if there are none).
int ChooseQuabbleAction(const arena::v1::QuabbleRules& rules,
                        const arena::v1::DecisionRequest& request);

}  // namespace bots
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUABBLE_POLICY_H_
