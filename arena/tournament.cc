#include "arena/tournament.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "arena/schedule.h"
#include "google/protobuf/util/json_util.h"
#include "referee/registry.h"
#include "referee/rng.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

absl::Status MakeDirs(const std::string& dir) {
  std::string path;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      path = dir.substr(0, i);
      if (!path.empty() && ::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        return absl::UnavailableError(absl::StrCat(
            "cannot create directory ", path, ": ", std::strerror(errno)));
      }
    }
  }
  return absl::OkStatus();
}

struct Tally {
  int64_t seats = 0, wins = 0, forfeits = 0, faults = 0;
  double score_sum = 0, placement_sum = 0;
  std::map<std::string, int64_t> faults_by_kind;
};

// "FAULT_KIND_TIMEOUT" -> "timeout".
std::string FaultKey(v1::FaultKind k) {
  std::string name = v1::FaultKind_Name(k);
  if (name.rfind("FAULT_KIND_", 0) == 0) name = name.substr(11);
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return name;
}

}  // namespace

absl::Status ValidateConfig(v1::TournamentConfig* c) {
  const GameInfo* info = FindGameInfo(c->game());
  if (info == nullptr) {
    auto g = CreateGame(c->game(), {}, 0);  // for its error text
    return g.status();
  }
  if (c->seats() == 0) c->set_seats(info->default_seats);
  Options opts(c->options().begin(), c->options().end());
  auto game = CreateGame(c->game(), opts, c->seats());
  if (!game.ok()) return game.status();
  if (c->bots_size() == 0) return absl::InvalidArgumentError("no bots given");
  std::set<std::string> names, tokens;
  for (const auto& b : c->bots()) {
    if (b.name().empty()) return absl::InvalidArgumentError("a bot has no name");
    if (!names.insert(b.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("bot name '", b.name(), "' is given twice"));
    }
    if (b.token().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bot '", b.name(), "' has no token"));
    }
    if (!tokens.insert(b.token()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("bot '", b.name(), "' shares its token with another bot"));
    }
  }
  if (c->matches() < 1) {
    return absl::InvalidArgumentError("the number of matches must be at least 1");
  }
  if (c->jobs() <= 0) c->set_jobs(1);
  if (c->time_control().decision_ms() < 0) {
    return absl::InvalidArgumentError("decision time must not be negative");
  }
  if (c->decision_cap() < 0) {
    return absl::InvalidArgumentError("decision cap must not be negative");
  }
  if (c->records_dir().empty()) {
    return absl::InvalidArgumentError("no records directory given");
  }
  if (c->fault_policy() == v1::FAULT_POLICY_UNSPECIFIED) {
    c->set_fault_policy(v1::FAULT_POLICY_FORFEIT);
  }
  if (c->auto_moves() == v1::AUTO_MOVES_UNSPECIFIED) {
    c->set_auto_moves(v1::AUTO_MOVES_SINGLE);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            BotHub& hub,
                                            const TournamentHooks& hooks) {
  Options opts(config.options().begin(), config.options().end());
  auto game_or = CreateGame(config.game(), opts, config.seats());
  if (!game_or.ok()) return game_or.status();
  const Game& game = **game_or;
  const int seats = game.num_seats();
  const int nbots = config.bots_size();

  std::vector<std::vector<int>> arrangements;
  if (!hooks.fixed_seating.empty()) {
    arrangements.push_back(hooks.fixed_seating);
  } else {
    auto a = Arrangements(nbots, seats);
    if (!a.ok()) return a.status();
    arrangements = *std::move(a);
  }
  const int64_t k = static_cast<int64_t>(arrangements.size());
  const bool balanced = config.matches() % k == 0;
  if (!balanced && hooks.fixed_seating.empty()) {
    spdlog::warn(
        "{} matches is not a multiple of the {} seat arrangements of {} bots "
        "in {} seats: seat positions are balanced only approximately",
        config.matches(), k, nbots, seats);
  }
  if (absl::Status s = MakeDirs(config.records_dir()); !s.ok()) return s;

  absl::Mutex mu;
  std::vector<Tally> tally(nbots);
  int64_t done = 0, records_failed = 0;
  std::atomic<int64_t> next{0};
  const absl::Time t0 = absl::Now();
  absl::Time last_progress = t0;

  auto worker = [&] {
    for (;;) {
      const int64_t i = next.fetch_add(1);
      if (i >= config.matches()) return;
      const std::vector<int>& arr = arrangements[i % k];
      MatchSpec spec;
      spec.match_id = absl::StrFormat("%s-s%d-%06d", config.game(), config.seed(), i + 1);
      spec.game_name = config.game();
      spec.options = opts;
      for (int b : arr) spec.seat_bots.push_back(config.bots(b).name());
      spec.seed = DeriveSeed(config.seed(), static_cast<uint64_t>(i));
      spec.time_control = config.time_control();
      spec.fault_policy = config.fault_policy();
      spec.auto_moves = config.auto_moves();
      spec.decision_cap = config.decision_cap();
      if (hooks.ensure_bot) {
        std::set<std::string> needed(spec.seat_bots.begin(), spec.seat_bots.end());
        for (const auto& b : needed) hooks.ensure_bot(b);
      }
      auto writer = RecordWriter::Open(config.records_dir(), spec.match_id);
      MatchOutcome outcome;
      if (!writer.ok()) {
        spdlog::error("match {}: {}", spec.match_id, writer.status().ToString());
        absl::MutexLock lock(&mu);
        ++done;
        ++records_failed;
        continue;
      }
      {
        std::unique_ptr<SeatLink> link = hub.NewMatchLink(spec.match_id, spec.seat_bots);
        outcome = RunMatch(game, spec, *link, **writer);
      }
      absl::MutexLock lock(&mu);
      ++done;
      if (!outcome.record_status.ok()) {
        ++records_failed;
        continue;  // a match without a whole record does not count
      }
      const v1::MatchResult& r = outcome.result;
      for (int s = 0; s < seats; ++s) {
        Tally& t = tally[arr[s]];
        ++t.seats;
        t.score_sum += r.scores(s);
        t.placement_sum += r.placements(s);
        if (r.placements(s) == 1) ++t.wins;
      }
      if (r.end_reason() == v1::END_REASON_FORFEIT) {
        ++tally[arr[r.forfeit_seat()]].forfeits;
      }
      for (const SeatFault& f : outcome.faults) {
        Tally& t = tally[arr[f.seat]];
        ++t.faults;
        ++t.faults_by_kind[FaultKey(f.kind)];
      }
      if (hooks.show_progress &&
          (absl::Now() - last_progress > absl::Seconds(2) || done == config.matches())) {
        last_progress = absl::Now();
        const double secs = absl::ToDoubleSeconds(last_progress - t0);
        std::fprintf(stderr, "[%s] %lld/%d matches (%.0f%%), %.1f matches/s\n",
                     config.game().c_str(), static_cast<long long>(done),
                     config.matches(), 100.0 * done / config.matches(),
                     secs > 0 ? done / secs : 0.0);
      }
    }
  };
  std::vector<std::thread> threads;
  const int jobs = std::max(1, std::min<int>(config.jobs(), config.matches()));
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  v1::Standings st;
  st.set_game(config.game());
  *st.mutable_options() = config.options();
  st.set_seats(seats);
  st.set_matches_played(done - records_failed);
  st.set_matches_planned(config.matches());
  st.set_higher_score_wins(game.info().higher_score_wins);
  st.set_records_failed(records_failed);
  st.set_records_dir(config.records_dir());
  st.set_seed(config.seed());
  st.set_balanced(balanced || !hooks.fixed_seating.empty());
  if (hooks.dropped_bots) {
    for (const auto& b : hooks.dropped_bots()) st.add_dropped_bots(b);
  }
  for (int b = 0; b < nbots; ++b) {
    v1::StandingRow* row = st.add_rows();
    const Tally& t = tally[b];
    row->set_bot(config.bots(b).name());
    row->set_seats_played(t.seats);
    row->set_wins(t.wins);
    row->set_forfeits(t.forfeits);
    row->set_faults(t.faults);
    for (const auto& [k, n] : t.faults_by_kind) (*row->mutable_faults_by_kind())[k] = n;
    row->set_mean_score(t.seats ? t.score_sum / t.seats : 0);
    row->set_mean_placement(t.seats ? t.placement_sum / t.seats : 0);
  }
  std::stable_sort(st.mutable_rows()->begin(), st.mutable_rows()->end(),
                   [](const v1::StandingRow& a, const v1::StandingRow& b) {
                     if (a.mean_placement() != b.mean_placement())
                       return a.mean_placement() < b.mean_placement();
                     return a.wins() > b.wins();
                   });
  return st;
}

std::string StandingsTable(const v1::Standings& st) {
  std::string out = absl::StrFormat(
      "%s, %d seats, %d matches (%s score is better)%s\n", st.game(), st.seats(),
      st.matches_played(), st.higher_score_wins() ? "higher" : "lower",
      st.balanced() ? "" : " [seat positions balanced only approximately]");
  size_t w = 3;
  for (const auto& r : st.rows()) w = std::max(w, r.bot().size());
  out += absl::StrFormat("%-4s %-*s %8s %8s %7s %11s %14s %9s\n", "rank",
                         static_cast<int>(w), "bot", "matches", "wins", "win%",
                         "mean score", "mean placement", "forfeits");
  int rank = 0;
  for (const auto& r : st.rows()) {
    out += absl::StrFormat(
        "%-4d %-*s %8d %8d %6.1f%% %11.3f %14.3f %9d\n", ++rank,
        static_cast<int>(w), r.bot(), r.seats_played(), r.wins(),
        r.seats_played() ? 100.0 * r.wins() / r.seats_played() : 0.0,
        r.mean_score(), r.mean_placement(), r.forfeits());
  }
  for (const auto& b : st.dropped_bots()) {
    out += absl::StrCat("dropped: ", b, " (died too often)\n");
  }
  if (st.records_failed() > 0) {
    out += absl::StrCat("ERROR: ", st.records_failed(),
                        " matches could not be recorded whole and do not count\n");
  }
  return out;
}

std::string StandingsCsv(const v1::Standings& st) {
  std::string out = "rank,bot,matches,wins,mean_score,mean_placement,forfeits\n";
  int rank = 0;
  for (const auto& r : st.rows()) {
    std::string bot = r.bot();
    if (bot.find_first_of(",\"\n") != std::string::npos) {
      std::string q = "\"";
      for (char c : bot) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      bot = q + "\"";
    }
    out += absl::StrFormat("%d,%s,%d,%d,%.6f,%.6f,%d\n", ++rank, bot,
                           r.seats_played(), r.wins(), r.mean_score(),
                           r.mean_placement(), r.forfeits());
  }
  return out;
}

absl::Status WriteStandings(const v1::Standings& st, const std::string& dir) {
  if (absl::Status s = MakeDirs(dir); !s.ok()) return s;
  std::string json;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  auto s = google::protobuf::util::MessageToJsonString(st, &json, o);
  if (!s.ok()) return absl::InternalError(s.ToString());
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{"standings.csv", StandingsCsv(st)},
        {"standings.json", json}}) {
    const std::string path = absl::StrCat(dir, "/", name);
    std::ofstream f(path);
    f << text;
    if (!f.good()) {
      return absl::UnavailableError(absl::StrCat("cannot write ", path));
    }
  }
  return absl::OkStatus();
}

}  // namespace arena
