// Running a configured tournament end to end: a referee (BotHub on a gRPC
// server), optionally the bot processes, the tournament, the standings files.
// Shared by `arena match`, `arena tournament`, `arena gate`, `arena play`,
// `arena check-bot` and the standalone `referee`.
//
// Ownership and lifetime: RunConfiguredTournament owns everything it starts
// (the hub, the gRPC server, the bot processes and their supervisor, a
// private runtime folder for the sandbox's socket) and stops it all before
// it returns; the bots' streams are closed, then their processes given 2 s
// to exit before they are stopped.
//
// Thread safety: RunConfiguredTournament blocks until the run is over. It
// changes process-wide settings (raises the open-file limit, turns on
// gRPC's default health service), so a process runs one at a time. The
// callbacks of LaunchOptions are called from the tournament's thread
// (on_recorded) or before the tournament starts (on_listening).
#ifndef ARENA_ARENA_TOURNAMENT_LAUNCH_H_
#define ARENA_ARENA_TOURNAMENT_LAUNCH_H_

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/tournament/sandbox.h"
#include "arena/tournament/secret.h"
#include "arena/tournament/tournament.h"
#include "arena/stats/standings.h"
#include "arena/v1/config.pb.h"
#include "referee/service/bot_hub.h"

namespace arena {

// The default bound on live bot processes is never below this: a field of
// up to 32 entrants keeps every process for the whole tournament (stopping
// and starting processes between matches cost a 20,000-match round robin of
// 8 bots at --jobs 2 about 15 times its time).
inline constexpr int kDefaultMinLiveBots = 32;

// Fields of at most this many entrants are kept whole by default.
inline constexpr int kDefaultKeptField = 64;

// The default bound for a field of `field` entrants:
//  - a field of at most kDefaultKeptField: seats * field, room for a
//    process per seat of each entrant. With duplicate deals a bot's process
//    never meets a deal twice: a process that has played a deal hands the
//    bot's next match of it to another, started or kept, and is itself
//    kept, once done with its matches, for a later deal it has not met
//    (arena/tournament/bot_process.h). With room for `seats` processes a
//    bot, each plays one rotation of every deal and almost no process
//    starts after the first ones: the 48-entrant contest at --jobs 2 made
//    about 145 starts with 192 and 1,200 with 96, where the kept
//    processes are stopped for room (docs/benchmarks.md, "Entrants on
//    demand"). The processes are mostly light (a C++ bot a few MiB, a
//    Python one about 35 MiB), and without duplicate deals only one per
//    entrant is live;
//  - a larger field, played on demand: room for the bots of the `jobs`
//    live matches and of as many about to start, each with its next
//    process, so 4 * jobs * seats. Below that, at --jobs 4, the next
//    processes of the live matches' bots fill the room, and the matches to
//    come wait for their bots' starts;
// at least kDefaultMinLiveBots, and never below 4 * jobs * seats.
inline int DefaultMaxLiveBots(int jobs, int seats, int field) {
  const int by_jobs = std::max(kDefaultMinLiveBots, 4 * std::max(1, jobs) * seats);
  return field <= kDefaultKeptField ? std::max(by_jobs, std::max(2, seats) * field) : by_jobs;
}

struct LaunchOptions {
  std::string listen = "127.0.0.1:0";  // port 0: any free port
  bool start_bots = true;              // arena: start each bot's command
  absl::Duration connect_timeout = absl::Seconds(30);
  bool show_progress = true;
  std::vector<int> fixed_seating;      // arena match: bots in flag order
  // How arena starts bot processes (start_bots): sandboxed by default. A
  // sandboxed run listens on a Unix socket only, bound into each sandbox.
  SandboxOptions sandbox;
  bool resume = false;                 // TournamentHooks::resume
  // What happens to a bot that fails (SupervisorOptions, arena/tournament/bot_process.h)
  // comes from TournamentConfig::on_bot_failure (unspecified: withdraw).
  // Duplicate deals: fresh bot processes for each rotation, so that no bot
  // process sees a deal twice (TournamentHooks::new_bot_processes). Off for
  // arena gate, which needs whole deal groups as it goes.
  bool fresh_bots_per_rotation = true;
  // TournamentHooks::live_records: matches in progress can be watched.
  bool live_records = false;
  // Called after each recorded match (TournamentHooks::on_recorded).
  std::function<bool(const MatchSummary&)> on_recorded;
  // TournamentHooks::on_record_finished.
  RecordWriter::FinishedHook on_record_finished;
  HubOptions hub;                      // bounds, grace (referee/service/bot_hub.h)
  // Entrants on demand (start_bots; arena/tournament/bot_process.h): the most
  // bot processes live at once, 0 for DefaultMaxLiveBots; at least the
  // seats. With more bots than that,
  // a bot's process starts when its matches come up and stops once it has
  // had no match for bot_idle_timeout; with fewer, each lives through the
  // tournament.
  int max_live_bots = 0;
  absl::Duration bot_idle_timeout = absl::Seconds(5);
  // Bots that arena does not start even with start_bots (their command may
  // be empty): they connect by themselves, such as arena play's person at
  // the terminal, from this process. on_listening gets the address this
  // process reaches the referee at (with the sandbox, its Unix socket) once
  // it listens; then the tournament waits up to connect_timeout for them.
  std::vector<std::string> self_connecting_bots;
  std::function<void(const std::string& address)> on_listening;
  std::string tls_cert, tls_key;       // PEM files: listen with TLS
  // Played instead of the tournament when set (arena check-bot): called
  // once the bots are started and connected, with the validated config, its
  // secret, the hub and the hooks a tournament would get (ensure_bot
  // restarts a bot process that ended); what it returns is the run's result.
  std::function<absl::StatusOr<v1::Standings>(
      const v1::TournamentConfig&, const TournamentSecret&, BotHub&,
      const TournamentHooks&)>
      run_instead;
};

// Errors carry this payload when, under BOT_FAILURE_POLICY_ABORT, a bot could
// not be started or did not connect (StartupFailed tells): `arena
// tournament` exits 1 then, not 2. Under WITHDRAW such a bot is withdrawn
// and the tournament plays on; it fails only if no bot at all can be had.
inline constexpr char kStartupPayload[] = "arena.startup";
bool StartupFailed(const absl::Status& status);

// Whether a tournament stopped because a write failed for want of space or
// a failing device (referee/records/storage_fault.h): a record, the
// standings, the log. Its records are whole and `--resume` finishes it once
// there is space; `arena tournament` exits 5 then, and so does `referee`.
bool StorageFailed(const absl::Status& status);
inline constexpr int kStorageExitCode = 5;

// The error of a tournament that a storage fault stopped: the first fault,
// how many more writes failed, how many matches are recorded of those
// planned, where the unfinished ones are. It carries the storage payload.
absl::Status StorageStopped(const absl::Status& fault, const v1::TournamentConfig& config,
                            const v1::Standings& standings);

absl::StatusOr<v1::Standings> RunConfiguredTournament(
    v1::TournamentConfig config, const LaunchOptions& options);

// Reads a TournamentConfig in protobuf text format; errors name the file,
// the line and the column.
absl::StatusOr<v1::TournamentConfig> ReadConfigFile(const std::string& path);

// A fresh random token of 128 bits from the OS CSPRNG (for bots that arena
// starts itself); an error if the CSPRNG fails.
absl::StatusOr<std::string> NewToken();

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_LAUNCH_H_
