// Tournaments: a round robin of matches over a BotHub, J at a time, with
// standings. Used by `arena match`, `arena tournament` and `referee`.
//
// Each match gets a seed derived from the tournament secret and its index
// (arena/secret.h), so a tournament is reproducible given the secret and the
// bots' decisions, and unpredictable to anyone without the secret. Match ids
// are "<game>-<tournament id>-<index>", which reveal nothing of the secret. Before a match the
// tournament asks `ensure_bot` for each of its bots (arena restarts dead bot
// processes there); a bot that cannot be had is still seated, and the fault
// policy decides (a forfeit, by default). Every finished match's record is
// written whole before it counts in the standings.
//
// Thread safety: RunTournament blocks; it runs `jobs` threads of its own.
#ifndef ARENA_ARENA_TOURNAMENT_H_
#define ARENA_ARENA_TOURNAMENT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/secret.h"
#include "arena/v1/config.pb.h"
#include "referee/bot_hub.h"

namespace arena {

struct TournamentHooks {
  // Makes sure `bot` is connected before a match; false if it cannot be.
  std::function<bool(const std::string& bot)> ensure_bot;
  // Bots given up on (reported in the standings).
  std::function<std::vector<std::string>()> dropped_bots;
  // Fixed seating for every match (arena match): bot indices by seat.
  std::vector<int> fixed_seating;
  bool show_progress = true;
};

inline constexpr int kMaxJobs = 1024;  // matches at a time
inline constexpr int kMaxBots = 4096;  // bots in one tournament

// Bot names: 1 to 64 of [A-Za-z0-9_.-], not "." or "..". They name log
// files and appear in records, so nothing else is accepted.
bool IsValidBotName(const std::string& name);

// Checks a config for mistakes (names each); fills in defaults.
absl::Status ValidateConfig(v1::TournamentConfig* config);

// The tournament's secret: read from config.secret_file (created there if
// the file does not exist), else derived from a public config.seed (with a
// warning), else fresh from the OS CSPRNG.
absl::StatusOr<TournamentSecret> ResolveSecret(const v1::TournamentConfig& config);

// Creates a records folder (and its parents) if missing, mode 0700.
absl::Status MakeRecordsDir(const std::string& dir);

// Runs the whole tournament and returns the standings. The records go to
// config.records_dir (created if missing).
absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks);

// The standings as a terminal table, and as CSV.
std::string StandingsTable(const v1::Standings& standings);
std::string StandingsCsv(const v1::Standings& standings);
// Writes standings.csv and standings.json into `dir`.
absl::Status WriteStandings(const v1::Standings& standings,
                            const std::string& dir);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_H_
