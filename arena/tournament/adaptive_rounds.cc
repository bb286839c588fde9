#include "arena/tournament/adaptive_rounds.h"

#include <algorithm>

#include "arena/tournament/plan.h"
#include "spdlog/spdlog.h"

namespace arena {

absl::StatusOr<std::unique_ptr<AdaptiveRoundsPlanner>> AdaptiveRoundsPlanner::Create(
    const v1::TournamentConfig& config, uint64_t schedule_seed) {
  std::unique_ptr<AdaptiveRoundsPlanner> p(new AdaptiveRoundsPlanner(config, schedule_seed));
  AdaptivePlanner* model = p->target().model();
  if (model == nullptr) {
    return absl::InvalidArgumentError("the adaptive schedule needs a field of distinct bots");
  }
  spdlog::info(
      "adaptive schedule: rounds of at least {} tables ({} matches), until the top {} "
      "are separated at {:.0f} % (Holm) or {} matches are spent",
      model->tables_per_round(), model->tables_per_round() * p->per_table_, model->top_k(),
      100 * p->target().options().confidence, config.matches());
  return p;
}

AdaptiveRoundsPlanner::AdaptiveRoundsPlanner(const v1::TournamentConfig& config,
                                             uint64_t schedule_seed)
    : WatchedPlanner(config, v1::SCHEDULE_KIND_ADAPTIVE, {}, schedule_seed),
      budget_(config.matches()),
      duplicate_(config.deal_mode() != v1::DEAL_MODE_INDEPENDENT),
      per_table_(MatchesPerTable(config)) {
  file().plan().set_budget(budget_);
}

int AdaptiveRoundsPlanner::TablesLeft() const {
  const int64_t left = budget_ - static_cast<int64_t>(schedule().matches.size());
  return static_cast<int>(
      std::min<int64_t>(target().model()->tables_per_round(), left / per_table_));
}

std::optional<std::vector<int>> AdaptiveRoundsPlanner::NextBatch(
    const std::function<bool()>& stopping) {
  const bool stopped = stopping();
  AdaptivePlanner& model = *target().model();
  Schedule& schedule = mutable_schedule();
  const AdaptiveCheck check = model.Check();
  const int tables = TablesLeft();
  if (check.met || tables < 1 || stopped) return std::nullopt;
  const Schedule round =
      ScheduleOfTables(model.NextRound(tables), duplicate_,
                       static_cast<int>(schedule.matches.size()), schedule.deal_groups);
  std::vector<int> indices;
  for (const ScheduledMatch& m : round.matches) {
    indices.push_back(m.index);
    schedule.matches.push_back(m);
  }
  schedule.deal_groups += round.deal_groups;
  v1::SchedulePlan& plan = file().plan();
  plan.set_rounds(plan.rounds() + 1);
  plan.set_matches_planned(static_cast<int>(schedule.matches.size()));
  plan.add_round_matches(static_cast<int>(round.matches.size()));
  file().Write(check, entrants());
  spdlog::info("adaptive round {}: {} matches; {}", plan.rounds(), round.matches.size(),
               check.Describe(entrants()));
  return indices;
}

void AdaptiveRoundsPlanner::Finish(bool /*stopped*/) {
  // Why NextBatch ended: the same check, nothing learnt since.
  const AdaptiveCheck check = target().model()->Check();
  const int tables = TablesLeft();
  v1::SchedulePlan& plan = file().plan();
  plan.set_finished(check.met || tables < 1);
  plan.set_stop(check.met ? "target met" : tables < 1 ? "budget spent" : "stopped");
  file().Write(check, entrants());
  const std::string said = check.Describe(entrants());
  if (check.met) {
    spdlog::info("adaptive schedule: {} after {} rounds, {} matches", said, plan.rounds(),
                 schedule().matches.size());
  } else if (tables < 1) {
    spdlog::warn("adaptive schedule: the budget of {} matches is spent after {} "
                 "rounds; {}", budget_, plan.rounds(), said);
  }
}

}  // namespace arena

