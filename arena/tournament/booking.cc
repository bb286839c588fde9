#include "arena/tournament/booking.h"

#include <utility>

namespace arena {

absl::StatusOr<std::unique_ptr<RecordWriter>> OpenRecord(const v1::TournamentConfig& config,
                                                         const TournamentHooks& hooks,
                                                         const std::string& match_id) {
  auto writer = RecordWriter::Open(
      config.records_dir(), match_id,
      RecordFormatOf(config.record_format(), config.compress_records()));
  if (writer.ok()) {
    (*writer)->set_spill_every_line(hooks.live_records);
    if (hooks.on_record_finished) (*writer)->set_on_finished(hooks.on_record_finished);
  }
  return writer;
}

Booker::Booker(const v1::TournamentConfig& config, const TournamentSecret& secret,
               const TournamentHooks& hooks, Planner& planner, StandingsSink& standings,
               ProgressLine& progress)
    : config_(config),
      secret_(secret),
      hooks_(hooks),
      planner_(planner),
      standings_(standings),
      progress_(progress) {}

bool Booker::Learn(const MatchSummary& match) {
  planner_.Learn(match);
  return !hooks_.on_recorded || hooks_.on_recorded(match);
}

bool Booker::Book(const MatchSpec& spec, const MatchOutcome& outcome) {
  const bool recorded = outcome.record_status.ok();
  bool go_on = true;
  if (recorded) {
    const MatchSummary summary = SummarizeMatch(spec, outcome);
    standings_.Add(summary);
    go_on = Learn(summary);
  }
  progress_.Booked();
  if (recorded) standings_.RefreshIfDue();
  return go_on;
}

absl::StatusOr<ResumedMatches> Booker::Resume(const std::vector<int>& batch) {
  if (!hooks_.resume) return ResumedMatches{batch, false};
  auto resumed = ResumeFromRecords(config_, secret_, planner_.schedule(), batch,
                                   planner_.outline().matches, standings_.accumulator(),
                                   [this](const MatchSummary& m) { return Learn(m); });
  if (!resumed.ok()) return resumed.status();
  progress_.Resumed(static_cast<int64_t>(batch.size() - resumed->todo.size()));
  return resumed;
}

}  // namespace arena
