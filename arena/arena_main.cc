// arena: the command line. Flags live here only; everything else takes
// option structs or the TournamentConfig message.
//
//   arena match      --game G --bot NAME=COMMAND ... [--seed N] [--records DIR]
//   arena tournament --game G --bot NAME=COMMAND ... [--seats S] --games N
//                    --jobs J --records DIR [--option KEY=VALUE ...]
//   arena replay FILE [--seat S] [--step K] [--json]
//   arena verify FILE|DIR
//   arena html DIR [--out OUT] [--replays N]
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/html.h"
#include "arena/launch.h"
#include "arena/record_tools.h"
#include "arena/replay.h"
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
ABSL_FLAG(std::string, records, "records", "directory for records and standings");
ABSL_FLAG(uint64_t, seed, 1, "tournament seed (match seeds derive from it)");
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
ABSL_FLAG(std::string, out, "", "html: folder for the site (default: DIR/html)");
ABSL_FLAG(int, replays, -1, "html: replay pages to write at most (-1: one per record)");
ABSL_FLAG(bool, html, false,
          "match, tournament: also write the HTML site (records folder/html)");
ABSL_FLAG(bool, json, false, "replay: print one JSON document (arena.v1.Replay) for tools");
ABSL_FLAG(bool, progress, true, "show progress while a tournament runs");

namespace arena {
namespace {

constexpr char kUsage[] =
    "arena: matches and tournaments between card-game bots.\n"
    "  arena match      --game G --bot NAME=COMMAND ... [--seed N] [--records DIR]\n"
    "  arena tournament --game G --bot NAME=COMMAND ... [--seats S] --games N\n"
    "                   --jobs J --records DIR [--option KEY=VALUE ...]\n"
    "  arena replay FILE [--seat S] [--step K] [--json]\n"
    "  arena verify FILE|DIR\n"
    "  arena html DIR [--out OUT] [--replays N]   (a static site; or --html on match/tournament)\n"
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
    bc->set_token(NewToken());
  }
  c.set_seats(absl::GetFlag(FLAGS_seats));
  c.set_matches(absl::GetFlag(FLAGS_games));
  c.set_jobs(absl::GetFlag(FLAGS_jobs));
  c.set_records_dir(absl::GetFlag(FLAGS_records));
  c.set_seed(absl::GetFlag(FLAGS_seed));
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

// Flags that only some subcommands read; giving one to another subcommand is
// an error rather than silently ignored.
const std::vector<std::string>& SubcommandFlags() {
  static const auto* names =
      new std::vector<std::string>{"seat", "step", "json", "out", "replays"};
  return *names;
}
const std::vector<std::string>& PlayFlags() {
  static const auto* names = new std::vector<std::string>{
      "game", "seats", "games", "jobs", "records", "seed", "decision_ms",
      "fault_policy", "decision_cap", "auto_moves", "max_restarts",
      "connect_timeout_ms", "progress", "html"};
  return *names;
}
bool FlagChanged(const std::string& name) {
  const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name);
  return f != nullptr && f->CurrentValue() != f->DefaultValue();
}
// OK if `cmd` was given no flag but its own (`allowed`) and, for the play
// subcommands (allowed empty), the play flags.
absl::Status OnlyFlagsOf(const std::string& cmd, const std::vector<std::string>& allowed,
                         const std::vector<std::string>& bots,
                         const std::vector<std::string>& options) {
  std::vector<std::string> check = SubcommandFlags();
  if (!allowed.empty()) {
    check.insert(check.end(), PlayFlags().begin(), PlayFlags().end());
    if (!bots.empty()) return absl::InvalidArgumentError(absl::StrCat("--bot is not a flag of arena ", cmd));
    if (!options.empty()) return absl::InvalidArgumentError(absl::StrCat("--option is not a flag of arena ", cmd));
  }
  for (const auto& name : check) {
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    if (FlagChanged(name)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is not a flag of arena ", cmd));
    }
  }
  return absl::OkStatus();
}

int RunPlay(bool single, const std::vector<std::string>& bots,
            const std::vector<std::string>& options) {
  auto c = ConfigFromFlags(bots, options);
  if (!c.ok()) return Fail(c.status());
  LaunchOptions lo;
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
  if (absl::GetFlag(FLAGS_html)) {
    auto site = WriteHtmlSite(c->records_dir(), {});
    if (!site.ok()) return Fail(site.status());
    std::cout << "HTML site: " << site->out_dir << "/index.html\n";
    if (!site->failures.empty()) return 1;
  }
  return st->records_failed() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace arena

int main(int argc, char** argv) {
  using namespace arena;
  absl::SetProgramUsageMessage(kUsage);
  std::vector<std::string> bots, options;
  std::vector<char*> rest = GatherRepeated(argc, argv, &bots, &options);
  std::vector<char*> args =
      absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  spdlog::set_pattern("[%H:%M:%S.%e] [%l] %v");
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
    if (absl::Status s = OnlyFlagsOf(cmd, {}, bots, options); !s.ok()) return Fail(s);
    if (cmd == "tournament" && absl::GetFlag(FLAGS_games) <= 0) {
      return Fail(absl::InvalidArgumentError("tournament needs --games N (N >= 1)"));
    }
    return RunPlay(cmd == "match", bots, options);
  }
  if (cmd == "verify") {
    if (args.size() != 3) return Fail(absl::InvalidArgumentError("verify FILE|DIR"));
    if (absl::Status s = OnlyFlagsOf("verify", {"none"}, bots, options); !s.ok()) return Fail(s);
    VerifySummary sum = VerifyPath(args[2]);
    for (const auto& f : sum.failures) std::cout << "FAIL " << f << "\n";
    std::cout << sum.passed << " of " << sum.files << " records verified";
    if (!sum.failures.empty()) std::cout << ", " << sum.failures.size() << " FAILED";
    std::cout << "\n";
    return sum.failures.empty() && sum.files > 0 ? 0 : 1;
  }
  if (cmd == "replay") {
    if (args.size() != 3) {
      return Fail(absl::InvalidArgumentError(
          "replay takes one record file: arena replay FILE [--seat S] [--step K] [--json]"));
    }
    if (absl::Status s = OnlyFlagsOf("replay", {"seat", "step", "json"}, bots, options);
        !s.ok()) {
      return Fail(s);
    }
    auto lines = ReadRecordFile(args[2]);
    if (!lines.ok()) return Fail(lines.status());
    ReplayOptions ro;
    ro.seat = absl::GetFlag(FLAGS_seat);
    ro.step = absl::GetFlag(FLAGS_step);
    auto replay = BuildReplay(*lines, ro);
    if (!replay.ok()) return Fail(replay.status());
    if (absl::GetFlag(FLAGS_json)) {
      std::cout << ReplayToJson(*replay) << "\n";
    } else {
      PrintReplayText(*replay, std::cout);
    }
    return 0;
  }
  if (cmd == "html") {
    if (args.size() != 3) {
      return Fail(absl::InvalidArgumentError(
          "html takes one records folder: arena html DIR [--out OUT] [--replays N]"));
    }
    if (absl::Status s = OnlyFlagsOf("html", {"out", "replays"}, bots, options); !s.ok()) {
      return Fail(s);
    }
    HtmlOptions ho;
    ho.out_dir = absl::GetFlag(FLAGS_out);
    ho.max_replays = absl::GetFlag(FLAGS_replays);
    if (ho.max_replays < -1) {
      return Fail(absl::InvalidArgumentError("--replays N: N is 0 or more (-1: all)"));
    }
    auto site = WriteHtmlSite(args[2], ho);
    if (!site.ok()) return Fail(site.status());
    for (const auto& f : site->failures) std::cout << "FAIL " << f << "\n";
    std::cout << site->records << " records, " << site->replay_pages << " replay pages: "
              << site->out_dir << "/index.html\n";
    return site->failures.empty() ? 0 : 1;
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
