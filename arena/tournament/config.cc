#include "arena/tournament/config.h"

#include <filesystem>
#include <set>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "referee/games/registry.h"
#include "spdlog/spdlog.h"

namespace arena {

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
constexpr int64_t kMaxWaitMs = 3'600'000;  // connect_timeout_ms, time_control's: 1 hour
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

absl::Duration ConnectTimeout(const v1::TournamentConfig& config) {
  return absl::Milliseconds(config.connect_timeout_ms() > 0 ? config.connect_timeout_ms()
                                                            : kDefaultConnectTimeoutMs);
}

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
  if (absl::Status s = CheckRange("time_control.time_bank_ms", c->time_control().time_bank_ms(),
                                  "0 means no time bank", kMaxWaitMs, " ms: an hour");
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
  if (c->has_adaptive() && c->schedule() != v1::SCHEDULE_KIND_ADAPTIVE) {
    return FieldError("adaptive", "settings of the adaptive schedule, given with another "
                                  "schedule (set schedule: SCHEDULE_KIND_ADAPTIVE)");
  }
  const v1::AdaptiveSchedule& a = c->adaptive();
  if (absl::Status s = CheckRange("adaptive.top_k", a.top_k(), "0 means 8",
                                  std::max(1, c->bots_size() - 1), " for its bots");
      !s.ok()) {
    return s;
  }
  if (!(a.confidence() >= 0 && a.confidence() < 1)) {
    return FieldError("adaptive.confidence",
                      absl::StrCat(a.confidence(), " is not below 1 and at least 0 (0 means 0.95)"));
  }
  for (const auto& [field, value, zero] :
       {std::tuple<const char*, int, const char*>{"adaptive.explore_every", a.explore_every(),
                                                  "0 means 4"},
        {"adaptive.warmup_rounds", a.warmup_rounds(), "0 means 2"},
        {"adaptive.round_tables", a.round_tables(), "0 means bots / seats"}}) {
    if (absl::Status s = CheckRange(field, value, zero, kMaxMatches); !s.ok()) return s;
  }
  if (c->shard_count() > 0 && c->secret_file().empty() && c->seed() == 0) {
    return FieldError("shard_count",
        "a sharded tournament needs a kept secret: give every shard the same "
        "--secret_file (or a public --seed for tests); a fresh secret would "
        "give each shard other deals");
  }
  return absl::OkStatus();
}

}  // namespace arena
