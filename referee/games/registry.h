// The games the referee knows, by name.
#ifndef ARENA_REFEREE_GAMES_REGISTRY_H_
#define ARENA_REFEREE_GAMES_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "referee/game_api/game.h"

namespace arena {

// Makes a game. `num_seats` 0 means the game's default. Errors name the game,
// the option or the seat count that is wrong.
absl::StatusOr<std::unique_ptr<Game>> CreateGame(const std::string& name,
                                                 const Options& options,
                                                 int num_seats);

// Names of every known game.
std::vector<std::string> GameNames();

// The static description of a game, or nullptr if unknown.
const GameInfo* FindGameInfo(const std::string& name);

}  // namespace arena

#endif  // ARENA_REFEREE_GAMES_REGISTRY_H_
