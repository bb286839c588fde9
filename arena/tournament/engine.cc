#include "arena/tournament/engine.h"

#include <utility>

#include "arena/records/folder.h"
#include "arena/tournament/booking.h"
#include "arena/tournament/match_pump.h"
#include "arena/tournament/plan.h"
#include "arena/tournament/progress.h"
#include "arena/tournament/standings_sink.h"
#include "referee/games/registry.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// Duplicate deals to bot processes that live through the whole contest.
void WarnOfRememberedDeals(const v1::TournamentConfig& config, const TournamentHooks& hooks) {
  // (An adaptive schedule has no fixed seating: CheckSchedule.)
  if (config.deal_mode() != v1::DEAL_MODE_INDEPENDENT && !hooks.new_bot_processes &&
      hooks.fixed_seating.empty()) {
    spdlog::warn(
        "duplicate deals with bot processes that live through the whole "
        "tournament: a bot that remembers a deal from one rotation knows "
        "other seats' hands when it comes round again; between untrusted "
        "bots, use independent deals");
  }
}

// Batch by batch until the planner says the contest is over; then the
// planner finishes.
absl::Status PlayBatches(Planner& planner, Booker& booker, MatchPump& pump) {
  const auto stopping = [&pump] {
    pump.StorageStopped();
    return pump.stopped();
  };
  while (std::optional<std::vector<int>> batch = planner.NextBatch(stopping)) {
    auto todo = booker.Resume(*batch);
    if (!todo.ok()) return todo.status();
    if (todo->stop) pump.Stop();  // on_recorded said stop
    pump.Play(planner.schedule(), planner.entrants(), std::move(todo->todo));
  }
  planner.Finish(pump.stopped());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Standings> RunContest(const v1::TournamentConfig& config,
                                         const TournamentSecret& secret, BotHub& hub,
                                         const TournamentHooks& hooks, Planner& planner) {
  auto game = CreateGame(config.game(), Options(config.options().begin(), config.options().end()),
                         config.seats());
  if (!game.ok()) return game.status();
  const Planner::Outline outline = planner.outline();
  if (absl::Status s = MakeRecordsDir(config.records_dir()); !s.ok()) return s;
  StandingsSink standings(config, outline.matches);
  if (!hooks.resume) {
    if (absl::Status s = WriteManifest(config, outline.matches, outline.deal_groups,
                                       secret.TournamentId());
        !s.ok()) {
      return s;
    }
  }
  WarnOfRememberedDeals(config, hooks);
  ProgressLine progress(config.game(), outline.matches, hooks.show_progress);
  Booker booker(config, secret, hooks, planner, standings, progress);
  {
    MatchPump pump(config, secret, **game, hub, hooks, booker);
    if (absl::Status s = PlayBatches(planner, booker, pump); !s.ok()) return s;
    pump.Report();
  }
  return standings.Final();
}

}  // namespace arena
