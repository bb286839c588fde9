#include "arena/tournament/tournament.h"

#include <memory>

#include "arena/tournament/adaptive_rounds.h"
#include "arena/tournament/engine.h"
#include "arena/tournament/known_schedule.h"
#include "arena/tournament/plan.h"

namespace arena {
namespace {

// The config's planner: the adaptive schedule's rounds, or the schedule
// known up front.
absl::StatusOr<std::unique_ptr<Planner>> PlannerFor(const v1::TournamentConfig& config,
                                                    const std::vector<int>& fixed_seating,
                                                    uint64_t schedule_seed) {
  if (ScheduleKindFor(config, fixed_seating) == v1::SCHEDULE_KIND_ADAPTIVE) {
    return AdaptiveRoundsPlanner::Create(config, schedule_seed);
  }
  return KnownSchedulePlanner::Create(config, fixed_seating, schedule_seed);
}

}  // namespace

void FillMatchSpec(const v1::TournamentConfig& config, const TournamentSecret& secret,
                   uint64_t deal, MatchSpec* spec) {
  const MatchSecrets ms = secret.ForMatch(deal, spec->match_id);
  spec->seed = ms.seed;
  spec->seed_salt = ms.salt;
  spec->seed_commitment = ms.commitment;
  spec->tournament_id = secret.TournamentId();
  spec->predictable_seed = secret.predictable();
  spec->time_control = config.time_control();
  spec->fault_policy = config.fault_policy();
  spec->auto_moves = config.auto_moves();
  spec->decision_cap = config.decision_cap();
}

absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks) {
  if (absl::Status s = CheckSchedule(config, hooks.fixed_seating); !s.ok()) return s;
  auto planner = PlannerFor(config, hooks.fixed_seating, secret.ScheduleSeed());
  if (!planner.ok()) return planner.status();
  return RunContest(config, secret, hub, hooks, **planner);
}

}  // namespace arena
