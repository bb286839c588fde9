// Test data for the standings' tests (arena/stats/standings_test.cc,
// arena/cli/standings_command_test.cc): random matches, reproducible from a
// seed. Plain functions; for tests only.
#ifndef ARENA_ARENA_STATS_STANDINGS_TEST_UTIL_H_
#define ARENA_ARENA_STATS_STANDINGS_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/stats/standings.h"
#include "referee/game_api/rng.h"

namespace arena::testing {

// Random matches of `seats` seats among bots a..e (a bot may hold several
// seats), with fractional scores, faults and forfeits, in deal groups of
// mixed name widths.
inline std::vector<MatchSummary> RandomMatches(int count, int seats, uint64_t seed) {
  Rng rng(seed);
  const std::vector<std::string> bots = {"a", "b", "c", "d", "e"};
  std::vector<MatchSummary> out;
  for (int i = 0; i < count; ++i) {
    MatchSummary m;
    m.match_id = absl::StrCat("m", i);
    m.deal_group = i % 5 == 0 ? "" : absl::StrCat("g", rng.Uniform(i % 2 ? 40 : 400));
    for (int s = 0; s < seats; ++s) {
      m.seat_bots.push_back(bots[rng.Uniform(5)]);
      m.placements.push_back(1 + static_cast<int>(rng.Uniform(seats)));
      m.scores.push_back(static_cast<double>(rng.Uniform(100)) / (1 + rng.Uniform(7)));
    }
    if (rng.Uniform(10) == 0) m.forfeit_seat = static_cast<int>(rng.Uniform(seats));
    if (rng.Uniform(4) == 0) {
      m.faults.push_back({static_cast<int>(rng.Uniform(seats)),
                          static_cast<v1::FaultKind>(1 + rng.Uniform(4))});
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace arena::testing

#endif  // ARENA_ARENA_STATS_STANDINGS_TEST_UTIL_H_
