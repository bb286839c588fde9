// Balanced tables for a field of any size: who sits at which table, in which
// order, round after round.
//
// A round seats every entrant once where the number of entrants B is a
// multiple of the seats S (B / S tables); otherwise the B mod S entrants
// that have played the most sit out, so that after any number of tables
// every entrant has played within one table of every other. The tables of
// a round are chosen to even out how often each pair of entrants has met:
// from a shuffled split, swaps of two entrants between tables are made while
// they lower the sum over pairs of meetings squared (so a pair that has met
// less is preferred). Then each table's seating order is chosen, among the
// cyclic orders (duplicate deals: every rotation of a table is played, so
// seat positions even out by themselves) or among all orders (independent
// deals: each table is one match), to even out the seat positions and who
// sits directly before whom.
//
// Everything is a function of (B, S, duplicate, seed): the shuffles come
// from referee/game_api/rng.h's generator. Tables can also be asked for a
// subset of the field (the adaptive schedule's exploration), with the same
// bookkeeping.
//
// Costs: a round is O(B^2 S / S) swap checks per pass, a few passes; and
// (S - 1)! or S! orders a table, for S up to 7 (a greedy order beyond).
//
// Thread safety: none (one owner).
#ifndef ARENA_ARENA_TOURNAMENT_DESIGN_H_
#define ARENA_ARENA_TOURNAMENT_DESIGN_H_

#include <cstdint>
#include <vector>

#include "referee/game_api/rng.h"

namespace arena {

class BalancedDesign {
 public:
  // entrants >= seats >= 1.
  BalancedDesign(int entrants, int seats, bool duplicate, uint64_t seed);

  int entrants() const { return b_; }
  int seats() const { return s_; }
  bool duplicate() const { return duplicate_; }
  // Tables in a full round: entrants / seats.
  int tables_per_round() const { return b_ / s_; }

  // The next `tables` tables (at most tables_per_round()), each a seating
  // (entrant by seat), no entrant twice in the round; the entrants who have
  // played the fewest tables play first.
  std::vector<std::vector<int>> NextRound(int tables);
  // Tables for the given entrants only (each at most once; a remainder of
  // fewer than `seats` entrants is left out), recorded like any other.
  std::vector<std::vector<int>> TablesFor(std::vector<int> entrants);
  // Seats a table chosen elsewhere (the adaptive schedule's own picks) in
  // the order that evens out seat positions and neighbours, and records it.
  std::vector<int> Place(std::vector<int> table);

  // Tables each entrant has played.
  const std::vector<int>& played() const { return played_; }
  // Meetings of a pair (tables where both sat).
  int meetings(int a, int b) const { return meet_[a * b_ + b]; }

 private:
  std::vector<std::vector<int>> Split(std::vector<int> chosen);
  std::vector<int> Order(std::vector<int> table);
  void Record(const std::vector<int>& seating);
  int b_, s_;
  bool duplicate_;
  Rng rng_;
  std::vector<int> played_;
  std::vector<int> meet_;   // b * b
  std::vector<int> next_;   // b * b: times a sat directly before b (cyclically)
  std::vector<int> seat_;   // b * s: matches at each seat position
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_DESIGN_H_
