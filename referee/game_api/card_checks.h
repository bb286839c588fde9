// Checks of card ids that come from outside a rules engine's own deal: a
// deck order or a position set up by a test (the engines' *ForTest hooks).
// Each refuses an id out of range or given twice with an error naming the
// card, so that a mistyped test set-up says what is wrong instead of
// starting a match with a card in two places.
//
// Plain values and functions; a PositionCards belongs to the one set-up that
// fills it (not thread-safe, not kept).
#ifndef ARENA_REFEREE_GAME_API_CARD_CHECKS_H_
#define ARENA_REFEREE_GAME_API_CARD_CHECKS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace arena {

// `deck` as the order to deal, if it holds every card id 0 .. num_cards - 1
// exactly once; else an error: "deck order has 5 cards, want 32" or
// "deck order: bad or repeated card 7".
absl::StatusOr<std::vector<uint8_t>> CheckDeckOrder(
    const std::vector<int>& deck, int num_cards);

// The cards of a position, taken one place at a time (hands, pile, deck,
// ...): each id must be in 0 .. num_cards - 1 and taken once in all; else
// the error "position: bad or repeated card 7". Cards not taken are out of
// play.
class PositionCards {
 public:
  explicit PositionCards(int num_cards) : seen_(num_cards, false) {}

  absl::Status Take(int card);
  // Takes each of `cards` and appends it to `out`, in order.
  absl::Status TakeInto(const std::vector<int>& cards,
                        std::vector<uint8_t>* out);
  // Takes each of `cards` and adds it to the set `*set` (bit c = card c;
  // card ids below 64).
  absl::Status TakeInto(const std::vector<int>& cards, uint64_t* set);
  // Takes one hand per seat, none empty, into the sets sets[0 .. num_seats
  // - 1]; else "position: one hand per seat" or "position: seat 1 has an
  // empty hand".
  absl::Status TakeHands(const std::vector<std::vector<int>>& hands,
                         int num_seats, uint64_t* sets);

  // How many cards have been taken.
  int count() const { return count_; }

 private:
  std::vector<bool> seen_;
  int count_ = 0;
};

}  // namespace arena

#endif  // ARENA_REFEREE_GAME_API_CARD_CHECKS_H_
