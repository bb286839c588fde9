// `arena serve DIR`: the live site of a records folder (arena/live/), served
// until SIGINT or SIGTERM; and the same for a tournament's own run
// (`arena tournament ... --serve ADDR`, arena/cli/tournament_command.h). docs/live.md.
//
// Thread safety: RunServe blocks; one at a time.
#ifndef ARENA_ARENA_CLI_SERVE_COMMAND_H_
#define ARENA_ARENA_CLI_SERVE_COMMAND_H_

#include <string>

#include "arena/live/http_server.h"
#include "arena/live/live_site.h"

namespace arena {

struct ServeCommandOptions {
  std::string dir;  // the records folder (or the folder of shards' folders)
  ServeOptions serve;
  LiveOptions live;
};

// Prints "arena serve: http://ADDRESS/ (DIR)" once listening, and serves
// until SIGINT or SIGTERM. Returns 0, or 2 (printed) on an error: no such
// folder, an address that cannot be bound.
int RunServe(const ServeCommandOptions& options);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_SERVE_COMMAND_H_
