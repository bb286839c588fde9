#include "arena/tournament/planner.h"

namespace arena {

std::vector<std::string> BotNames(const v1::TournamentConfig& config) {
  std::vector<std::string> names;
  for (const auto& b : config.bots()) names.push_back(b.name());
  return names;
}

}  // namespace arena
