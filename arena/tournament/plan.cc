#include "arena/tournament/plan.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "arena/common/json_file.h"
#include "referee/records/record.h"

namespace arena {

bool InShard(const v1::TournamentConfig& config, const ScheduledMatch& m) {
  return config.shard_count() <= 1 || m.deal % config.shard_count() == config.shard_index();
}

std::vector<int> ShardMatches(const v1::TournamentConfig& config,
                              const Schedule& schedule) {
  std::vector<int> out;
  for (size_t i = 0; i < schedule.matches.size(); ++i) {
    if (InShard(config, schedule.matches[i])) out.push_back(static_cast<int>(i));
  }
  return out;
}
std::string MatchId(const std::string& game, const std::string& tournament_id,
                    int64_t schedule_index) {
  return absl::StrFormat("%s-%s-%06d", game, tournament_id, schedule_index + 1);
}

std::string DealGroupId(const std::string& game, const std::string& tournament_id,
                        bool duplicate, const ScheduledMatch& m,
                        const std::string& match_id) {
  return duplicate ? absl::StrFormat("%s-%s-g%06d", game, tournament_id, m.deal + 1)
                   : match_id;
}

absl::Status CheckRecordsFolderIsNew(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool busy_hidden =
        name == kInProgressDir && !std::filesystem::is_empty(e.path(), ec);
    if (name == "manifest.json" || IsRecordFileName(name) || busy_hidden) {
      return absl::AlreadyExistsError(absl::StrCat(
          "records folder ", dir, " already holds a tournament (", name,
          "); resume it with --resume ", dir, " or use another folder"));
    }
  }
  return absl::OkStatus();
}

std::string SeatingNote(const v1::TournamentConfig& config,
                        const std::vector<std::vector<int>>& arrangements) {
  const int seats = config.seats();
  int least = seats, most = 0;
  int64_t filled = 0, bots_met = 0;
  for (const std::vector<int>& seating : arrangements) {
    std::map<int, int> per_bot;
    for (int b : seating) ++per_bot[b];
    for (const auto& [bot, n] : per_bot) {
      least = std::min(least, n);
      most = std::max(most, n);
      filled += n;
      ++bots_met;
    }
  }
  if (most <= 1 || bots_met == 0) return "";
  const double mean = static_cast<double>(filled) / static_cast<double>(bots_met);
  const std::string fills =
      least == most ? absl::StrCat(most) : absl::StrFormat("%d to %d", least, most);
  return absl::StrFormat(
      "%s: %d seats a match, %d bots: a bot fills %s seats of a match (%.3g on "
      "average), and its seats play one another too; win%% counts a match as "
      "won when one of its seats placed first",
      config.game(), seats, config.bots_size(), fills, mean);
}

absl::Status WriteManifest(const v1::TournamentConfig& config,
                           const Schedule& schedule, const std::string& tournament_id) {
  const std::string dir = config.records_dir();
  if (absl::Status s = CheckRecordsFolderIsNew(dir); !s.ok()) return s;
  v1::TournamentManifest m;
  m.set_format_version(1);
  *m.mutable_config() = config;
  for (auto& b : *m.mutable_config()->mutable_bots()) b.clear_token();
  m.set_matches_planned(static_cast<int>(ShardMatches(config, schedule).size()));
  m.set_deal_groups(schedule.deal_groups);
  m.set_tournament_id(tournament_id);
  if (config.shard_count() > 0) {
    m.set_shard(absl::StrCat(config.shard_index(), "/", config.shard_count()));
  }
  return WriteJsonFile(absl::StrCat(dir, "/manifest.json"), m);
}
absl::StatusOr<std::vector<std::vector<int>>> ArrangementsFor(
    const v1::TournamentConfig& config, const std::vector<int>& fixed_seating) {
  const int nbots = config.bots_size();
  std::vector<std::vector<int>> arrangements;
  if (!fixed_seating.empty()) {
    arrangements.push_back(fixed_seating);
  } else if (!config.gauntlet().empty()) {
    int hero = -1;
    for (int b = 0; b < nbots; ++b) {
      if (config.bots(b).name() == config.gauntlet()) hero = b;
    }
    if (hero < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gauntlet bot '", config.gauntlet(), "' is not one of the bots"));
    }
    auto a = GauntletArrangements(nbots, config.seats(), hero);
    if (!a.ok()) return a.status();
    arrangements = *std::move(a);
  } else {
    auto a = Arrangements(nbots, config.seats());
    if (!a.ok()) return a.status();
    arrangements = *std::move(a);
  }
  return arrangements;
}

absl::StatusOr<Schedule> ScheduleFor(const v1::TournamentConfig& config,
                                     const std::vector<int>& fixed_seating) {
  auto arrangements = ArrangementsFor(config, fixed_seating);
  if (!arrangements.ok()) return arrangements.status();
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  return PlanSchedule(*arrangements, config.matches(), duplicate);
}
}  // namespace arena
