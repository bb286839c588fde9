// Schedules: which bots sit where in each match, and which deal each plays.
//
// Arrangements: with B bots and S seats, every ordered S-tuple of bots that
// uses min(B, S) different bots: all distinct bots when B >= S, every bot at
// least once (a bot filling several seats) when B < S. The set is closed
// under renaming the bots and under permuting the seats, so over one full
// cycle every bot sits at every seat position equally often and every pair
// of bots meets equally often at every pair of positions.
//
// A gauntlet of bot G: for every other bot X, the arrangements of the two
// bots {G, X} (G meets every other bot; the others do not meet each other).
//
// Independent deals: match i plays arrangement i mod K and deal i (K
// arrangements); exactly balanced when the number of matches is a multiple
// of K.
//
// Duplicate deals: the arrangements fall into rotation classes (an
// arrangement with its seating rotated by 1..S-1 seats; rotated by r, seat s
// holds the bot of seat (s + r) mod S). Deal group g plays class g mod C
// (classes in the order of their first arrangement) with one deal, once per
// distinct rotation, so every bot of the class plays every hand from every
// seat. The number of matches is rounded up to whole deal groups.
//
// This is the cycle schedule and the gauntlet; rounds of tables for a field
// of any size are arena/tournament/design.h's, and the adaptive contest's
// arena/tournament/adaptive.h's (arena/tournament/plan.h picks).
//
// Thread safety: pure functions.
#ifndef ARENA_ARENA_TOURNAMENT_SCHEDULE_H_
#define ARENA_ARENA_TOURNAMENT_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace arena {

// Every arrangement, in lexicographic order. Errors if there would be more
// than `limit` of them.
absl::StatusOr<std::vector<std::vector<int>>> Arrangements(int bots, int seats,
                                                           int64_t limit = 1000000);

// The arrangements of a gauntlet of bot `hero` against the other bots.
absl::StatusOr<std::vector<std::vector<int>>> GauntletArrangements(
    int bots, int seats, int hero, int64_t limit = 1000000);

// Rotations of `seating` by 0, 1, ... seats, each distinct one once.
std::vector<std::vector<int>> DistinctRotations(const std::vector<int>& seating);

struct ScheduledMatch {
  int index = 0;               // 0-based, in schedule order
  int deal = 0;                // the deal (seed) index: the deal group with duplicate deals
  std::vector<int> seating;    // bot index by seat
};

struct Schedule {
  std::vector<ScheduledMatch> matches;
  int deal_groups = 0;
  int cycle = 0;         // matches in one full cycle of the arrangements
  bool balanced = false; // the matches are whole cycles
};

// At least `matches` matches over `arrangements` (see above).
Schedule PlanSchedule(const std::vector<std::vector<int>>& arrangements,
                      int matches, bool duplicate);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_SCHEDULE_H_
