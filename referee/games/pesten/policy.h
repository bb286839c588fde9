// A heuristic Pesten player: scores every legal action from what the deciding
// seat may know (its view and the card catalogue) and picks the best.
//
// What it weighs:
// - always says "Pesten" (a play leaving one card without it costs 2 cards);
// - going out with a plain last card wins the round at once;
// - playing beats drawing; under a draw obligation, stacking a 2 or a Joker
//   beats taking the sum;
// - wild and attacking cards (Joker, 2, Jack, 8) are kept for when they are
//   needed, or played against a next seat that is close to going out;
// - a 7 or King is played when another card can follow it (a double shed);
// - the hand kept should hold a plain card to finish with, and cards that
//   follow the card just played;
// - a Jack wishes the suit the seat holds most of; the start-card wish too;
// - in the 10's pass, the card given away is the one least worth keeping,
//   and a special card (never a last card) when the receiver is close to
//   going out.
// Ties go to the lowest action index, so the choice is deterministic.
//
// Stateless and thread-safe: everything comes from the arguments.
#ifndef ARENA_REFEREE_GAMES_PESTEN_POLICY_H_
#define ARENA_REFEREE_GAMES_PESTEN_POLICY_H_

#include "arena/v1/arena.pb.h"
#include "arena/v1/pesten.pb.h"

namespace arena {
namespace bots {

// Returns an index into request.legal_actions() (0 if there are none).
// Uses only request.view().pesten(), the legal actions and the catalogue
// (the standard id scheme when the catalogue is empty).
int ChoosePestenAction(const arena::v1::PestenRules& rules,
                       const arena::v1::DecisionRequest& request);

}  // namespace bots
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_PESTEN_POLICY_H_
