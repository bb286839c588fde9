// A heuristic Quäsenbö player: scores every legal action from what the
// deciding seat may know (its view and the card catalogue) and picks the best.
//
// What it weighs, per candidate play:
// - going out (playing the last card without a quäsenbö) wins at once;
// - a quäsenbö of its own costs the penalty in cards;
// - pressure on the next seat: from the cards this seat cannot see, the
//   chance that the next seat (with its hand size) holds no card that
//   follows the play, or none that follows without a quäsenbö (a suit of
//   the play that also lies on the card below it: the rules' "follow suit
//   with an Ace"); the Excuse's decree is chosen the same way;
// - the shape of the hand kept: the Excuse is kept for later, a hand that
//   covers many suits is preferred, Aces and Crowns are held back a little.
// Ties go to the lowest action index, so the choice is deterministic.
//
// Stateless and thread-safe: everything comes from the arguments.
#ifndef ARENA_REFEREE_GAMES_QUASENBO_POLICY_H_
#define ARENA_REFEREE_GAMES_QUASENBO_POLICY_H_

#include "arena/v1/arena.pb.h"
#include "arena/v1/quasenbo.pb.h"

namespace arena {
namespace bots {

// Returns an index into request.legal_actions() (0 if there are none).
// Uses only request.view().quasenbo(), the legal actions and the catalogue.
int ChooseQuasenboAction(const arena::v1::QuasenboRules& rules,
                         const arena::v1::DecisionRequest& request);

}  // namespace bots
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUASENBO_POLICY_H_
