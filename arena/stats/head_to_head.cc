// HeadToHeads and HeadToHeadTable of arena/stats/ratings.h: how each bot
// fared against each other where both sat.
#include <algorithm>
#include <cmath>
#include <map>

#include "arena/stats/ratings.h"

namespace arena {

void HeadToHeadTable::Add(absl::Span<const int> seat_players,
                          absl::Span<const int> placements,
                          absl::Span<const double> scores) {
  // Each present player's seats, score and placement sums in this match
  // (a handful of seats: linear search).
  struct Present {
    int player, seats;
    double score, placement;
  };
  absl::InlinedVector<Present, 8> present;
  for (size_t s = 0; s < seat_players.size() && s < placements.size(); ++s) {
    if (seat_players[s] < 0) continue;
    auto it = std::find_if(present.begin(), present.end(),
                           [&](const Present& p) { return p.player == seat_players[s]; });
    if (it == present.end()) {
      present.push_back({seat_players[s], 0, 0.0, 0.0});
      it = present.end() - 1;
    }
    ++it->seats;
    it->score += s < scores.size() ? scores[s] : 0.0;
    it->placement += placements[s];
  }
  for (const Present& a : present) {
    for (const Present& b : present) {
      if (a.player == b.player) continue;
      Sums& x = pairs_[{a.player, b.player}];
      const double sa = a.score / a.seats, pa = a.placement / a.seats;
      const double sb = b.score / b.seats, pb = b.placement / b.seats;
      ++x.matches;
      if (pa < pb) ++x.ahead;
      else if (pa == pb) ++x.tied;
      else ++x.behind;
      x.score.Add(sa);
      x.opponent_score.Add(sb);
      x.placement.Add(pa);
      x.opponent_placement.Add(pb);
    }
  }
}

HeadToHead HeadToHeadTable::Get(int a, int b) const {
  HeadToHead h;
  auto it = pairs_.find({a, b});
  if (it == pairs_.end() || it->second.matches == 0) return h;
  const Sums& x = it->second;
  h.matches = x.matches;
  h.ahead = x.ahead;
  h.tied = x.tied;
  h.behind = x.behind;
  h.score = x.score.Value() / x.matches;
  h.opponent_score = x.opponent_score.Value() / x.matches;
  h.placement = x.placement.Value() / x.matches;
  h.opponent_placement = x.opponent_placement.Value() / x.matches;
  return h;
}

std::vector<std::vector<HeadToHead>> HeadToHeads(
    int players, const std::vector<RatedMatch>& matches) {
  HeadToHeadTable table;
  for (const RatedMatch& m : matches) table.Add(m.seat_players, m.placements, m.scores);
  std::vector<std::vector<HeadToHead>> h(players, std::vector<HeadToHead>(players));
  for (int a = 0; a < players; ++a) {
    for (int b = 0; b < players; ++b) {
      if (a != b) h[a][b] = table.Get(a, b);
    }
  }
  return h;
}

}  // namespace arena
