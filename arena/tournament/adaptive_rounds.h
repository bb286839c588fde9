// The planner of the adaptive schedule (arena/tournament/planner.h): a
// round at a time, each chosen by the adaptive model
// (arena/tournament/adaptive.h, watched in target_watch.h) from every
// result booked so far, until the target is met, the budget (the config's
// matches) cannot hold another table, or the run stops. schedule.json says
// after each round how far the target is, and at the end why it ended.
// A round's matches are numbered on from the rounds before, so a resume
// that learns the same results plans the same rounds again.
//
// Ownership and lifetime: made by Create, owned by the caller of the
// contest engine.
//
// Thread safety: none; the tournament's thread.
#ifndef ARENA_ARENA_TOURNAMENT_ADAPTIVE_ROUNDS_H_
#define ARENA_ARENA_TOURNAMENT_ADAPTIVE_ROUNDS_H_

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

class AdaptiveRoundsPlanner : public WatchedPlanner {
 public:
  // For an adaptive config CheckSchedule accepted; says how it plans.
  static absl::StatusOr<std::unique_ptr<AdaptiveRoundsPlanner>> Create(
      const v1::TournamentConfig& config, uint64_t schedule_seed);

  // The budget; deal groups are not known up front.
  Outline outline() const override { return {budget_, 0}; }
  // The next round, or nullopt once the target is met, the budget spent or
  // `stopping()`.
  std::optional<std::vector<int>> NextBatch(const std::function<bool()>& stopping) override;
  void Finish(bool stopped) override;

 private:
  AdaptiveRoundsPlanner(const v1::TournamentConfig& config, uint64_t schedule_seed);
  // Tables the next round may have: a round's, within the budget left.
  int TablesLeft() const;

  const int budget_;
  const bool duplicate_;
  const int per_table_;  // matches a table plays (MatchesPerTable)
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_ADAPTIVE_ROUNDS_H_
