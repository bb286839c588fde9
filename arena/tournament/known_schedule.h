// The planner of a schedule known up front (arena/tournament/planner.h):
// the cycle of seatings or a gauntlet (arena/tournament/schedule.h), one
// fixed seating (arena match, arena gate), or rounds of balanced tables
// (arena/tournament/design.h), as ScheduleFor plans them from the config
// and the secret's schedule seed. One batch: this run's share of it (its
// shard's deal groups, or all), in schedule order. Over a field of
// distinct bots it also watches the adaptive target (target_watch.h) and
// says at the end, in schedule.json, how sure the top is.
//
// Ownership and lifetime: made by Create, owned by the caller of the
// contest engine.
//
// Thread safety: none; the tournament's thread.
#ifndef ARENA_ARENA_TOURNAMENT_KNOWN_SCHEDULE_H_
#define ARENA_ARENA_TOURNAMENT_KNOWN_SCHEDULE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/tournament/planner.h"
#include "arena/tournament/target_watch.h"
#include "arena/v1/config.pb.h"

namespace arena {

class KnownSchedulePlanner : public WatchedPlanner {
 public:
  // Plans the whole schedule of a config CheckSchedule accepted (not an
  // adaptive one); warns of matches rounded up to whole deal groups and of
  // seat positions balanced only approximately, and names the shard.
  static absl::StatusOr<std::unique_ptr<KnownSchedulePlanner>> Create(
      const v1::TournamentConfig& config, const std::vector<int>& fixed_seating,
      uint64_t schedule_seed);

  Outline outline() const override;
  // This run's share, once; then nullopt.
  std::optional<std::vector<int>> NextBatch(const std::function<bool()>& stopping) override;
  // With the target watched: schedule.json, finished unless `stopped`.
  void Finish(bool stopped) override;

 private:
  KnownSchedulePlanner(const v1::TournamentConfig& config,
                       const std::vector<int>& fixed_seating, uint64_t schedule_seed,
                       Schedule schedule);

  const std::vector<int> mine_;  // this run's matches (ShardMatches)
  bool handed_out_ = false;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_KNOWN_SCHEDULE_H_
