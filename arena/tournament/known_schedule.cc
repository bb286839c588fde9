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
    : file_(config, ScheduleKindFor(config, fixed_seating)),
      target_(config, fixed_seating, schedule_seed, &file_),
      schedule_(std::move(schedule)),
      mine_(ShardMatches(config, schedule_)) {
  const int total = static_cast<int>(schedule_.matches.size());
  file_.plan().set_rounds(1);
  file_.plan().set_matches_planned(total);
  file_.plan().add_round_matches(total);
  if (total != config.matches()) {
    spdlog::warn("{} matches rounded up to {}: {} whole deal groups", config.matches(),
                 total, schedule_.deal_groups);
  }
  if (!schedule_.balanced && fixed_seating.empty()) {
    spdlog::warn(
        "{} matches are not whole cycles of the {} seatings: seat positions "
        "are balanced only approximately",
        total, schedule_.cycle);
  }
  if (config.shard_count() > 0) {
    spdlog::info("shard {}/{}: {} of {} matches (deal groups g with g % {} == {})",
                 config.shard_index(), config.shard_count(), mine_.size(), total,
                 config.shard_count(), config.shard_index());
  }
}

Planner::Outline KnownSchedulePlanner::outline() const {
  return {static_cast<int>(mine_.size()), schedule_.deal_groups};
}

std::optional<std::vector<int>> KnownSchedulePlanner::NextBatch(
    const std::function<bool()>& /*stopping*/) {
  if (handed_out_) return std::nullopt;
  handed_out_ = true;
  return mine_;
}

void KnownSchedulePlanner::Finish(bool stopped) {
  if (target_.model() == nullptr) return;
  // How sure the top is after this schedule (the adaptive target).
  const AdaptiveCheck check = target_.model()->Check();
  file_.plan().set_finished(!stopped);
  file_.plan().set_stop(check.Describe(target_.names()));
  file_.Write(check, target_.names());
}

}  // namespace arena
