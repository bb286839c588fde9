// Booking: what each match feeds, on the tournament's thread, in this
// order. A match that ended: the load meter (by the pump), then, if its
// record is whole (a match without one does not count), the standings
// (standings_sink.h), the planner (planner.h) and the caller's
// TournamentHooks::on_recorded (false: start no further match); then the
// progress (progress.h); then a standings rewrite if one is due. A match
// already recorded (a resume, batch by batch: resume.h): the standings,
// the planner, on_recorded, and the progress as resumed.
//
// Where a match's record goes as it is written is set here too
// (OpenRecord): into the records folder, every line spilled to its .part
// for a live site to follow (TournamentHooks::live_records), and handed
// over as it lands (TournamentHooks::on_record_finished, on the match's
// thread).
//
// Ownership and lifetime: the contest engine (arena/tournament/engine.h)
// owns the Booker; it refers to the config, secret, hooks, planner,
// standings and progress, which outlive it.
//
// Thread safety: none; the tournament's thread.
#ifndef ARENA_ARENA_TOURNAMENT_BOOKING_H_
#define ARENA_ARENA_TOURNAMENT_BOOKING_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/tournament/planner.h"
#include "arena/tournament/progress.h"
#include "arena/tournament/resume.h"
#include "arena/tournament/secret.h"
#include "arena/tournament/standings_sink.h"
#include "arena/tournament/tournament.h"
#include "arena/v1/config.pb.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"

namespace arena {

// The writer of match `match_id`'s record (see above).
absl::StatusOr<std::unique_ptr<RecordWriter>> OpenRecord(const v1::TournamentConfig& config,
                                                         const TournamentHooks& hooks,
                                                         const std::string& match_id);

class Booker {
 public:
  Booker(const v1::TournamentConfig& config, const TournamentSecret& secret,
         const TournamentHooks& hooks, Planner& planner, StandingsSink& standings,
         ProgressLine& progress);

  // A match that ended. False: on_recorded said stop.
  bool Book(const MatchSpec& spec, const MatchOutcome& outcome);
  // A match that could not start (its record could not be opened): done,
  // not counted.
  void Skip() { progress_.Skipped(); }
  // The matches of `batch` still to play: all of them, or with --resume
  // those without a record that counts (the others are booked here, in
  // schedule order; ResumeFromRecords moves the rest aside).
  absl::StatusOr<ResumedMatches> Resume(const std::vector<int>& batch);

 private:
  // The planner and on_recorded learn a recorded match; false: stop.
  bool Learn(const MatchSummary& match);

  const v1::TournamentConfig& config_;
  const TournamentSecret& secret_;
  const TournamentHooks& hooks_;
  Planner& planner_;
  StandingsSink& standings_;
  ProgressLine& progress_;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_BOOKING_H_
