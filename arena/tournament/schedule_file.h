// schedule.json in a records folder (v1::SchedulePlan, kSchedulePlanFile):
// the contest's plan as its planner states it (kind, field, rounds and
// matches planned, the adaptive target and how sure the top is, whether
// and why it ended), rewritten whole whenever the planner says so; read by
// the standings pages and the live site.
//
// Ownership and lifetime: a planner (arena/tournament/planner.h) owns its
// ScheduleFile and fills plan().
//
// Thread safety: none; the tournament's thread.
#ifndef ARENA_ARENA_TOURNAMENT_SCHEDULE_FILE_H_
#define ARENA_ARENA_TOURNAMENT_SCHEDULE_FILE_H_

#include <string>
#include <vector>

#include "arena/tournament/adaptive.h"
#include "arena/v1/config.pb.h"

namespace arena {

class ScheduleFile {
 public:
  // Into config.records_dir; the plan starts with its kind, the bots and
  // the seats.
  ScheduleFile(const v1::TournamentConfig& config, v1::ScheduleKind kind);

  v1::SchedulePlan& plan() { return plan_; }

  // The plan with `check`'s comparisons (entrants by `names`), written; an
  // error is logged.
  void Write(const AdaptiveCheck& check, const std::vector<std::string>& names);

 private:
  const std::string dir_;
  v1::SchedulePlan plan_;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_SCHEDULE_FILE_H_
