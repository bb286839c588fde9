#include "arena/tournament/target_watch.h"

#include "arena/tournament/plan.h"
#include "arena/tournament/planner.h"

namespace arena {

TargetWatch::TargetWatch(const v1::TournamentConfig& config,
                         const std::vector<int>& fixed_seating, uint64_t schedule_seed,
                         ScheduleFile* file)
    : names_(BotNames(config)), options_(AdaptiveOptionsFor(config)) {
  for (int b = 0; b < static_cast<int>(names_.size()); ++b) index_[names_[b]] = b;
  if (config.bots_size() < 2 || config.bots_size() < config.seats() ||
      !fixed_seating.empty()) {
    return;
  }
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  model_ = std::make_unique<AdaptivePlanner>(config.bots_size(), config.seats(), duplicate,
                                             schedule_seed, options_);
  file->plan().set_top_k(model_->top_k());
  file->plan().set_confidence(options_.confidence);
}

void TargetWatch::Learn(const MatchSummary& match) {
  if (!model_) return;
  std::vector<int> seats;
  for (const std::string& name : match.seat_bots) {
    auto it = index_.find(name);
    seats.push_back(it == index_.end() ? -1 : it->second);
  }
  model_->Observe(seats, match.placements);
}

}  // namespace arena
