// A contest's planner: which matches it plays, batch by batch, and what it
// learns from each result. The contest engine (arena/tournament/engine.h)
// asks it for a batch, plays the batch (a resume first counts the batch's
// matches already recorded), gives it every booked result, and asks again
// until it says the contest is over.
//
// The planners: the schedule known up front (the cycle of seatings, a
// gauntlet, a fixed seating, rounds of balanced tables:
// arena/tournament/known_schedule.h), one batch; and the adaptive
// schedule (arena/tournament/adaptive_rounds.h), a round at a time, each
// chosen from the results so far. A planner may also change its field
// between batches (a ladder whose entrants come and go): entrants() is
// read afresh for each batch; an entrant keeps its index, new ones are
// appended.
//
// A batch is a list of indices into schedule(), the matches planned so far;
// a match's index names it (its id, "<game>-<tournament id>-<index + 1>")
// and its deal (ScheduledMatch::deal) gives its seed and deal group
// (arena/tournament/plan.h, arena/tournament/secret.h). So a planner must
// hand out the same matches again for the same secret and results, or a
// resume finds records of other matches (and plays those again).
//
// Ownership and lifetime: the caller owns the planner and keeps it until
// the engine returns; the engine holds references into schedule() and
// entrants() only while a batch plays (they may change in NextBatch only).
//
// Thread safety: none needed; every call comes from the tournament's thread.
#ifndef ARENA_ARENA_TOURNAMENT_PLANNER_H_
#define ARENA_ARENA_TOURNAMENT_PLANNER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arena/stats/standings.h"
#include "arena/tournament/schedule.h"
#include "arena/v1/config.pb.h"

namespace arena {

class Planner {
 public:
  virtual ~Planner() = default;

  // What the run plans, fixed before its first batch: its matches (this
  // run's share with shards; an adaptive schedule's budget; kOpenEnded for
  // a run that plans as it goes with no count up front, whose matches
  // planned are then the ones it played), for the manifest, the standings
  // and the progress; and the deal groups the manifest names (0 when not
  // known up front).
  struct Outline {
    static constexpr int kOpenEnded = -1;
    int matches = 0;
    int deal_groups = 0;
  };
  virtual Outline outline() const = 0;

  // Every match planned so far; a batch's indices point into it.
  virtual const Schedule& schedule() const = 0;
  // The entrants' bot names, by the index a seating names them with.
  virtual const std::vector<std::string>& entrants() const = 0;

  // The next batch (indices into schedule(), the matches this run plays),
  // or nullopt: the contest is over. `stopping()` says whether the run
  // stopped (no further match starts: a hook said so, or the disk failed);
  // a planner that plans batch by batch asks it before planning one, and
  // still hands out a batch planned before (a resume counts its records).
  virtual std::optional<std::vector<int>> NextBatch(
      const std::function<bool()>& stopping) = 0;

  // One booked result, played by this run or recorded before it (a
  // resume), in the order they are booked.
  virtual void Learn(const MatchSummary& match) = 0;

  // Once NextBatch said the contest is over (not after an error):
  // `stopped` if the run stopped before its plan was played.
  virtual void Finish(bool stopped) = 0;
};

// The config's bot names, in config order: the entrants of a field that
// does not change.
std::vector<std::string> BotNames(const v1::TournamentConfig& config);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_PLANNER_H_
