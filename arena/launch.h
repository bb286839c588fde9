// Running a configured tournament end to end: a referee (BotHub on a gRPC
// server), optionally the bot processes, the tournament, the standings files.
// Shared by `arena match`, `arena tournament` and the standalone `referee`.
#ifndef ARENA_ARENA_LAUNCH_H_
#define ARENA_ARENA_LAUNCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/v1/config.pb.h"
#include "referee/bot_hub.h"

namespace arena {

struct LaunchOptions {
  std::string listen = "127.0.0.1:0";  // port 0: any free port
  bool start_bots = true;              // arena: start each bot's command
  absl::Duration connect_timeout = absl::Seconds(30);
  bool show_progress = true;
  std::vector<int> fixed_seating;      // arena match: bots in flag order
  HubOptions hub;                      // bounds, grace (referee/bot_hub.h)
  std::string tls_cert, tls_key;       // PEM files: listen with TLS
};

absl::StatusOr<v1::Standings> RunConfiguredTournament(
    v1::TournamentConfig config, const LaunchOptions& options);

// Reads a TournamentConfig in protobuf text format; errors name the file,
// the line and the column.
absl::StatusOr<v1::TournamentConfig> ReadConfigFile(const std::string& path);

// A fresh random token (for bots that arena starts itself).
std::string NewToken();

}  // namespace arena

#endif  // ARENA_ARENA_LAUNCH_H_
