// The log of a deal as the engines that keep hands as card sets write it:
// the record gets every hand and the deck, each seat only its own hand.
//
// A function template of the engine's State; it keeps nothing.
#ifndef ARENA_REFEREE_GAME_API_DEAL_LOG_H_
#define ARENA_REFEREE_GAME_API_DEAL_LOG_H_

#include <cstdint>
#include <vector>

#include "referee/game_api/card_set.h"

namespace arena {

// Logs one event for the record alone (seen by no seat) with every seat's
// hand, hands[0 .. num_seats - 1] (card sets), and the `deck` left, then one
// event per seat with that seat's hand alone. `new_deal(seats_mask)` logs
// an event seen by the seats in `seats_mask` (State::Log(false, mask)) and
// returns the game's deal message in it, the game's own fields (round,
// dealer) filled; the message has repeated `hands` (seat, cards) and
// repeated `deck`.
template <typename NewDeal>
void LogDeal(int num_seats, const uint64_t* hands,
             const std::vector<uint8_t>& deck, NewDeal new_deal) {
  auto add_hand = [hands](int seat, auto* deal) {
    auto* hand = deal->add_hands();
    hand->set_seat(seat);
    AddCards(hands[seat], hand->mutable_cards());
  };
  auto* all = new_deal(uint64_t{0});
  for (int s = 0; s < num_seats; ++s) add_hand(s, all);
  for (uint8_t c : deck) all->add_deck(c);
  for (int s = 0; s < num_seats; ++s) add_hand(s, new_deal(uint64_t{1} << s));
}

}  // namespace arena

#endif  // ARENA_REFEREE_GAME_API_DEAL_LOG_H_
