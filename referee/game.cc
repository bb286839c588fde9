#include "referee/game.h"

namespace arena {

std::vector<int> PlacementsFromScores(const std::vector<double>& scores,
                                      bool higher_is_better) {
  std::vector<int> placements(scores.size(), 1);
  for (size_t i = 0; i < scores.size(); ++i) {
    for (size_t j = 0; j < scores.size(); ++j) {
      const bool better = higher_is_better ? scores[j] > scores[i]
                                           : scores[j] < scores[i];
      if (better) ++placements[i];
    }
  }
  return placements;
}

const v1::Event* EventForSeat(const LoggedEvent& e, int seat) {
  if (e.is_public || (e.seats_mask >> seat) & 1) return &e.event;
  if (e.has_redacted) return &e.redacted;
  return nullptr;
}

}  // namespace arena
