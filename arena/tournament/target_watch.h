// The adaptive target (arena/tournament/adaptive.h: the top K named in
// order at the configured confidence) watched over a contest's field: its
// rating model learns each booked result, so that the adaptive schedule
// plans from it and any other schedule of distinct bots says at its end,
// in schedule.json, how sure its top is.
//
// WatchedPlanner is what the config's own planners (known_schedule.h,
// adaptive_rounds.h) share: the config's bots as a field that does not
// change, its target watched, its schedule.json, and the schedule so far.
//
// Ownership and lifetime: a planner owns its TargetWatch; the model lives
// as long as it does.
//
// Thread safety: none; the tournament's thread.
#ifndef ARENA_ARENA_TOURNAMENT_TARGET_WATCH_H_
#define ARENA_ARENA_TOURNAMENT_TARGET_WATCH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arena/stats/standings.h"
#include "arena/tournament/planner.h"
#include "arena/tournament/adaptive.h"
#include "arena/tournament/schedule.h"
#include "arena/tournament/schedule_file.h"
#include "arena/v1/config.pb.h"

namespace arena {

class TargetWatch {
 public:
  // A model only for a field that can be rated: at least two bots, at
  // least as many as the seats, no fixed seating. With one, `file`'s plan
  // gets the target (top K, confidence).
  TargetWatch(const v1::TournamentConfig& config, const std::vector<int>& fixed_seating,
              uint64_t schedule_seed, ScheduleFile* file);

  // Null without a model.
  AdaptivePlanner* model() const { return model_.get(); }
  const std::vector<std::string>& names() const { return names_; }
  const AdaptiveOptions& options() const { return options_; }

  // A booked result (seats of bots not in the field are ignored).
  void Learn(const MatchSummary& match);

 private:
  const std::vector<std::string> names_;
  std::map<std::string, int> index_;  // name -> entrant
  const AdaptiveOptions options_;
  std::unique_ptr<AdaptivePlanner> model_;
};

class WatchedPlanner : public Planner {
 public:
  const Schedule& schedule() const override { return schedule_; }
  const std::vector<std::string>& entrants() const override { return target_.names(); }
  void Learn(const MatchSummary& match) override { target_.Learn(match); }

 protected:
  // schedule.json of `kind`; the target as TargetWatch watches it.
  WatchedPlanner(const v1::TournamentConfig& config, v1::ScheduleKind kind,
                 const std::vector<int>& fixed_seating, uint64_t schedule_seed)
      : file_(config, kind), target_(config, fixed_seating, schedule_seed, &file_) {}

  ScheduleFile& file() { return file_; }
  const TargetWatch& target() const { return target_; }
  Schedule& mutable_schedule() { return schedule_; }

 private:
  ScheduleFile file_;
  TargetWatch target_;
  Schedule schedule_;  // every match planned so far
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_TARGET_WATCH_H_
