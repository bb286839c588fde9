#include "arena/tournament/schedule_file.h"

#include "arena/tournament/plan.h"
#include "spdlog/spdlog.h"

namespace arena {

ScheduleFile::ScheduleFile(const v1::TournamentConfig& config, v1::ScheduleKind kind)
    : dir_(config.records_dir()) {
  plan_.set_kind(kind);
  plan_.set_bots(config.bots_size());
  plan_.set_seats(config.seats());
}

void ScheduleFile::Write(const AdaptiveCheck& check, const std::vector<std::string>& names) {
  plan_.clear_comparisons();
  for (const AdaptiveComparison& c : check.comparisons) {
    v1::PlanComparison* pc = plan_.add_comparisons();
    pc->set_ahead(names[c.ahead]);
    pc->set_behind(names[c.behind]);
    pc->set_elo_diff(c.elo_diff);
    pc->set_sd(c.sd);
    pc->set_p(c.p);
    pc->set_separated(c.separated);
  }
  if (absl::Status s = WriteSchedulePlan(dir_, plan_); !s.ok()) {
    spdlog::error("{}", s.ToString());
  }
}

}  // namespace arena
