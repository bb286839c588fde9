#include "referee/game_api/card_checks.h"

#include "absl/strings/str_cat.h"

namespace arena {

absl::StatusOr<std::vector<uint8_t>> CheckDeckOrder(
    const std::vector<int>& deck, int num_cards) {
  if (static_cast<int>(deck.size()) != num_cards) {
    return absl::InvalidArgumentError(absl::StrCat(
        "deck order has ", deck.size(), " cards, want ", num_cards));
  }
  std::vector<bool> seen(num_cards, false);
  std::vector<uint8_t> order;
  order.reserve(deck.size());
  for (int c : deck) {
    if (c < 0 || c >= num_cards || seen[c]) {
      return absl::InvalidArgumentError(
          absl::StrCat("deck order: bad or repeated card ", c));
    }
    seen[c] = true;
    order.push_back(static_cast<uint8_t>(c));
  }
  return order;
}

namespace {

absl::Status BadPositionCard(int card) {
  return absl::InvalidArgumentError(
      absl::StrCat("position: bad or repeated card ", card));
}

}  // namespace

absl::Status PositionCards::Take(int card) {
  if (card < 0 || card >= static_cast<int>(seen_.size()) || seen_[card]) {
    return BadPositionCard(card);
  }
  seen_[card] = true;
  ++count_;
  return absl::OkStatus();
}

absl::Status PositionCards::TakeInto(const std::vector<int>& cards,
                                     std::vector<uint8_t>* out) {
  for (int c : cards) {
    if (absl::Status s = Take(c); !s.ok()) return s;
    out->push_back(static_cast<uint8_t>(c));
  }
  return absl::OkStatus();
}

absl::Status PositionCards::TakeInto(const std::vector<int>& cards,
                                     uint64_t* set) {
  for (int c : cards) {
    if (c >= 64) return BadPositionCard(c);  // not in a set's word
    if (absl::Status s = Take(c); !s.ok()) return s;
    *set |= uint64_t{1} << c;
  }
  return absl::OkStatus();
}

absl::Status PositionCards::TakeHands(
    const std::vector<std::vector<int>>& hands, int num_seats, uint64_t* sets) {
  if (static_cast<int>(hands.size()) != num_seats) {
    return absl::InvalidArgumentError(
        absl::StrCat("position: one hand per seat (", hands.size(),
                     " hands for ", num_seats, " seats)"));
  }
  for (int s = 0; s < num_seats; ++s) {
    if (hands[s].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("position: seat ", s, " has an empty hand"));
    }
    if (absl::Status st = TakeInto(hands[s], &sets[s]); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace arena
