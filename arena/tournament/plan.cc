#include "arena/tournament/plan.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "arena/common/json_file.h"
#include "arena/tournament/design.h"
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

absl::Status WriteManifest(const v1::TournamentConfig& config, int matches_planned,
                           int deal_groups, const std::string& tournament_id) {
  const std::string dir = config.records_dir();
  if (absl::Status s = CheckRecordsFolderIsNew(dir); !s.ok()) return s;
  v1::TournamentManifest m;
  m.set_format_version(1);
  *m.mutable_config() = config;
  for (auto& b : *m.mutable_config()->mutable_bots()) b.clear_token();
  m.set_matches_planned(matches_planned);
  m.set_deal_groups(deal_groups);
  m.set_tournament_id(tournament_id);
  if (config.shard_count() > 0) {
    m.set_shard(absl::StrCat(config.shard_index(), "/", config.shard_count()));
  }
  return WriteJsonFile(absl::StrCat(dir, "/manifest.json"), m);
}

absl::Status WriteSchedulePlan(const std::string& dir, const v1::SchedulePlan& plan) {
  return WriteJsonFile(absl::StrCat(dir, "/", kSchedulePlanFile), plan);
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
    // (ValidateConfig refuses a gauntlet bot not in the field, naming it.)
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

namespace {

// B! / (B - S)!, or limit + 1 once it exceeds limit.
int64_t SeatingsOfDistinct(int bots, int seats, int64_t limit) {
  int64_t n = 1;
  for (int k = 0; k < seats; ++k) {
    n *= bots - k;
    if (n > limit) return limit + 1;
  }
  return n;
}

constexpr int64_t kMaxCycle = 1000000;

}  // namespace

v1::ScheduleKind ScheduleKindFor(const v1::TournamentConfig& config,
                                 const std::vector<int>& fixed_seating) {
  if (config.schedule() != v1::SCHEDULE_KIND_UNSPECIFIED) return config.schedule();
  if (!fixed_seating.empty() || !config.gauntlet().empty() ||
      config.bots_size() < config.seats()) {
    return v1::SCHEDULE_KIND_CYCLE;
  }
  const int64_t cycle = SeatingsOfDistinct(config.bots_size(), config.seats(), kMaxCycle);
  return cycle <= kMaxCycle && cycle <= config.matches() ? v1::SCHEDULE_KIND_CYCLE
                                                         : v1::SCHEDULE_KIND_ROUNDS;
}

absl::Status CheckSchedule(const v1::TournamentConfig& config,
                           const std::vector<int>& fixed_seating) {
  const v1::ScheduleKind kind = ScheduleKindFor(config, fixed_seating);
  const int bots = config.bots_size(), seats = config.seats();
  const char* name = kind == v1::SCHEDULE_KIND_ADAPTIVE ? "adaptive" : "rounds";
  switch (kind) {
    case v1::SCHEDULE_KIND_CYCLE:
      if (fixed_seating.empty() && config.gauntlet().empty() && bots >= seats &&
          SeatingsOfDistinct(bots, seats, kMaxCycle) > kMaxCycle) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--schedule cycle: ", bots, " bots at ", seats, " seats have more than ",
            kMaxCycle, " seatings; use --schedule rounds (any number of bots)"));
      }
      return absl::OkStatus();
    case v1::SCHEDULE_KIND_ROUNDS:
    case v1::SCHEDULE_KIND_ADAPTIVE:
      if (!fixed_seating.empty() || !config.gauntlet().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--schedule ", name, " seats the whole field; it does not take ",
            fixed_seating.empty() ? "--gauntlet" : "a fixed seating"));
      }
      if (bots < seats) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--schedule ", name, ": ", bots, " bots for ", seats,
            " seats a match; it needs at least as many bots as seats (the cycle "
            "schedule, the default, lets a bot fill several seats)"));
      }
      break;
    default:
      return absl::InvalidArgumentError("unknown schedule kind");
  }
  if (kind != v1::SCHEDULE_KIND_ADAPTIVE) return absl::OkStatus();
  // (The adaptive settings' ranges are ValidateConfig's: config.h.)
  const v1::AdaptiveSchedule& a = config.adaptive();
  if (config.shard_count() > 0) {
    return absl::InvalidArgumentError(
        "--schedule adaptive plans each round from the results of the last, so "
        "its shards cannot run apart; run it unsharded (docs/contests.md)");
  }
  const int per_table = MatchesPerTable(config);
  const int round_tables = a.round_tables() > 0 ? a.round_tables() : bots / seats;
  const int64_t round = static_cast<int64_t>(round_tables) * per_table;
  if (config.matches() < round) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--games ", config.matches(), " is the adaptive schedule's budget, and it is "
        "below one round: ", round_tables, " tables of ", bots, " bots at ", seats,
        " seats", per_table > 1 ? absl::StrCat(", each played in ", per_table,
                                               " rotations (duplicate deals)")
                                : std::string(),
        ", ", round, " matches"));
  }
  return absl::OkStatus();
}

int MatchesPerTable(const v1::TournamentConfig& config) {
  return config.deal_mode() != v1::DEAL_MODE_INDEPENDENT ? config.seats() : 1;
}

AdaptiveOptions AdaptiveOptionsFor(const v1::TournamentConfig& config) {
  const v1::AdaptiveSchedule& a = config.adaptive();
  AdaptiveOptions o;
  if (a.top_k() > 0) o.top_k = a.top_k();
  if (a.confidence() > 0) o.confidence = a.confidence();
  if (a.explore_every() > 0) o.explore_every = a.explore_every();
  if (a.warmup_rounds() > 0) o.warmup_rounds = a.warmup_rounds();
  if (a.round_tables() > 0) o.tables = a.round_tables();
  return o;
}

Schedule ScheduleOfTables(const std::vector<std::vector<int>>& tables, bool duplicate,
                          int first_index, int first_deal) {
  Schedule sch;
  int i = first_index, deal = first_deal;
  for (const std::vector<int>& t : tables) {
    if (duplicate) {
      for (auto& seating : DistinctRotations(t)) sch.matches.push_back({i++, deal, seating});
      ++deal;
    } else {
      sch.matches.push_back({i++, deal++, t});
    }
  }
  sch.deal_groups = deal - first_deal;
  return sch;
}

absl::StatusOr<Schedule> ScheduleFor(const v1::TournamentConfig& config,
                                     const std::vector<int>& fixed_seating,
                                     uint64_t schedule_seed) {
  if (absl::Status s = CheckSchedule(config, fixed_seating); !s.ok()) return s;
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  const v1::ScheduleKind kind = ScheduleKindFor(config, fixed_seating);
  if (kind == v1::SCHEDULE_KIND_ADAPTIVE) {
    return absl::InvalidArgumentError("an adaptive schedule is planned round by round");
  }
  if (kind == v1::SCHEDULE_KIND_ROUNDS) {
    const int bots = config.bots_size(), seats = config.seats();
    BalancedDesign design(bots, seats, duplicate, schedule_seed);
    const int per_table = MatchesPerTable(config);
    int64_t tables = (static_cast<int64_t>(config.matches()) + per_table - 1) / per_table;
    std::vector<std::vector<int>> all;
    while (tables > 0) {
      const int n = static_cast<int>(std::min<int64_t>(tables, design.tables_per_round()));
      auto round = design.NextRound(n);
      tables -= n;
      all.insert(all.end(), round.begin(), round.end());
    }
    Schedule sch = ScheduleOfTables(all, duplicate, 0, 0);
    sch.cycle = design.tables_per_round() * per_table;
    sch.balanced = true;
    for (int b = 1; b < bots; ++b) {
      if (design.played()[b] != design.played()[0]) sch.balanced = false;
    }
    return sch;
  }
  auto arrangements = ArrangementsFor(config, fixed_seating);
  if (!arrangements.ok()) return arrangements.status();
  return PlanSchedule(*arrangements, config.matches(), duplicate);
}
}  // namespace arena
