// Sets of small card ids as bitmasks (bit c = card c), shared by the rules
// engines: a hand of up to 64 distinct cards in one word. Plain functions of
// values.
#ifndef ARENA_REFEREE_GAME_API_CARD_SET_H_
#define ARENA_REFEREE_GAME_API_CARD_SET_H_

#include <cstdint>
#include <vector>

namespace arena {

// Number of cards in the set.
inline int Popcount(uint64_t set) { return __builtin_popcountll(set); }

// The lowest card id in a non-empty set.
inline int Lowest(uint64_t set) { return __builtin_ctzll(set); }

// The card ids of the set, ascending.
inline std::vector<int> CardsOf(uint64_t set) {
  std::vector<int> out;
  out.reserve(Popcount(set));
  for (; set != 0; set &= set - 1) out.push_back(Lowest(set));
  return out;
}

// Appends the card ids of the set, ascending, to a repeated field of a
// message (a hand in a view or an event).
template <typename Field>
void AddCards(uint64_t set, Field* field) {
  field->Reserve(field->size() + Popcount(set));
  for (; set != 0; set &= set - 1) field->AddAlreadyReserved(Lowest(set));
}

}  // namespace arena

#endif  // ARENA_REFEREE_GAME_API_CARD_SET_H_
