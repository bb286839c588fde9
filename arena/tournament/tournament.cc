#include "arena/tournament/tournament.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "arena/records/json_file.h"
#include "arena/records/record_tools.h"
#include "arena/tournament/schedule.h"
#include "arena/stats/standings.h"
#include "google/protobuf/util/json_util.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "referee/game_api/rng.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {


}  // namespace

bool IsValidBotName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") {
    return false;
  }
  for (char ch : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(ch)) && ch != '_' &&
        ch != '.' && ch != '-') {
      return false;
    }
  }
  return true;
}

void PrintProgress(const std::string& game, int64_t done, int64_t total,
                   absl::Duration elapsed, bool terminal) {
  const double secs = absl::ToDoubleSeconds(elapsed);
  const double rate = secs > 0 ? done / secs : 0.0;
  std::string eta = "?";
  if (rate > 0) {
    const int64_t left = static_cast<int64_t>((total - done) / rate + 0.5);
    eta = absl::StrFormat("%d:%02d:%02d", left / 3600, left / 60 % 60, left % 60);
  }
  const double share = total > 0 ? static_cast<double>(done) / total : 1.0;
  if (terminal) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(share * kWidth);
    std::fprintf(stderr, "\r[%s] [%s%s] %lld/%lld (%.0f%%) %.1f matches/s, %s left%s",
                 game.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total),
                 100.0 * share, rate, eta.c_str(), done == total ? "\n" : "  ");
  } else {
    std::fprintf(stderr, "[%s] %lld/%lld matches (%.0f%%), %.1f matches/s, %s left\n",
                 game.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total), 100.0 * share, rate, eta.c_str());
  }
  std::fflush(stderr);
}

absl::Status MakeRecordsDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path path(dir);
  if (fs::is_directory(path, ec)) return absl::OkStatus();
  if (path.has_parent_path() && !path.parent_path().empty()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return absl::UnavailableError(absl::StrCat(
          "cannot create directory ", path.parent_path().string(), ": ",
          ec.message()));
    }
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat("cannot create directory ", dir,
                                               ": ", std::strerror(errno)));
  }
  if (!fs::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, " exists and is not a directory"));
  }
  return absl::OkStatus();
}

absl::StatusOr<TournamentSecret> ResolveSecret(const v1::TournamentConfig& c) {
  if (!c.secret_file().empty()) {
    if (c.seed() != 0) {
      return absl::InvalidArgumentError(
          "give a secret file or a public seed, not both");
    }
    std::error_code ec;
    if (std::filesystem::exists(c.secret_file(), ec)) {
      return TournamentSecret::ReadFile(c.secret_file());
    }
    auto secret = TournamentSecret::Generate();
    if (!secret.ok()) return secret.status();
    if (absl::Status s = secret->WriteFile(c.secret_file()); !s.ok()) return s;
    spdlog::info("wrote a new tournament secret to {} (keep it to reproduce, "
                 "resume or shard this tournament; keep it from the bots)",
                 c.secret_file());
    return secret;
  }
  if (c.seed() != 0) {
    spdlog::warn("public seed {}: every deal is predictable to anyone who "
                 "knows it; use it for demos and tests only",
                 c.seed());
    return TournamentSecret::FromPublicSeed(c.seed());
  }
  return TournamentSecret::Generate();
}

namespace {

// Bounds past which a config value is surely a mistake (docs/config.md).
constexpr int kMaxMatches = 100'000'000;   // rounding up to whole deal groups stays in int
constexpr int64_t kMaxWaitMs = 3'600'000;  // connect_timeout_ms, time_control.decision_ms: 1 hour
constexpr int kMaxRestarts = 100;          // restarts per bot process

// "config field FIELD: WHAT", with the code of the error it comes from.
absl::Status FieldError(absl::string_view field, absl::string_view what,
                        absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  return absl::Status(code, absl::StrCat("config field ", field, ": ", what));
}

// Every enum field of `m` (and of the messages in it) holds a value its enum
// defines: proto3 enums are open, so the text and binary formats take any
// number (`fault_policy: 7`) and leave the check to the reader.
absl::Status CheckEnumValues(const google::protobuf::Message& m, const std::string& prefix) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const std::string name = absl::StrCat(prefix, f->name());
    const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
      for (int j = 0; j < n; ++j) {
        const int v = f->is_repeated() ? r->GetRepeatedEnumValue(m, f, j) : r->GetEnumValue(m, f);
        if (f->enum_type()->FindValueByNumber(v) != nullptr) continue;
        const std::string& type = f->enum_type()->name();
        std::string known;
        for (int k = 0; k < f->enum_type()->value_count(); ++k) {
          absl::StrAppend(&known, k > 0 ? ", " : "", f->enum_type()->value(k)->name());
        }
        const bool vowel = absl::string_view("AEIOU").find(type[0]) != absl::string_view::npos;
        return FieldError(f->is_repeated() ? absl::StrCat(name, "[", j, "]") : name,
                          absl::StrCat(v, " is not ", vowel ? "an " : "a ", type, " (",
                                       known, ")"));
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_map()) {
      if (!f->is_repeated()) {
        if (!r->HasField(m, f)) continue;
        if (absl::Status s = CheckEnumValues(r->GetMessage(m, f), name + "."); !s.ok()) return s;
        continue;
      }
      for (int j = 0; j < n; ++j) {
        if (absl::Status s = CheckEnumValues(r->GetRepeatedMessage(m, f, j),
                                             absl::StrCat(name, "[", j, "]."));
            !s.ok()) {
          return s;
        }
      }
    }
  }
  return absl::OkStatus();
}

// A path or command holds no control character: a NUL would cut it short
// where it is handed to the system, a newline split a command in two.
absl::Status CheckNoControlCharacters(absl::string_view field, absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if (ch < 0x20 || ch == 0x7f) {
      return FieldError(field, absl::StrFormat(
          "holds a control character (byte 0x%02x at offset %d); none is allowed", ch, i));
    }
  }
  return absl::OkStatus();
}

// A negative value, or one above `max` (if max > 0), of an integer field.
absl::Status CheckRange(absl::string_view field, int64_t value, absl::string_view zero_means,
                        int64_t max = 0, absl::string_view unit = "") {
  if (value < 0) {
    return FieldError(field, absl::StrCat(value, " is negative (", zero_means, ")"));
  }
  if (max > 0 && value > max) {
    return FieldError(field, absl::StrCat(value, " is too large (at most ", max, unit, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateConfig(v1::TournamentConfig* c) {
  if (absl::Status s = CheckEnumValues(*c, ""); !s.ok()) return s;
  const GameInfo* info = FindGameInfo(c->game());
  if (info == nullptr) {
    auto g = CreateGame(c->game(), {}, 0);  // for its error text
    return FieldError("game", g.status().message(), g.status().code());
  }
  if (absl::Status s = CheckRange("seats", c->seats(), "0 means the game's default"); !s.ok()) {
    return s;
  }
  if (c->seats() == 0) c->set_seats(info->default_seats);
  Options opts(c->options().begin(), c->options().end());
  auto game = CreateGame(c->game(), opts, c->seats());
  if (!game.ok()) {
    // The seat count, or else the options (the game checks both).
    const bool seats_ok = CreateGame(c->game(), {}, c->seats()).ok();
    return FieldError(seats_ok ? "options" : "seats", game.status().message(),
                      game.status().code());
  }
  if (c->bots_size() == 0) return FieldError("bots", "no bots given");
  if (c->bots_size() > kMaxBots) {
    return FieldError("bots", absl::StrCat(c->bots_size(), " bots are too many (at most ",
                                           kMaxBots, ")"));
  }
  std::set<std::string> names, tokens;
  for (int i = 0; i < c->bots_size(); ++i) {
    const v1::BotConfig& b = c->bots(i);
    const std::string at = absl::StrCat("bots[", i, "]");
    if (b.name().empty()) return FieldError(at + ".name", "a bot has no name");
    if (!IsValidBotName(b.name())) {
      std::string shown = b.name().substr(0, 64);
      for (char& ch : shown) {
        if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
      }
      return FieldError(at + ".name", absl::StrCat(
          "bot name '", shown, b.name().size() > 64 ? "...'" : "'",
          " is not valid: use 1 to 64 of A-Z a-z 0-9 _ . - (and not . or ..)"));
    }
    if (!names.insert(b.name()).second) {
      return FieldError(at + ".name", absl::StrCat("bot name '", b.name(), "' is given twice"));
    }
    if (b.token().empty()) {
      return FieldError(at + ".token", absl::StrCat("bot '", b.name(), "' has no token"));
    }
    // (The token itself is never shown.)
    if (!CheckNoControlCharacters("", b.token()).ok()) {
      return FieldError(at + ".token", absl::StrCat("bot '", b.name(),
                                                    "' has a token with a control character"));
    }
    if (!tokens.insert(b.token()).second) {
      return FieldError(at + ".token",
                        absl::StrCat("bot '", b.name(), "' shares its token with another bot"));
    }
    if (absl::Status s = CheckNoControlCharacters(at + ".command", b.command()); !s.ok()) {
      return s;
    }
  }
  if (c->matches() < 1) {
    return FieldError("matches", absl::StrCat("the number of matches must be at least 1 (it is ",
                                              c->matches(), ")"));
  }
  if (c->matches() > kMaxMatches) {
    return FieldError("matches", absl::StrCat(c->matches(), " is too large (at most ",
                                              kMaxMatches, ")"));
  }
  if (absl::Status s = CheckRange("jobs", c->jobs(), "0 means 1", kMaxJobs); !s.ok()) return s;
  if (c->jobs() == 0) c->set_jobs(1);
  if (absl::Status s = CheckRange("time_control.decision_ms", c->time_control().decision_ms(),
                                  "0 means the default, 10 s", kMaxWaitMs, " ms: an hour");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("decision_cap", c->decision_cap(), "0 means the game's cap");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("connect_timeout_ms", c->connect_timeout_ms(),
                                  "0 means the default", kMaxWaitMs, " ms: an hour");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("max_restarts", c->max_restarts(), "0 means 3", kMaxRestarts);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("standings_every", c->standings_every(), "0 means 20");
      !s.ok()) {
    return s;
  }
  if (c->records_dir().empty()) return FieldError("records_dir", "no records directory given");
  if (absl::Status s = CheckNoControlCharacters("records_dir", c->records_dir()); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckNoControlCharacters("secret_file", c->secret_file()); !s.ok()) {
    return s;
  }
  if (!c->secret_file().empty() && c->seed() != 0) {
    return FieldError("seed", "a public seed and a secret_file: give a secret file or a "
                              "public seed, not both");
  }
  if (!c->gauntlet().empty() && !names.count(c->gauntlet())) {
    return FieldError("gauntlet", absl::StrCat("gauntlet bot '", c->gauntlet(),
                                               "' is not one of the bots"));
  }
  if (c->deal_mode() == v1::DEAL_MODE_UNSPECIFIED) {
    c->set_deal_mode(v1::DEAL_MODE_DUPLICATE);
  }
  if (c->fault_policy() == v1::FAULT_POLICY_UNSPECIFIED) {
    c->set_fault_policy(v1::FAULT_POLICY_FORFEIT);
  }
  if (c->auto_moves() == v1::AUTO_MOVES_UNSPECIFIED) {
    c->set_auto_moves(v1::AUTO_MOVES_SINGLE);
  }
  // (on_bot_failure UNSPECIFIED stays: its meaning depends on the command.)
  if (c->shard_count() < 0 || c->shard_index() < 0 ||
      (c->shard_count() == 0 && c->shard_index() != 0) ||
      (c->shard_count() > 0 && c->shard_index() >= c->shard_count())) {
    return FieldError(c->shard_count() < 0 ? "shard_count" : "shard_index", absl::StrCat(
        "shard ", c->shard_index(), "/", c->shard_count(),
        " is not valid: shard I/N needs N >= 1 and 0 <= I < N"));
  }
  if (c->shard_count() > 0 && c->secret_file().empty() && c->seed() == 0) {
    return FieldError("shard_count",
        "a sharded tournament needs a kept secret: give every shard the same "
        "--secret_file (or a public --seed for tests); a fresh secret would "
        "give each shard other deals");
  }
  return absl::OkStatus();
}

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

absl::Status WriteManifest(const v1::TournamentConfig& config,
                           const Schedule& schedule, const std::string& tournament_id) {
  const std::string dir = config.records_dir();
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

absl::Status FolderContext::Init() {
  auto manifest = ReadManifest(dir_);
  if (manifest.ok()) {
    ctx_ = StandingsContextFor(manifest->config(), manifest->matches_planned());
    from_manifest_ = true;
    return absl::OkStatus();
  }
  if (!absl::IsNotFound(manifest.status())) return manifest.status();
  ctx_.deal_mode = v1::DEAL_MODE_INDEPENDENT;
  return absl::OkStatus();
}

void FolderContext::See(const MatchSummary& m, const std::vector<v1::RecordLine>& lines) {
  ++seen_;
  if (from_manifest_) return;
  if (!have_header_ && !lines.empty() && lines.front().has_header()) {
    const auto& h = lines.front().header();
    ctx_.game = h.game();
    ctx_.options = {h.options().begin(), h.options().end()};
    ctx_.seats = h.num_seats();
    if (lines.back().has_result()) {
      ctx_.higher_score_wins = lines.back().result().higher_score_wins();
    }
    have_header_ = true;
  }
  if (!m.deal_group.empty() && m.deal_group != m.match_id) {
    ctx_.deal_mode = v1::DEAL_MODE_DUPLICATE;
  }
}

absl::StatusOr<StandingsContext> FolderContext::Get() const {
  if (!from_manifest_ && seen_ == 0) {
    return absl::NotFoundError(absl::StrCat("no records in ", dir_));
  }
  return ctx_;
}

absl::StatusOr<v1::TournamentManifest> ReadManifest(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/manifest.json");
  v1::TournamentManifest m;
  if (absl::Status s = ReadJsonFile(path, &m); !s.ok()) {
    return absl::IsNotFound(s) ? absl::NotFoundError(absl::StrCat("no manifest: ", s.message()))
                               : s;
  }
  if (m.format_version() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": manifest format ", m.format_version(), " is not supported (1 is)"));
  }
  return m;
}

StandingsContext StandingsContextFor(const v1::TournamentConfig& config,
                                     int matches_planned) {
  StandingsContext ctx;
  ctx.game = config.game();
  ctx.options = {config.options().begin(), config.options().end()};
  ctx.seats = config.seats();
  if (const GameInfo* info = FindGameInfo(config.game()); info != nullptr) {
    ctx.higher_score_wins = info->higher_score_wins;
    if (ctx.seats == 0) ctx.seats = info->default_seats;
  }
  for (const auto& b : config.bots()) ctx.bots.push_back(b.name());
  ctx.matches_planned = matches_planned;
  ctx.deal_mode = config.deal_mode() == v1::DEAL_MODE_UNSPECIFIED
                      ? v1::DEAL_MODE_DUPLICATE
                      : config.deal_mode();
  return ctx;
}

absl::StatusOr<Schedule> ScheduleFor(const v1::TournamentConfig& config,
                                     const std::vector<int>& fixed_seating) {
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
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  return PlanSchedule(arrangements, config.matches(), duplicate);
}

namespace {

// Moves `path` into the records folder's .rejected/ (never deletes it).
void Reject(const std::string& dir, const std::string& path, const std::string& why) {
  const std::string rejected = absl::StrCat(dir, "/", kRejectedDir);
  std::error_code ec;
  std::filesystem::create_directories(rejected, ec);
  const std::string to = absl::StrCat(
      rejected, "/", std::filesystem::path(path).filename().string(), ".",
      absl::ToUnixMicros(absl::Now()));
  std::filesystem::rename(path, to, ec);
  spdlog::warn("resume: {} moved to {} ({}); its match is played again", path, to,
               why);
}

}  // namespace

absl::StatusOr<v1::Standings> RunTournament(const v1::TournamentConfig& config,
                                            const TournamentSecret& secret,
                                            BotHub& hub,
                                            const TournamentHooks& hooks) {
  Options opts(config.options().begin(), config.options().end());
  auto game_or = CreateGame(config.game(), opts, config.seats());
  if (!game_or.ok()) return game_or.status();
  const Game& game = **game_or;

  auto schedule_or = ScheduleFor(config, hooks.fixed_seating);
  if (!schedule_or.ok()) return schedule_or.status();
  const Schedule& schedule = *schedule_or;
  const int total = static_cast<int>(schedule.matches.size());
  // This run's matches (all of them but with --shard), in schedule order.
  const std::vector<int> mine = ShardMatches(config, schedule);
  const int planned = static_cast<int>(mine.size());
  const bool duplicate = config.deal_mode() != v1::DEAL_MODE_INDEPENDENT;
  if (total != config.matches()) {
    spdlog::warn("{} matches rounded up to {}: {} whole deal groups", config.matches(),
                 total, schedule.deal_groups);
  }
  if (!schedule.balanced && hooks.fixed_seating.empty()) {
    spdlog::warn(
        "{} matches are not whole cycles of the {} seatings: seat positions "
        "are balanced only approximately",
        total, schedule.cycle);
  }
  if (config.shard_count() > 0) {
    spdlog::info("shard {}/{}: {} of {} matches (deal groups g with g % {} == {})",
                 config.shard_index(), config.shard_count(), planned, total,
                 config.shard_count(), config.shard_index());
  }
  if (absl::Status s = MakeRecordsDir(config.records_dir()); !s.ok()) return s;
  const std::string tournament_id = secret.TournamentId();
  const StandingsContext context = StandingsContextFor(config, planned);
  auto match_id = [&](int64_t i) {
    return absl::StrFormat("%s-%s-%06d", config.game(), tournament_id, i + 1);
  };
  auto deal_group = [&](const ScheduledMatch& sm, const std::string& id) {
    return duplicate ? absl::StrFormat("%s-%s-g%06d", config.game(), tournament_id,
                                       sm.deal + 1)
                     : id;
  };
  // The standings so far: tallies, not matches (memory does not grow with
  // the tournament).
  StandingsAccumulator standings(context);
  std::vector<int> todo;  // schedule indices still to play
  bool stop_at_start = false;  // on_recorded said stop while resuming
  if (!hooks.resume) {
    if (absl::Status s = WriteManifest(config, schedule, tournament_id); !s.ok()) return s;
    todo = mine;
  } else {
    const std::string dir = config.records_dir();
    auto manifest = ReadManifest(dir);
    if (!manifest.ok()) return manifest.status();
    if (manifest->tournament_id() != tournament_id) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot resume ", dir, ": its tournament id is ", manifest->tournament_id(),
          ", this secret's is ", tournament_id,
          " (another secret, or none was kept: give the tournament's --secret_file)"));
    }
    if (manifest->config().shard_index() != config.shard_index() ||
        manifest->config().shard_count() != config.shard_count()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot resume ", dir, ": it holds shard ", manifest->config().shard_index(),
          "/", manifest->config().shard_count(), ", this run is shard ",
          config.shard_index(), "/", config.shard_count(), " (0/0: unsharded)"));
    }
    if (manifest->matches_planned() != planned) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot resume ", dir, ": it plans ", manifest->matches_planned(),
          " matches, this config ", planned));
    }
    // Unfinished records: their matches are played again from the start.
    std::error_code ec;
    const std::string hidden = absl::StrCat(dir, "/", kInProgressDir);
    for (const auto& e : std::filesystem::directory_iterator(hidden, ec)) {
      if (absl::EndsWith(e.path().string(), ".sent")) {
        // A match's sent log (referee/match/sent_log.h): only for its resyncs.
        std::filesystem::remove(e.path(), ec);
        continue;
      }
      Reject(dir, e.path().string(), "unfinished");
    }
    for (int i : mine) {
      const ScheduledMatch& sm = schedule.matches[i];
      const std::string id = match_id(i);
      // A record, plain or compressed (a folder holds one kind, but resume
      // takes either).
      std::string path = absl::StrCat(dir, "/", id, ".jsonl");
      auto present = [&](const std::string& p) {
        return std::filesystem::exists(std::filesystem::symlink_status(p, ec));
      };
      if (!present(path)) path = absl::StrCat(dir, "/", id, kCompressedSuffix);
      if (!present(path)) {
        todo.push_back(i);
        continue;
      }
      // Only a regular file counts (a FIFO or link named like the record
      // is moved aside, never opened or followed, and the match replayed).
      absl::Status regular = CheckRegularFile(path, /*follow_symlink=*/false);
      auto lines = regular.ok() ? ReadRecordFile(path)
                                : absl::StatusOr<std::vector<v1::RecordLine>>(regular);
      absl::Status ok = lines.ok() ? VerifyRecord(*lines, path) : lines.status();
      if (ok.ok()) {
        const v1::RecordHeader& h = lines->front().header();
        std::vector<std::string> bots;
        for (int b : sm.seating) bots.push_back(config.bots(b).name());
        const uint64_t seed = secret.ForMatch(static_cast<uint64_t>(sm.deal), id).seed;
        if (h.match_id() != id || h.seed() != seed ||
            std::vector<std::string>(h.seat_bots().begin(), h.seat_bots().end()) != bots ||
            h.deal_group() != deal_group(sm, id)) {
          ok = absl::FailedPreconditionError("not the scheduled match");
        }
      }
      absl::StatusOr<MatchSummary> m =
          ok.ok() ? SummarizeRecord(*lines, path) : absl::StatusOr<MatchSummary>(ok);
      if (!m.ok()) {
        Reject(dir, path, std::string(m.status().message()));
        todo.push_back(i);
        continue;
      }
      if (absl::Status s = standings.Add(*m); !s.ok()) {
        Reject(dir, path, std::string(s.message()));
        todo.push_back(i);
        continue;
      }
      if (hooks.on_recorded && !hooks.on_recorded(*m)) stop_at_start = true;
    }
    spdlog::info("resume: {} of {} matches recorded, {} to play", standings.matches(),
                 planned, todo.size());
  }

  // Duplicate deals with fresh bot processes between rotations: the matches
  // to play, rotation by rotation (phase k: the k-th match of every group).
  std::vector<size_t> phase_ends;  // end of each phase in `todo`
  if (duplicate && hooks.new_bot_processes) {
    std::vector<int> rotation(total, 0);
    std::map<int, int> seen;  // deal -> matches of it so far
    for (int i = 0; i < total; ++i) rotation[i] = seen[schedule.matches[i].deal]++;
    std::stable_sort(todo.begin(), todo.end(),
                     [&](int a, int b) { return rotation[a] < rotation[b]; });
    for (size_t t = 1; t <= todo.size(); ++t) {
      if (t == todo.size() || rotation[todo[t]] != rotation[todo[t - 1]]) {
        phase_ends.push_back(t);
      }
    }
  } else {
    phase_ends.push_back(todo.size());
    if (duplicate && !hooks.fixed_seating.empty()) {
      // one seating: nothing to rotate
    } else if (duplicate) {
      spdlog::warn(
          "duplicate deals with bot processes that live through the whole "
          "tournament: a bot that remembers a deal from one rotation knows "
          "other seats' hands when it comes round again; between untrusted "
          "bots, use independent deals");
    }
  }

  // On a terminal, one line redrawn in place (a bar and the time left);
  // otherwise (a log, CI) a plain line every tenth of the matches.
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  const int64_t progress_every = std::max<int64_t>(1, static_cast<int64_t>(todo.size()) / 10);
  absl::Mutex mu;
  int64_t done = 0;
  const int64_t to_play = static_cast<int64_t>(todo.size());
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> phase_end{0};
  std::atomic<bool> stopped{stop_at_start};
  const absl::Time t0 = absl::Now();
  absl::Time last_progress = t0;
  const int every = config.standings_every() > 0 ? config.standings_every() : 20;
  absl::Mutex write_mu;  // standings refreshes, one at a time
  // A refresh that took d holds the next one off for 9 d (under mu), so that
  // refreshes cost at most about a tenth of the time however large the
  // tournament grows (the final standings are always written).
  absl::Time next_refresh = absl::InfinitePast();

  // Called by this thread only, like `book`: the accumulator is not shared.
  auto refresh = [&]() {
    absl::MutexLock lock(&write_mu);
    const absl::Time start = absl::Now();
    auto st = standings.Build();
    {
      absl::MutexLock lock(&mu);
      next_refresh = absl::Now() + 9 * (absl::Now() - start);
    }
    if (!st.ok()) {
      spdlog::error("standings: {}", st.status().ToString());
      return;
    }
    if (absl::Status s = WriteStandings(*st, config.records_dir()); !s.ok()) {
      spdlog::error("{}", s.ToString());
    }
  };

  // Matches are state machines driven by the bots' answers on gRPC's
  // threads and by the deadline timer (referee/match/match_runner.h): this thread
  // only starts them, `jobs` at a time, and books each one as it ends.
  struct Finished {
    MatchSpec spec;
    MatchOutcome outcome;
  };
  absl::Mutex live_mu;
  int live = 0;                     // matches started and not yet booked
  int peak_live = 0;                // the most matches live at once
  std::deque<Finished> finished;    // ended, to be booked by this thread
  auto book = [&](std::deque<Finished>& batch) {
    for (Finished& f : batch) {
      bool refresh_due = false;
      {
        absl::MutexLock lock(&mu);
        ++done;
        if (f.outcome.record_status.ok()) {  // a match without a whole record does not count
          const MatchSummary summary = SummarizeMatch(f.spec, f.outcome);
          if (absl::Status s = standings.Add(summary); !s.ok()) {
            spdlog::error("standings: {}", s.ToString());  // our own match: a bug
          }
          if (hooks.on_recorded && !hooks.on_recorded(summary)) {
            stopped.store(true);  // stop: no further match is started
          }
          if (standings.matches() % every == 0 && absl::Now() >= next_refresh) {
            refresh_due = true;
            next_refresh = absl::InfiniteFuture();  // until this one is done
          }
        }
        const bool progress_due =
            done == to_play ||
            (terminal ? absl::Now() - last_progress > absl::Milliseconds(250)
                      : done % progress_every == 0);
        if (hooks.show_progress && progress_due) {
          last_progress = absl::Now();
          PrintProgress(config.game(), done, to_play, last_progress - t0, terminal);
        }
      }
      if (refresh_due) refresh();
    }
    batch.clear();
  };
  // Waits until fewer than `limit` matches are live, booking those that end.
  auto wait_below = [&](int limit) {
    std::deque<Finished> batch;
    for (;;) {
      {
        absl::MutexLock lock(&live_mu);
        auto ready = [&] { return live < limit || !finished.empty(); };
        live_mu.Await(absl::Condition(&ready));
        batch.swap(finished);
        if (batch.empty() && live < limit) return;
      }
      book(batch);
    }
  };
  const int jobs = std::max<int64_t>(1, std::min<int64_t>(config.jobs(), to_play));
  int64_t t = 0;
  for (size_t p = 0; p < phase_ends.size() && !stopped.load(); ++p) {
    if (p > 0) {
      wait_below(1);  // the rotation's matches are all over
      spdlog::info("rotation {} of {}: every bot process is replaced by a fresh one",
                   p + 1, phase_ends.size());
      if (absl::Status s = hooks.new_bot_processes(); !s.ok()) {
        spdlog::error("cannot start fresh bot processes: {}", s.ToString());
        // Played on: each bot that is not connected faults (policy decides).
      }
    }
    for (; t < static_cast<int64_t>(phase_ends[p]); ++t) {
      wait_below(jobs);
      if (stopped.load()) break;
      const int64_t i = todo[t];
      const ScheduledMatch& sm = schedule.matches[i];
      MatchSpec spec;
      spec.match_id = match_id(i);
      spec.deal_group = deal_group(sm, spec.match_id);
      spec.game_name = config.game();
      spec.options = opts;
      for (int b : sm.seating) spec.seat_bots.push_back(config.bots(b).name());
      // Every match of a deal group has the group's seed (and salt).
      const MatchSecrets ms =
          secret.ForMatch(static_cast<uint64_t>(sm.deal), spec.match_id);
      spec.seed = ms.seed;
      spec.seed_salt = ms.salt;
      spec.seed_commitment = ms.commitment;
      spec.tournament_id = tournament_id;
      spec.predictable_seed = secret.predictable();
      spec.time_control = config.time_control();
      spec.fault_policy = config.fault_policy();
      spec.auto_moves = config.auto_moves();
      spec.decision_cap = config.decision_cap();
      if (hooks.ensure_bot) {
        std::set<std::string> needed(spec.seat_bots.begin(), spec.seat_bots.end());
        for (const auto& b : needed) hooks.ensure_bot(b);
      }
      auto writer = RecordWriter::Open(config.records_dir(), spec.match_id,
                                       config.compress_records());
      if (!writer.ok()) {
        spdlog::error("match {}: {}", spec.match_id, writer.status().ToString());
        absl::MutexLock lock(&mu);
        ++done;
        continue;
      }
      {
        absl::MutexLock lock(&live_mu);
        peak_live = std::max(peak_live, ++live);
      }
      std::shared_ptr<SeatLink> link = hub.NewMatchLink(spec.match_id, spec.seat_bots);
      auto match = Match::Create(
          game, spec, std::move(link), std::shared_ptr<RecordWriter>(*std::move(writer)),
          [&live_mu, &live, &finished, spec](MatchOutcome outcome) {
            absl::MutexLock lock(&live_mu);
            --live;
            finished.push_back({spec, std::move(outcome)});
          });
      match->Start();
    }
  }
  wait_below(1);
  {
    absl::MutexLock lock(&live_mu);
    spdlog::info("{} matches played, at most {} of them at once", t, peak_live);
  }

  auto st = standings.Build();
  if (!st.ok()) return st.status();
  // A failure here is logged; the caller writes the final standings again
  // (with the descriptors it kept in reserve) and fails if that fails too.
  if (absl::Status s = WriteStandings(*st, config.records_dir()); !s.ok()) {
    spdlog::error("{}", s.ToString());
  }
  return st;
}

}  // namespace arena
