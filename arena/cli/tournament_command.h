// `arena match` and `arena tournament`: a configured tournament run to the
// end (arena/tournament/launch.h), its standings printed, and the exit code
// that tells an organiser (or CI) whether all went well.
//
// The command line (arena/cli/arena_main.cc) builds the config from its
// flags, or from the manifest of the folder to resume, and the launch options
// (the sandbox); RunTournamentCommand does the rest.
//
// Thread safety: RunTournamentCommand blocks while the tournament runs; one
// at a time.
#ifndef ARENA_ARENA_CLI_TOURNAMENT_COMMAND_H_
#define ARENA_ARENA_CLI_TOURNAMENT_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/live/http_server.h"
#include "arena/live/live_site.h"
#include "arena/tournament/launch.h"
#include "arena/v1/config.pb.h"

namespace arena {

struct TournamentCommandOptions {
  bool single = false;   // arena match: one bot per seat, one match
  bool resume = false;   // the config is that of a folder's manifest
  // With resume: overrides the manifest's on_bot_failure (empty: keeps it).
  std::string on_bot_failure;
  bool fresh_bots_per_rotation = true;  // LaunchOptions's
  bool show_progress = true;            // (never for a single match)
  bool html = false;                    // also write the HTML site
  bool fail_on_forfeit = false;         // exit 1 if any match was forfeited
  std::string junit;       // also write a JUnit XML report here (arena/views/reports.h)
  std::string summary_md;  // also write a markdown summary here
  // serve.address non-empty: the live site of the records folder is served
  // while the tournament runs (arena/live/http_server.h), and stopped once
  // its standings are written.
  ServeOptions serve;
  LiveOptions live;
  // SIGINT and SIGTERM (arena/cli/stop_signals.h): the resume command said
  // is `program` tournament --resume DIR `resume_flags` (the launch flags
  // given, which the manifest does not keep: --sandbox, the bots' limits...).
  std::string program = "arena";
  std::vector<std::string> resume_flags;
};

// --on_bot_failure's value: withdraw, abort, or empty (UNSPECIFIED: the
// command's default); anything else is an error naming the flag.
absl::StatusOr<v1::BotFailurePolicy> ParseBotFailurePolicy(const std::string& value);

// Runs the tournament of `config` with `launch` (its sandbox set), prints
// its standings and writes the reports asked for (junit, summary_md). Returns the exit code: 0 all well; 1 the tournament ran but
// a bot failed as a program, a match is unrecorded, the HTML site has
// failures, or (fail_on_forfeit) a match was forfeited, or a bot failed at
// start under --on_bot_failure abort; 2 it could not run; 128 + the signal
// (130, 143) stopped by SIGINT or SIGTERM (arena/cli/stop_signals.h: the
// caller blocked them and started the watcher).
int RunTournamentCommand(const TournamentCommandOptions& options,
                         v1::TournamentConfig config, LaunchOptions launch);

}  // namespace arena

#endif  // ARENA_ARENA_CLI_TOURNAMENT_COMMAND_H_
