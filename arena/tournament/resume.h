// Resuming a tournament in its records folder (TournamentHooks::resume),
// before any match is played. The folder's manifest must be this run's: the
// same tournament id (so the same secret), shard and matches planned.
// Unfinished records (.inprogress/) are moved to .rejected/ and their matches
// played again; so is the record of a scheduled match that is not a regular
// file, does not verify, is not the scheduled match (id, seed, seats, deal
// group) or is refused by the standings. Records are moved, never deleted.
// The others count as played: added to the standings and given to
// on_recorded, in schedule order.
//
// Before that, ResumeConfig makes the config a resume runs from the folder's
// manifest, and says which fields the command line may change.
//
// Thread safety: none; the tournament's own thread calls it.
#ifndef ARENA_ARENA_TOURNAMENT_RESUME_H_
#define ARENA_ARENA_TOURNAMENT_RESUME_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/stats/standings.h"
#include "arena/tournament/schedule.h"
#include "arena/tournament/secret.h"
#include "arena/v1/config.pb.h"

namespace arena {

// The records folder's subfolder for records a resume could not use.
inline constexpr char kRejectedDir[] = ".rejected";

struct ResumedMatches {
  std::vector<int> todo;  // schedule indices still to play, in schedule order
  bool stop = false;      // on_recorded returned false for a recorded match
};

// What the command line says besides --resume DIR.
struct ResumeFlags {
  // --shard as given ("" if not given), and as parsed: the shard the folder
  // must hold.
  std::string shard;
  int shard_index = 0;
  int shard_count = 0;
  // The config the other flags describe, or empty without --bot flags (the
  // manifest's is then run as it is). Called only once the folder passed its
  // own checks, so that a folder that cannot be resumed says so first.
  std::function<absl::StatusOr<v1::TournamentConfig>()> config;
};

// The config of the tournament in `dir` (its manifest.json), to resume it:
// records_dir set to `dir`, each bot a fresh token. Refused if the manifest
// is missing or unreadable, if its secret was kept in memory only (no
// secret_file, no seed: the seeds cannot be made again), if flags.shard names
// another shard than the folder's, or if flags.config differs from the
// manifest's in anything but what may change between runs: jobs, records_dir,
// connect_timeout_ms, max_restarts, on_bot_failure, standings_every and the
// bots' tokens (seats, fault_policy and auto_moves compare as their defaults
// when unset). Every refusal names the folder and, for another config, the
// fields that differ.
absl::StatusOr<v1::TournamentConfig> ResumeConfig(const std::string& dir,
                                                  const ResumeFlags& flags);

// Scans config.records_dir for the records of `mine` (schedule indices of
// this run's matches: ShardMatches, or an adaptive schedule's round) and
// adds those that count to `standings`. Errors if the folder's manifest is
// missing, another tournament's, or plans other than `planned` matches.
absl::StatusOr<ResumedMatches> ResumeFromRecords(
    const v1::TournamentConfig& config, const TournamentSecret& secret,
    const Schedule& schedule, const std::vector<int>& mine, int planned,
    StandingsAccumulator* standings,
    const std::function<bool(const MatchSummary&)>& on_recorded);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_RESUME_H_
