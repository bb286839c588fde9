// arena: the command line. Flags live here only; everything else takes
// option structs or the TournamentConfig message.
//
//   arena match      --game G --bot NAME=COMMAND ... [--seed N] [--records DIR]
//   arena tournament --game G --bot NAME=COMMAND ... [--seats S] --games N
//                    --jobs J --records DIR [--option KEY=VALUE ...]
//   arena replay FILE [--seat S] [--step K]
//   arena verify FILE|DIR
#include <sys/stat.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/launch.h"
#include "arena/logging.h"
#include "arena/record_tools.h"
#include "arena/tournament.h"
#include "referee/record.h"
#include "referee/registry.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, game, "quasenbo", "game to play");
ABSL_FLAG(std::vector<std::string>, bot, {},
          "NAME=COMMAND: a bot and the command that starts it (repeat the flag "
          "for each bot; the command gets ARENA_ADDRESS and ARENA_TOKEN)");
ABSL_FLAG(std::vector<std::string>, option, {},
          "KEY=VALUE: a game option (repeat the flag for each)");
ABSL_FLAG(int, seats, 0, "seats per match (0: the game's default; match: one per bot)");
ABSL_FLAG(int, games, 0, "matches to play (tournament)");
ABSL_FLAG(int, jobs, 1, "matches at a time");
ABSL_FLAG(std::string, records, "",
          "folder for records and standings (default: a new folder "
          "records/<game>-<date>-<time>, printed)");
ABSL_FLAG(uint64_t, seed, 0,
          "a PUBLIC tournament seed for demos and tests: deals are then "
          "predictable to anyone who knows it (0: none; the secret decides)");
ABSL_FLAG(std::string, secret_file, "",
          "file with the tournament secret (64 hex digits) every match seed "
          "derives from; created if missing. Give it to reproduce, resume or "
          "shard a tournament. Default: a fresh secret, kept in memory only");
ABSL_FLAG(std::string, sandbox, "bwrap",
          "how bot processes are isolated: bwrap (bubblewrap: no network, "
          "read-only files, records hidden, own uid and limits) or none (bots "
          "are trusted)");
ABSL_FLAG(int64_t, bot_memory_mb, 1024, "sandbox: data memory per bot process, in MiB");
ABSL_FLAG(int64_t, bot_processes, 256,
          "sandbox: processes and threads per bot (enforced when arena runs as root)");
ABSL_FLAG(int64_t, bot_open_files, 256, "sandbox: open files per bot process");
ABSL_FLAG(int64_t, bot_tmp_mb, 64, "sandbox: size of each bot's private /tmp, in MiB");
ABSL_FLAG(int64_t, decision_ms, 2000, "time allowed for one decision, in ms");
ABSL_FLAG(std::string, fault_policy, "forfeit",
          "what a fault costs: forfeit (the match) or random (a random legal "
          "move is played and the match goes on)");
ABSL_FLAG(int64_t, decision_cap, 0, "decisions after which a match ends (0: game default)");
ABSL_FLAG(bool, auto_moves, true,
          "the referee takes decisions that have only one legal action");
ABSL_FLAG(int, max_restarts, 3, "restarts allowed per bot process");
ABSL_FLAG(int64_t, connect_timeout_ms, 30000, "how long to wait for a bot to connect");
ABSL_FLAG(int, seat, -1, "replay: show only what this seat saw");
ABSL_FLAG(int64_t, step, -1, "replay: stop after this step");
ABSL_FLAG(std::string, log_file, "", "also append the log (stderr) to this file");
ABSL_FLAG(bool, progress, true, "show progress while a tournament runs");
ABSL_FLAG(bool, compress, false,
          "write records zstd-compressed (<id>.jsonl.zst); verify, replay and "
          "standings read both kinds");

namespace arena {
namespace {

constexpr char kUsage[] =
    "arena: matches and tournaments between card-game bots.\n"
    "  arena match      --game G --bot NAME=COMMAND ... [--seed N] [--records DIR]\n"
    "  arena tournament --game G --bot NAME=COMMAND ... [--seats S] --games N\n"
    "                   --jobs J --records DIR [--option KEY=VALUE ...]\n"
    "  arena replay FILE [--seat S] [--step K]\n"
    "  arena verify FILE|DIR\n"
    "Repeat --bot and --option once per value.";

// absl's list flags keep the last occurrence only; --bot and --option are
// repeated instead, so their occurrences are gathered before absl parses the
// rest (each value then goes through absl's own flag parsing).
std::vector<char*> GatherRepeated(int argc, char** argv,
                                  std::vector<std::string>* bots,
                                  std::vector<std::string>* options) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    for (auto [flag, out] : {std::pair{"bot", bots}, std::pair{"option", options}}) {
      const std::string eq = absl::StrCat("--", flag, "=");
      const std::string bare = absl::StrCat("--", flag);
      if (absl::StartsWith(a, eq)) {
        out->push_back(a.substr(eq.size()));
        a.clear();
      } else if (a == bare && i + 1 < argc) {
        out->push_back(argv[++i]);
        a.clear();
      }
    }
    if (!a.empty() || i == 0) rest.push_back(argv[i]);
  }
  return rest;
}

int Fail(const absl::Status& s) {
  std::cerr << "arena: " << s.message() << "\n";
  return 2;
}

absl::StatusOr<v1::TournamentConfig> ConfigFromFlags(
    const std::vector<std::string>& bots, const std::vector<std::string>& options) {
  v1::TournamentConfig c;
  c.set_game(absl::GetFlag(FLAGS_game));
  for (const auto& o : options) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--option '", o, "' is not KEY=VALUE"));
    }
    (*c.mutable_options())[o.substr(0, eq)] = o.substr(eq + 1);
  }
  for (const auto& b : bots) {
    const size_t eq = b.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == b.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--bot '", b, "' is not NAME=COMMAND"));
    }
    v1::BotConfig* bc = c.add_bots();
    bc->set_name(b.substr(0, eq));
    bc->set_command(b.substr(eq + 1));
    auto token = NewToken();
    if (!token.ok()) return token.status();
    bc->set_token(*token);
  }
  c.set_seats(absl::GetFlag(FLAGS_seats));
  c.set_matches(absl::GetFlag(FLAGS_games));
  c.set_jobs(absl::GetFlag(FLAGS_jobs));
  c.set_records_dir(absl::GetFlag(FLAGS_records));
  c.set_seed(absl::GetFlag(FLAGS_seed));
  c.set_secret_file(absl::GetFlag(FLAGS_secret_file));
  c.set_compress_records(absl::GetFlag(FLAGS_compress));
  if (c.records_dir().empty()) {
    // A new folder of its own, never one of an earlier run.
    const std::string stamp =
        absl::FormatTime("%Y%m%d-%H%M%S", absl::Now(), absl::LocalTimeZone());
    std::string dir = absl::StrCat("records/", c.game(), "-", stamp);
    for (int i = 2; std::filesystem::exists(dir); ++i) {
      dir = absl::StrCat("records/", c.game(), "-", stamp, "-", i);
    }
    c.set_records_dir(dir);
    std::cerr << "arena: records go to " << dir << "\n";
  }
  c.mutable_time_control()->set_decision_ms(absl::GetFlag(FLAGS_decision_ms));
  const std::string fp = absl::GetFlag(FLAGS_fault_policy);
  if (fp == "forfeit") {
    c.set_fault_policy(v1::FAULT_POLICY_FORFEIT);
  } else if (fp == "random") {
    c.set_fault_policy(v1::FAULT_POLICY_RANDOM_MOVE);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--fault_policy=", fp, ": use forfeit or random"));
  }
  c.set_decision_cap(absl::GetFlag(FLAGS_decision_cap));
  c.set_auto_moves(absl::GetFlag(FLAGS_auto_moves) ? v1::AUTO_MOVES_SINGLE
                                                   : v1::AUTO_MOVES_NONE);
  c.set_max_restarts(absl::GetFlag(FLAGS_max_restarts));
  c.set_connect_timeout_ms(absl::GetFlag(FLAGS_connect_timeout_ms));
  return c;
}

int RunPlay(bool single, const std::vector<std::string>& bots,
            const std::vector<std::string>& options) {
  auto c = ConfigFromFlags(bots, options);
  if (!c.ok()) return Fail(c.status());
  LaunchOptions lo;
  const std::string sandbox = absl::GetFlag(FLAGS_sandbox);
  if (sandbox == "bwrap") {
    lo.sandbox.enabled = true;
  } else if (sandbox == "none") {
    lo.sandbox.enabled = false;
  } else {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("--sandbox=", sandbox, ": use bwrap or none")));
  }
  struct Limit {
    const char* flag;
    int64_t value, min, max, scale;
    int64_t* out;
  };
  for (const Limit& l :
       {Limit{"bot_memory_mb", absl::GetFlag(FLAGS_bot_memory_mb), 16,
              1 << 20, 1 << 20, &lo.sandbox.memory_bytes},
        Limit{"bot_processes", absl::GetFlag(FLAGS_bot_processes), 4, 1 << 16, 1,
              &lo.sandbox.max_processes},
        Limit{"bot_open_files", absl::GetFlag(FLAGS_bot_open_files), 16, 1 << 20,
              1, &lo.sandbox.max_open_files},
        Limit{"bot_tmp_mb", absl::GetFlag(FLAGS_bot_tmp_mb), 1, 1 << 20,
              1 << 20, &lo.sandbox.tmp_bytes}}) {
    if (l.value < l.min || l.value > l.max) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "--", l.flag, "=", l.value, ": must be in [", l.min, ", ", l.max, "]")));
    }
    *l.out = l.value * l.scale;
  }
  lo.connect_timeout = absl::Milliseconds(c->connect_timeout_ms());
  lo.show_progress = absl::GetFlag(FLAGS_progress) && !single;
  if (single) {
    if (c->seats() == 0) c->set_seats(c->bots_size());
    if (c->seats() != c->bots_size()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "arena match seats one bot per seat: ", c->bots_size(), " bots for ",
          c->seats(), " seats")));
    }
    if (c->matches() == 0) c->set_matches(1);
    for (int i = 0; i < c->bots_size(); ++i) lo.fixed_seating.push_back(i);
  }
  auto st = RunConfiguredTournament(*c, lo);
  if (!st.ok()) return Fail(st.status());
  std::cout << StandingsTable(*st);
  std::cout << "records and standings (standings.csv, standings.json) in "
            << c->records_dir() << "\n";
  return st->records_failed() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace arena

int main(int argc, char** argv) {
  using namespace arena;
  absl::SetProgramUsageMessage(kUsage);
  ::umask(077);  // records, standings, logs and secrets: the organiser's only
  std::vector<std::string> bots, options;
  std::vector<char*> rest = GatherRepeated(argc, argv, &bots, &options);
  std::vector<char*> args =
      absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  if (absl::Status s = SetUpLogging(absl::GetFlag(FLAGS_log_file)); !s.ok()) {
    return Fail(s);
  }
  if (args.size() < 2) {
    std::cerr << kUsage << "\n";
    return 2;
  }
  const std::string cmd = args[1];
  if (cmd == "match" || cmd == "tournament") {
    if (args.size() > 2) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", args[2], "'")));
    }
    if (cmd == "tournament" && absl::GetFlag(FLAGS_games) <= 0) {
      return Fail(absl::InvalidArgumentError("tournament needs --games N (N >= 1)"));
    }
    return RunPlay(cmd == "match", bots, options);
  }
  if (cmd == "verify") {
    if (args.size() != 3) return Fail(absl::InvalidArgumentError("verify FILE|DIR"));
    VerifySummary sum = VerifyPath(args[2]);
    for (const auto& f : sum.failures) std::cout << "FAIL " << f << "\n";
    std::cout << sum.passed << " of " << sum.files << " records verified";
    if (sum.standings_checked > 0) {
      std::cout << (sum.standings_passed == sum.standings_checked
                        ? "; the standings agree with them"
                        : "; the standings DO NOT agree with them");
    }
    if (!sum.failures.empty()) std::cout << ", " << sum.failures.size() << " FAILED";
    std::cout << "\n";
    return sum.failures.empty() && sum.files > 0 ? 0 : 1;
  }
  if (cmd == "replay") {
    if (args.size() != 3) return Fail(absl::InvalidArgumentError("replay FILE"));
    auto lines = ReadRecordFile(args[2]);
    if (!lines.ok()) return Fail(lines.status());
    ReplayOptions ro;
    ro.seat = absl::GetFlag(FLAGS_seat);
    ro.step = absl::GetFlag(FLAGS_step);
    absl::Status s = Replay(*lines, ro, std::cout);
    if (!s.ok()) return Fail(s);
    return 0;
  }
  if (cmd == "games") {
    for (const auto& g : GameNames()) {
      const GameInfo* info = FindGameInfo(g);
      std::cout << g << " (" << info->min_seats << "-" << info->max_seats
                << " seats, default " << info->default_seats << ")\n";
      for (const auto& [k, help] : info->options) std::cout << "  --option " << k << "=...: " << help << "\n";
    }
    return 0;
  }
  std::cerr << "arena: unknown command '" << cmd << "'\n" << kUsage << "\n";
  return 2;
}
