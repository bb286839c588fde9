// A heuristic Quodlibet player: picks an action from what the deciding seat
// may know (its view and the legal actions), contract by contract.
//
// - Choosing a contract: estimates, from the hand, its own penalty minus the
//   average of the others' for each legal contract and picks the lowest
//   (Bad Neighbour and Open Trousers, where the hand hardly matters, count as
//   even; a wheel-3 choice made before the deal uses the same even baseline).
// - Minus-type trick contracts (Minus, Good Hunting, Bad Neighbour, Alarich,
//   No Reds, Ober/Unter, All-or-Nothing, Bribe, First-Three-and-Last in the
//   tricks that cost): lead low, duck under the card winning the trick, win
//   (if it must) with the highest card when last to play, and discard the
//   contract's penalty cards first, then the highest cards. In the free
//   middle tricks of First-Three-and-Last it sheds its highest cards.
// - Plus: lead high, win as cheaply as possible, discard low.
// - Open Trousers: its own cards are face down, any slot is as good as any.
// - Quadrature: works out each lead's whole sequence (every unplayed card not
//   in its hand is in another hand) and leads the one that sheds the most of
//   its own cards, preferring sequences it ends itself (it leads again).
// - Snack: lays out whenever it can, first the card that opens the way for
//   more of its own cards; picks up only when it cannot lay out.
// Ties go to the lowest action index, so the choice is deterministic.
//
// Stateless and thread-safe: everything comes from the arguments.
#ifndef ARENA_REFEREE_GAMES_QUODLIBET_POLICY_H_
#define ARENA_REFEREE_GAMES_QUODLIBET_POLICY_H_

#include "arena/v1/arena.pb.h"
#include "arena/v1/quodlibet.pb.h"

namespace arena {
namespace bots {

// Returns an index into request.legal_actions() (0 if there are none).
int ChooseQuodlibetAction(const arena::v1::QuodlibetRules& rules,
                          const arena::v1::DecisionRequest& request);

}  // namespace bots
}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_QUODLIBET_POLICY_H_
