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
// Thread safety: none; the tournament's own thread calls it.
#ifndef ARENA_ARENA_TOURNAMENT_RESUME_H_
#define ARENA_ARENA_TOURNAMENT_RESUME_H_

#include <functional>
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
