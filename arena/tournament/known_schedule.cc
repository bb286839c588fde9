#include "arena/tournament/known_schedule.h"

#include <utility>

#include "arena/tournament/plan.h"
#include "spdlog/spdlog.h"

namespace arena {

absl::StatusOr<std::unique_ptr<KnownSchedulePlanner>> KnownSchedulePlanner::Create(
    const v1::TournamentConfig& config, const std::vector<int>& fixed_seating,
    uint64_t schedule_seed) {
  auto schedule = ScheduleFor(config, fixed_seating, schedule_seed);
  if (!schedule.ok()) return schedule.status();
  return std::unique_ptr<KnownSchedulePlanner>(new KnownSchedulePlanner(
      config, fixed_seating, schedule_seed, *std::move(schedule)));
}

KnownSchedulePlanner::KnownSchedulePlanner(const v1::TournamentConfig& config,
                                           const std::vector<int>& fixed_seating,
                                           uint64_t schedule_seed, Schedule schedule)
    : WatchedPlanner(config, ScheduleKindFor(config, fixed_seating), fixed_seating,
                     schedule_seed),
      mine_(ShardMatches(config, schedule)) {
  mutable_schedule() = std::move(schedule);
  const Schedule& planned = this->schedule();
  const int total = static_cast<int>(planned.matches.size());
  file().plan().set_rounds(1);
  file().plan().set_matches_planned(total);
  file().plan().add_round_matches(total);
  if (total != config.matches()) {
    spdlog::warn("{} matches rounded up to {}: {} whole deal groups", config.matches(),
                 total, planned.deal_groups);
  }
  if (!planned.balanced && fixed_seating.empty()) {
    spdlog::warn(
        "{} matches are not whole cycles of the {} seatings: seat positions "
        "are balanced only approximately",
        total, planned.cycle);
  }
  if (config.shard_count() > 0) {
    spdlog::info("shard {}/{}: {} of {} matches (deal groups g with g % {} == {})",
                 config.shard_index(), config.shard_count(), mine_.size(), total,
                 config.shard_count(), config.shard_index());
  }
}

Planner::Outline KnownSchedulePlanner::outline() const {
  return {static_cast<int>(mine_.size()), schedule().deal_groups};
}

std::optional<std::vector<int>> KnownSchedulePlanner::NextBatch(
    const std::function<bool()>& /*stopping*/) {
  if (handed_out_) return std::nullopt;
  handed_out_ = true;
  return mine_;
}

void KnownSchedulePlanner::Finish(bool stopped) {
  if (target().model() == nullptr) return;
  // How sure the top is after this schedule (the adaptive target).
  const AdaptiveCheck check = target().model()->Check();
  file().plan().set_finished(!stopped);
  file().plan().set_stop(check.Describe(entrants()));
  file().Write(check, entrants());
}

}  // namespace arena
