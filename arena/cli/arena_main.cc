// arena: the command line. Flags live here only: this file turns them into
// option structs and the TournamentConfig message (or reads the config of a
// folder to resume), checks which flags each command takes and prints help
// with the command table (command_table.h), and hands over to the command's
// function: RunTournamentCommand (tournament_command.h), RunGate
// (gate_command.h), RunStandings (standings_command.h), RunVerify,
// RunReplay, RunCat, RunHtml and RunGames (record_commands.h),
// RunReplayRequests (repro_commands.h), RunCheckBot (check_bot_command.h),
// RunReplayBot (replay_bot_command.h), RunHumanSeat (play_command.h).
//
// The commands (`arena help COMMAND` gives each one's flags, from the
// command table):
//   arena match       one match, one bot per seat
//   arena tournament  a round robin, rounds or an adaptive contest; --resume, --shard
//   arena gate        an SPRT of a candidate against a baseline
//   arena play        a person at the terminal against bots
//   arena check-bot   a bot's checklist before a contest
//   arena standings   the standings rebuilt from records (one folder or several)
//   arena verify      records re-simulated, and a folder's standings checked
//   arena replay      a record step by step, in words; --requests: what a seat was sent
//   arena replay-bot  a repro bundle re-fed to a bot
//   arena cat         records of any format as JSON lines
//   arena html        the static site of a records folder
//   arena serve       the live site of a records folder (serve_command.h)
//   arena games       the games and their options
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/cli/check_bot_command.h"
#include "arena/cli/command.h"
#include "arena/cli/command_table.h"
#include "arena/cli/flags_check.h"
#include "arena/cli/gate_command.h"
#include "arena/cli/play_command.h"
#include "arena/cli/logging.h"
#include "arena/cli/stop_signals.h"
#include "arena/cli/ladder_command.h"
#include "arena/cli/tournament_command.h"
#include "arena/cli/record_commands.h"
#include "arena/cli/replay_bot_command.h"
#include "arena/cli/repro_commands.h"
#include "arena/cli/serve_command.h"
#include "arena/cli/standings_command.h"
#include "arena/live/http_server.h"
#include "arena/tournament/config.h"
#include "arena/tournament/launch.h"
#include "arena/tournament/resume.h"
#include "arena/views/html.h"

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
ABSL_FLAG(int64_t, time_bank_ms, 0,
          "a bank of extra time per seat per match, in ms: a decision may run past "
          "--decision_ms by spending from it (0: none)");
ABSL_FLAG(bool, inherit_env, false,
          "replay-bot: run the bot with your environment and PATH (as --sandbox none "
          "does), not the sandbox's");
ABSL_FLAG(std::string, fault_policy, "forfeit",
          "what a fault costs: forfeit (the match) or random (a random legal "
          "move is played and the match goes on)");
ABSL_FLAG(int64_t, decision_cap, 0, "decisions after which a match ends (0: game default)");
ABSL_FLAG(bool, auto_moves, true,
          "the referee takes decisions that have only one legal action");
ABSL_FLAG(int, max_restarts, 3, "restarts allowed per bot process");
ABSL_FLAG(std::string, on_bot_failure, "",
          "a bot that does not start, exits before connecting, does not connect "
          "in time or keeps crashing: withdraw (its remaining matches are its "
          "forfeits; the default of tournament and gate) or abort (stop at once; "
          "the default of match)");
ABSL_FLAG(int64_t, connect_timeout_ms, 30000,
          "how long to wait for a bot to connect (0: the default, 30 s)");
ABSL_FLAG(int, max_live_bots, 0,
          "bot processes live at once (0: the largest of 32, 4 * jobs * seats "
          "and, for at most 64 bots, seats * bots: a process per rotation of "
          "each deal); "
          "with more bots, each bot's process starts for its matches and stops "
          "when idle");
ABSL_FLAG(int64_t, bot_idle_ms, 5000,
          "with more bots than --max_live_bots: stop a bot's process after this "
          "long without a match, in ms");
ABSL_FLAG(int, seat, -1, "replay: show only what this seat saw");
ABSL_FLAG(int64_t, step, -1, "replay: stop after this step");
ABSL_FLAG(std::string, log_file, "", "also append the log (stderr) to this file");
ABSL_FLAG(bool, fresh_bots_per_rotation, true,
          "duplicate deals: replace every bot process by a fresh one between "
          "seat rotations, so that no process sees a deal twice");
ABSL_FLAG(std::string, out, "",
          "html: folder for the site (default: DIR/html); standings: folder for "
          "the combined standings of the folders given");
ABSL_FLAG(int, replays, -1, "html: replay pages to write at most (-1: one per record)");
ABSL_FLAG(bool, html, false,
          "match, tournament: also write the HTML site (records folder/html)");
ABSL_FLAG(bool, show_notes, false,
          "html, serve (and --html, --serve): the bots' notes beside their decisions in "
          "finished matches' replay pages; never in a match in progress");
ABSL_FLAG(std::string, serve, "",
          "serve: the address to serve at (default 127.0.0.1:8080); match, "
          "tournament, ladder run: also serve the live site at HOST:PORT while it runs "
          "(docs/live.md; 0.0.0.0 only behind a proxy with TLS and auth)");
ABSL_FLAG(double, spectator_delay_s, 0,
          "serve, tournament --serve: show matches in progress this many seconds late");
ABSL_FLAG(int, serve_updates_per_s, 1500,
          "serve, tournament --serve: updates sent to open pages a second at most "
          "(more pages than this allows every 0.75 s: each is updated less often)");
ABSL_FLAG(int, serve_max_connections, 2048,
          "serve, tournament --serve: connections at once (more are closed)");
ABSL_FLAG(std::optional<bool>, live_records, std::nullopt,
          "match, tournament: true or false: write each record line as it comes, so "
          "that `arena serve` shows matches in progress (default: on with --serve)");
ABSL_FLAG(bool, progress, true, "show progress while a tournament runs");
ABSL_FLAG(bool, duplicate, true,
          "duplicate deals: each deal is played once for every rotation of the "
          "seating (--duplicate=false: a deal of its own for every match)");
ABSL_FLAG(std::string, gauntlet, "",
          "NAME: this bot meets every other bot; the others do not meet each other");
ABSL_FLAG(std::string, schedule, "auto",
          "tournament: auto, cycle, rounds or adaptive (docs/contests.md)");
ABSL_FLAG(int, top_k, 0, "adaptive: the top K to name in order (0: 8)");
ABSL_FLAG(double, confidence, 0, "adaptive: familywise confidence of the top K's order (0: 0.95)");
ABSL_FLAG(int, explore_every, 0,
          "adaptive: every bot plays at least once in as many rounds (0: 4)");
ABSL_FLAG(int, warmup_rounds, 0, "adaptive: balanced rounds before adapting (0: 2)");
ABSL_FLAG(int, round_tables, 0, "adaptive: tables a round at least (0: bots / seats)");
ABSL_FLAG(int, standings_every, 20, "rewrite the standings every N recorded matches");
ABSL_FLAG(std::string, shard, "",
          "tournament: I/N plays shard I of N (0 <= I < N): the deal groups g "
          "with g % N == I, with the same match ids, seeds and seatings as the "
          "whole tournament; needs --secret_file (the same file for every "
          "shard); merge the shard folders with arena standings --out");
ABSL_FLAG(std::string, resume, "",
          "DIR: resume the tournament in DIR (its manifest.json gives the "
          "config); plays only the matches without a complete, verified record");
ABSL_FLAG(std::string, entrant, "", "ladder submit, withdraw: the entrant's name");
ABSL_FLAG(std::string, command, "", "ladder submit: the bot's command line");
ABSL_FLAG(int64_t, matches, 0, "ladder run: stop after this many rated matches (0: never)");
ABSL_FLAG(int64_t, freeze_at, 0,
          "ladder run: close submissions after this many rated matches (0: only "
          "when the file DIR/freeze appears)");
ABSL_FLAG(int, final_top, 0, "ladder run: at the freeze, a final of the top N (0: none)");
ABSL_FLAG(int, final_matches, 0, "ladder run: the final's budget (0: 200 a finalist)");
ABSL_FLAG(bool, fail_on_forfeit, false, "tournament: exit 1 if any match was forfeited");
ABSL_FLAG(std::string, candidate, "", "gate: NAME=COMMAND of the bot under test");
ABSL_FLAG(std::string, baseline, "", "gate: NAME=COMMAND of the bot to beat");
ABSL_FLAG(std::string, filler, "",
          "gate: NAME=COMMAND of the bot in the seats beyond two (default: the baseline)");
ABSL_FLAG(double, elo0, 0, "gate: H0, the candidate is at most this much stronger (Elo)");
ABSL_FLAG(double, elo1, 10, "gate: H1, the candidate is at least this much stronger (Elo)");
ABSL_FLAG(double, alpha, 0.05, "gate: chance of accepting H1 when H0 holds");
ABSL_FLAG(double, beta, 0.05, "gate: chance of accepting H0 when H1 holds");
ABSL_FLAG(int, max_games, 2000, "gate: matches after which it stops undecided (exit 3)");
ABSL_FLAG(std::string, json, "",
          "gate: also write the result to this JSON file; replay: --json prints "
          "one arena.v1.Replay JSON document (--json=FILE writes it to FILE)");
ABSL_FLAG(double, max_fault_rate, 1,
          "gate: the most the candidate's or the baseline's fault rate may be, "
          "the share of its matches in which it had a fault of any kind "
          "(timeout, illegal, crashed, no-show...); above it the gate gives no "
          "verdict (exit 4) whatever the SPRT says (1: no limit)");
ABSL_FLAG(std::string, junit, "",
          "tournament, match, gate: also write a JUnit XML report to this file "
          "(a testcase per bot, or per verdict of a gate)");
ABSL_FLAG(std::string, summary_md, "",
          "tournament, match, gate: also write a markdown summary to this file "
          "(e.g. $GITHUB_STEP_SUMMARY)");
ABSL_FLAG(std::string, record_format, "compact",
          "how records are written: compact (<id>.rec: binary lines, zstd with "
          "the game's dictionary), jsonl (<id>.jsonl, plain JSON lines) or "
          "jsonl.zst; every command reads every format, and `arena cat` prints "
          "any record as JSON lines (docs/records.md)");
ABSL_FLAG(bool, compress, false, "deprecated: --record_format jsonl.zst");
ABSL_FLAG(int, concurrent, 8, "check-bot: matches at once in the concurrency check");
ABSL_FLAG(std::string, opponent, "",
          "check-bot: the command of the bot in the other seats (default: the random bot "
          "beside arena)");
ABSL_FLAG(bool, requests, false,
          "replay: print the exact messages --seat S was sent (MatchStart, each "
          "request, MatchEnd), one JSON line each, as a stdio bot reads them");

namespace arena {
namespace {

// absl's list flags keep the last occurrence only; --bot and --option are
// repeated instead, so their occurrences are gathered before absl parses the
// rest (each value then goes through absl's own flag parsing).
std::vector<char*> GatherRepeated(int argc, char** argv,
                                  std::vector<std::string>* bots,
                                  std::vector<std::string>* options) {
  std::vector<char*> rest;
  // --json is a FILE for gate and a switch for replay: a bare --json given to
  // replay means "to stdout" (--json=-), so it never takes the next word.
  static char kJsonToStdout[] = "--json=-";
  bool replay = false;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') {
      replay = std::string(argv[i]) == "replay";
      break;
    }
  }
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {  // a bot's command follows (replay-bot): kept as it is
      rest.insert(rest.end(), argv + i, argv + argc);
      break;
    }
    if (replay && a == "--json") {
      rest.push_back(kJsonToStdout);
      continue;
    }
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

// --shard I/N into the config (empty: unsharded).
absl::Status ParseShard(const std::string& text, v1::TournamentConfig* c) {
  if (text.empty()) return absl::OkStatus();
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  int index = -1, count = -1;
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty() ||
      !absl::ascii_isdigit(static_cast<unsigned char>(parts[0][0])) ||
      !absl::ascii_isdigit(static_cast<unsigned char>(parts[1][0])) ||
      !absl::SimpleAtoi(parts[0], &index) || !absl::SimpleAtoi(parts[1], &count)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shard=", text, ": use I/N, e.g. --shard 0/4 (shard I of N, 0 <= I < N)"));
  }
  if (count < 1 || index < 0 || index >= count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--shard=", text, ": shard I/N needs N >= 1 and 0 <= I < N"));
  }
  c->set_shard_index(index);
  c->set_shard_count(count);
  return absl::OkStatus();
}

// --on_bot_failure; UNSPECIFIED when not given (the command's default).
absl::StatusOr<v1::BotFailurePolicy> BotFailurePolicyFromFlag() {
  return ParseBotFailurePolicy(absl::GetFlag(FLAGS_on_bot_failure));
}

absl::StatusOr<v1::TournamentConfig> ConfigFromFlags(
    const std::vector<std::string>& bots, const std::vector<std::string>& options) {
  v1::TournamentConfig c;
  c.set_game(absl::GetFlag(FLAGS_game));
  for (const auto& o : options) {
    auto kv = SplitFlagPair("option", o, "KEY=VALUE", /*need_right=*/false);
    if (!kv.ok()) return kv.status();
    (*c.mutable_options())[kv->first] = kv->second;
  }
  for (const auto& b : bots) {
    auto nc = SplitFlagPair("bot", b, "NAME=COMMAND", /*need_right=*/true);
    if (!nc.ok()) return nc.status();
    v1::BotConfig* bc = c.add_bots();
    bc->set_name(nc->first);
    bc->set_command(nc->second);
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
  {
    const std::string f = absl::GetFlag(FLAGS_record_format);
    const bool compress = absl::GetFlag(FLAGS_compress);
    if (f == "compact" && !compress) {
      c.set_record_format(v1::RECORD_FORMAT_COMPACT);
    } else if (f == "jsonl.zst" || (f == "compact" && compress)) {
      c.set_record_format(v1::RECORD_FORMAT_JSONL_ZSTD);
    } else if (f == "jsonl" && !compress) {
      c.set_record_format(v1::RECORD_FORMAT_JSONL);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "--record_format: '", f, "'", compress ? " with --compress" : "",
          " (use compact, jsonl or jsonl.zst; --compress is jsonl.zst)"));
    }
  }
  if (absl::Status s = ParseShard(absl::GetFlag(FLAGS_shard), &c); !s.ok()) return s;
  if (c.shard_count() > 0 && c.secret_file().empty() && c.seed() == 0) {
    return absl::InvalidArgumentError(
        "--shard needs --secret_file FILE, the same file for every shard (a "
        "fresh secret per shard would deal other cards and other match ids)");
  }
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
  c.mutable_time_control()->set_time_bank_ms(absl::GetFlag(FLAGS_time_bank_ms));
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
  auto on_failure = BotFailurePolicyFromFlag();
  if (!on_failure.ok()) return on_failure.status();
  c.set_on_bot_failure(*on_failure);
  c.set_deal_mode(absl::GetFlag(FLAGS_duplicate) ? v1::DEAL_MODE_DUPLICATE
                                                 : v1::DEAL_MODE_INDEPENDENT);
  c.set_gauntlet(absl::GetFlag(FLAGS_gauntlet));
  {
    const std::string kind = absl::GetFlag(FLAGS_schedule);
    if (kind == "auto") {
      c.set_schedule(v1::SCHEDULE_KIND_UNSPECIFIED);
    } else if (kind == "cycle") {
      c.set_schedule(v1::SCHEDULE_KIND_CYCLE);
    } else if (kind == "rounds") {
      c.set_schedule(v1::SCHEDULE_KIND_ROUNDS);
    } else if (kind == "adaptive") {
      c.set_schedule(v1::SCHEDULE_KIND_ADAPTIVE);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "--schedule=", kind, ": use auto, cycle, rounds or adaptive"));
    }
    v1::AdaptiveSchedule* a = c.mutable_adaptive();
    a->set_top_k(absl::GetFlag(FLAGS_top_k));
    a->set_confidence(absl::GetFlag(FLAGS_confidence));
    a->set_explore_every(absl::GetFlag(FLAGS_explore_every));
    a->set_warmup_rounds(absl::GetFlag(FLAGS_warmup_rounds));
    a->set_round_tables(absl::GetFlag(FLAGS_round_tables));
    if (c.schedule() != v1::SCHEDULE_KIND_ADAPTIVE) {
      if (a->ByteSizeLong() > 0) {
        return absl::InvalidArgumentError(
            "--top_k, --confidence, --explore_every, --warmup_rounds and "
            "--round_tables are settings of --schedule adaptive");
      }
      c.clear_adaptive();
    }
  }
  c.set_standings_every(absl::GetFlag(FLAGS_standings_every));
  c.set_connect_timeout_ms(absl::GetFlag(FLAGS_connect_timeout_ms));
  return c;
}

// The sandbox and its limits from the flags.
absl::Status FillLaunchOptions(LaunchOptions* lo) {
  const std::string sandbox = absl::GetFlag(FLAGS_sandbox);
  if (sandbox == "bwrap") {
    lo->sandbox.enabled = true;
  } else if (sandbox == "none") {
    lo->sandbox.enabled = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--sandbox=", sandbox, ": use bwrap or none"));
  }
  struct Limit {
    const char* flag;
    int64_t value, min, max, scale;
    int64_t* out;
  };
  for (const Limit& l :
       {Limit{"bot_memory_mb", absl::GetFlag(FLAGS_bot_memory_mb), 16,
              1 << 20, 1 << 20, &lo->sandbox.memory_bytes},
        Limit{"bot_processes", absl::GetFlag(FLAGS_bot_processes), 4, 1 << 16, 1,
              &lo->sandbox.max_processes},
        Limit{"bot_open_files", absl::GetFlag(FLAGS_bot_open_files), 16, 1 << 20,
              1, &lo->sandbox.max_open_files},
        Limit{"bot_tmp_mb", absl::GetFlag(FLAGS_bot_tmp_mb), 1, 1 << 20,
              1 << 20, &lo->sandbox.tmp_bytes}}) {
    if (l.value < l.min || l.value > l.max) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", l.flag, "=", l.value, ": must be in [", l.min, ", ", l.max, "]"));
    }
    *l.out = l.value * l.scale;
  }
  if (absl::GetFlag(FLAGS_max_live_bots) < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_live_bots=", absl::GetFlag(FLAGS_max_live_bots),
        ": must be 0 (the default: the largest of 32, 4 * jobs * seats and, "
        "for at most 64 bots, twice the bots) or more"));
  }
  lo->max_live_bots = absl::GetFlag(FLAGS_max_live_bots);
  if (absl::GetFlag(FLAGS_bot_idle_ms) < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--bot_idle_ms=", absl::GetFlag(FLAGS_bot_idle_ms), ": must be 0 or more"));
  }
  lo->bot_idle_timeout = absl::Milliseconds(absl::GetFlag(FLAGS_bot_idle_ms));
  return absl::OkStatus();
}

// `arena match` and `arena tournament`: the config from the flags (or the
// manifest of the folder to resume) and the sandbox from the flags; the rest
// is RunTournamentCommand's (arena/cli/tournament_command.h).
// The live server's and site's options from the flags; the address is
// --serve's, else `fallback` (`serve` has a default; `tournament` and
// `ladder run` serve only when asked).
absl::Status ServeFromFlags(const std::string& fallback, ServeOptions* so, LiveOptions* live) {
  so->max_connections = absl::GetFlag(FLAGS_serve_max_connections);
  so->max_updates_per_second = absl::GetFlag(FLAGS_serve_updates_per_s);
  if (so->max_updates_per_second < 1) {
    return absl::InvalidArgumentError("--serve_updates_per_s: 1 or more");
  }
  if (absl::GetFlag(FLAGS_spectator_delay_s) < 0) {
    return absl::InvalidArgumentError("--spectator_delay_s: 0 or more seconds");
  }
  so->address = absl::GetFlag(FLAGS_serve).empty() ? fallback : absl::GetFlag(FLAGS_serve);
  live->spectator_delay = absl::Seconds(absl::GetFlag(FLAGS_spectator_delay_s));
  live->show_notes = absl::GetFlag(FLAGS_show_notes);
  return absl::OkStatus();
}

int TournamentCommand(bool single, const std::vector<std::string>& bots,
                      const std::vector<std::string>& options, const std::string& program) {
  const std::string resume = absl::GetFlag(FLAGS_resume);
  absl::StatusOr<v1::TournamentConfig> c;
  if (resume.empty()) {
    c = ConfigFromFlags(bots, options);
  } else {
    ResumeFlags flags;
    flags.shard = absl::GetFlag(FLAGS_shard);
    v1::TournamentConfig shard;
    if (absl::Status s = ParseShard(flags.shard, &shard); !s.ok()) return Fail(s);
    flags.shard_index = shard.shard_index();
    flags.shard_count = shard.shard_count();
    if (!bots.empty()) flags.config = [&] { return ConfigFromFlags(bots, options); };
    c = ResumeConfig(resume, flags);
  }
  if (!c.ok()) return Fail(c.status());
  LaunchOptions lo;
  if (absl::Status s = FillLaunchOptions(&lo); !s.ok()) return Fail(s);
  TournamentCommandOptions po;
  po.single = single;
  po.resume = !resume.empty();
  po.on_bot_failure = absl::GetFlag(FLAGS_on_bot_failure);
  po.fresh_bots_per_rotation = absl::GetFlag(FLAGS_fresh_bots_per_rotation);
  po.show_progress = absl::GetFlag(FLAGS_progress);
  po.html = absl::GetFlag(FLAGS_html);
  po.fail_on_forfeit = absl::GetFlag(FLAGS_fail_on_forfeit);
  po.junit = absl::GetFlag(FLAGS_junit);
  po.summary_md = absl::GetFlag(FLAGS_summary_md);
  if (absl::Status s = ServeFromFlags("", &po.serve, &po.live); !s.ok()) return Fail(s);
  po.program = program;
  // What the manifest does not keep, for the resume command said on SIGINT
  // and SIGTERM: the launch flags given.
  for (const char* name :
       {"sandbox", "bot_memory_mb", "bot_processes", "bot_open_files", "bot_tmp_mb",
        "max_live_bots", "bot_idle_ms", "fresh_bots_per_rotation", "progress", "serve",
        "spectator_delay_s", "serve_max_connections", "serve_updates_per_s", "live_records",
        "html", "show_notes", "fail_on_forfeit", "junit", "summary_md", "log_file"}) {
    if (!FlagChanged(name)) continue;
    po.resume_flags.push_back(ShellQuote(
        absl::StrCat("--", name, "=", absl::FindCommandLineFlag(name)->CurrentValue())));
  }
  // Matches in progress are watchable with --serve unless --live_records=false.
  lo.live_records = absl::GetFlag(FLAGS_live_records).value_or(!po.serve.address.empty());
  return RunTournamentCommand(po, *std::move(c), std::move(lo));
}

// `arena ladder submit|withdraw|run DIR`: the options from the flags; the
// rest is arena/cli/ladder_command.h's.
int LadderCommand(const std::vector<char*>& args, const std::vector<std::string>& options) {
  const std::string sub = args.size() > 2 ? args[2] : "";
  if (args.size() != 4 || (sub != "submit" && sub != "withdraw" && sub != "run")) {
    return Fail(absl::InvalidArgumentError("usage: arena ladder submit|withdraw|run DIR ..."));
  }
  const std::string dir = args[3];
  if (sub != "run" && absl::GetFlag(FLAGS_entrant).empty()) {
    return Fail(absl::InvalidArgumentError(absl::StrCat("ladder ", sub, " needs --entrant NAME")));
  }
  if (sub == "submit") {
    if (absl::GetFlag(FLAGS_command).empty()) {
      return Fail(absl::InvalidArgumentError("ladder submit needs --command CMD"));
    }
    return RunLadderSubmit(dir, absl::GetFlag(FLAGS_entrant), absl::GetFlag(FLAGS_command));
  }
  if (sub == "withdraw") return RunLadderWithdraw(dir, absl::GetFlag(FLAGS_entrant));
  if (absl::GetFlag(FLAGS_game).empty()) {
    return Fail(absl::InvalidArgumentError("ladder run needs --game G"));
  }
  absl::SetFlag(&FLAGS_records, absl::StrCat(dir, "/records"));  // each segment's, below
  auto c = ConfigFromFlags({}, options);
  if (!c.ok()) return Fail(c.status());
  LadderRunOptions lo;
  lo.dir = dir;
  lo.base = *std::move(c);
  if (absl::Status s = FillLaunchOptions(&lo.launch); !s.ok()) return Fail(s);
  lo.launch.connect_timeout = ConnectTimeout(lo.base);
  lo.matches = absl::GetFlag(FLAGS_matches);
  lo.freeze_at = absl::GetFlag(FLAGS_freeze_at);
  lo.final_top = absl::GetFlag(FLAGS_final_top);
  lo.final_matches = absl::GetFlag(FLAGS_final_matches);
  lo.seed = absl::GetFlag(FLAGS_seed);
  lo.base.set_seed(0);  // each segment's deals from a secret of its own
  if (auto s = ServeFromFlags("", &lo.serve.serve, &lo.serve.live); !s.ok()) return Fail(s);
  // Matches in progress are watchable with --serve unless --live_records=false.
  lo.launch.live_records =
      absl::GetFlag(FLAGS_live_records).value_or(!lo.serve.serve.address.empty());
  if (lo.matches < 0 || lo.freeze_at < 0 || lo.final_top < 0 || lo.final_matches < 0) {
    return Fail(absl::InvalidArgumentError(
        "--matches, --freeze_at, --final_top and --final_matches: 0 or more"));
  }
  return RunLadder(std::move(lo));
}

// `arena gate`: the gate's options, config and sandbox from the flags; the
// rest is RunGate's (arena/cli/gate_command.h).
int GateCommand(const std::vector<std::string>& options) {
  GateOptions go;
  go.candidate = absl::GetFlag(FLAGS_candidate);
  go.baseline = absl::GetFlag(FLAGS_baseline);
  go.filler = absl::GetFlag(FLAGS_filler);
  go.elo0 = absl::GetFlag(FLAGS_elo0);
  go.elo1 = absl::GetFlag(FLAGS_elo1);
  go.alpha = absl::GetFlag(FLAGS_alpha);
  go.beta = absl::GetFlag(FLAGS_beta);
  go.max_games = absl::GetFlag(FLAGS_max_games);
  go.json = absl::GetFlag(FLAGS_json);
  go.max_fault_rate = absl::GetFlag(FLAGS_max_fault_rate);
  go.junit = absl::GetFlag(FLAGS_junit);
  go.summary_md = absl::GetFlag(FLAGS_summary_md);
  if (absl::Status s = CheckGateOptions(go); !s.ok()) return Fail(s);
  auto c = ConfigFromFlags(GateBots(go), options);
  if (!c.ok()) return Fail(c.status());
  if (absl::Status s = SetUpGateConfig(go, &*c); !s.ok()) return Fail(s);
  LaunchOptions lo;
  if (absl::Status s = FillLaunchOptions(&lo); !s.ok()) return Fail(s);
  return RunGate(go, *c, std::move(lo));
}

// `arena play`: the config and sandbox from the flags, 10 minutes a decision
// unless --decision_ms is given; the rest is RunHumanSeat's (play_command.h).
int HumanSeatCommand(const std::vector<std::string>& bots,
                     const std::vector<std::string>& options, bool decision_ms_given) {
  auto c = ConfigFromFlags(bots, options);
  if (!c.ok()) return Fail(c.status());
  if (!decision_ms_given) c->mutable_time_control()->set_decision_ms(600000);
  LaunchOptions lo;
  if (absl::Status s = FillLaunchOptions(&lo); !s.ok()) return Fail(s);
  HumanSeatOptions ho;
  ho.seat = absl::GetFlag(FLAGS_seat) == -1 ? 0 : absl::GetFlag(FLAGS_seat);
  return RunHumanSeat(ho, *std::move(c), std::move(lo));
}

}  // namespace
}  // namespace arena

int main(int argc, char** argv) {
  using namespace arena;
  // Debian's Abseil is built with the Mutex deadlock detector on: every Lock
  // is looked up in a process-wide graph of lock order (GraphCycles showed in
  // the referee's profile, docs/benchmarks.md). Tests keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::SetProgramUsageMessage(kUsage);
  ::umask(077);  // records, standings, logs and secrets: the organiser's only
  if (std::string command; WantsHelp(argc, argv, &command)) {
    PrintHelp(command);
    return 0;
  }
  std::vector<std::string> bots, options;
  std::vector<char*> rest = GatherRepeated(argc, argv, &bots, &options);
  // An unknown flag, a value that does not parse or a missing value is a
  // usage error (2) before absl's parser would exit 1 on it (flags_check.h).
  if (absl::Status s = CheckCommandLineFlags(static_cast<int>(rest.size()), rest.data());
      !s.ok()) {
    std::cerr << "arena: " << s.message() << "; `arena COMMAND --help` lists the flags\n";
    return 2;
  }
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
  if (cmd == "match" || cmd == "tournament" || cmd == "gate" || cmd == "ladder") {
    // SIGINT and SIGTERM stop the run at once, say what was recorded and
    // exit 128 + the signal (stop_signals.h): blocked here, before any
    // thread starts, and taken by the watcher's thread alone.
    BlockStopSignals();
    WatchStopSignals();
  }
  if (cmd == "match" || cmd == "tournament") {
    if (args.size() > 2) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", args[2], "'")));
    }
    if (absl::Status s = OnlyFlagsOf(cmd, bots, options); !s.ok()) return Fail(s);
    if (cmd == "tournament" && absl::GetFlag(FLAGS_games) <= 0 &&
        absl::GetFlag(FLAGS_resume).empty()) {
      return Fail(absl::InvalidArgumentError("tournament needs --games N (N >= 1)"));
    }
    return TournamentCommand(cmd == "match", bots, options, argv[0]);
  }
  if (cmd == "verify") {
    if (args.size() != 3) return Fail(absl::InvalidArgumentError("verify FILE|DIR"));
    if (absl::Status s = OnlyFlagsOf("verify", bots, options); !s.ok()) return Fail(s);
    return RunVerify(args[2]);
  }
  if (cmd == "cat") {
    if (args.size() < 3) return Fail(absl::InvalidArgumentError("cat RECORD..."));
    if (absl::Status s = OnlyFlagsOf("cat", bots, options); !s.ok()) return Fail(s);
    return RunCat(std::vector<std::string>(args.begin() + 2, args.end()));
  }
  if (cmd == "gate") {
    if (args.size() > 2) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", args[2], "'")));
    }
    if (absl::Status s = OnlyFlagsOf("gate", bots, options); !s.ok()) return Fail(s);
    return GateCommand(options);
  }
  if (cmd == "standings") {
    if (args.size() < 3) return Fail(absl::InvalidArgumentError("standings DIR... [--out OUT]"));
    if (absl::Status s = OnlyFlagsOf("standings", bots, options); !s.ok()) return Fail(s);
    StandingsCommandOptions so;
    so.dirs.assign(args.begin() + 2, args.end());
    so.out_dir = absl::GetFlag(FLAGS_out);
    return RunStandings(so);
  }
  if (cmd == "replay" && absl::GetFlag(FLAGS_requests)) {
    if (absl::Status s = OnlyFlagsOf("replay", bots, options); !s.ok()) return Fail(s);
    if (args.size() != 3 || absl::GetFlag(FLAGS_seat) < 0 || FlagChanged("step") || FlagChanged("json")) {
      return Fail(absl::InvalidArgumentError("usage: arena replay FILE --requests --seat S"));
    }
    return RunReplayRequests(args[2], absl::GetFlag(FLAGS_seat));
  }
  if (cmd == "replay") {
    if (args.size() != 3) {
      return Fail(absl::InvalidArgumentError(
          "replay takes one record file: arena replay FILE [--seat S] [--step K] [--json]"));
    }
    if (absl::Status s = OnlyFlagsOf("replay", bots, options); !s.ok()) return Fail(s);
    ReplayCommandOptions ro;
    ro.file = args[2];
    ro.seat = absl::GetFlag(FLAGS_seat);
    ro.step = absl::GetFlag(FLAGS_step);
    ro.json = absl::GetFlag(FLAGS_json);
    return RunReplay(ro);
  }
  if (cmd == "html") {
    if (args.size() != 3) {
      return Fail(absl::InvalidArgumentError(
          "html takes one records folder: arena html DIR [--out OUT] [--replays N]"));
    }
    if (absl::Status s = OnlyFlagsOf("html", bots, options); !s.ok()) return Fail(s);
    HtmlOptions ho;
    ho.out_dir = absl::GetFlag(FLAGS_out);
    ho.max_replays = absl::GetFlag(FLAGS_replays);
    ho.show_notes = absl::GetFlag(FLAGS_show_notes);
    return RunHtml(args[2], ho);
  }
  if (cmd == "serve") {
    if (args.size() != 3) {
      return Fail(absl::InvalidArgumentError(
          "serve takes one records folder: arena serve DIR [--serve HOST:PORT]"));
    }
    if (absl::Status s = OnlyFlagsOf("serve", bots, options); !s.ok()) return Fail(s);
    ServeCommandOptions so;
    so.dir = args[2];
    if (absl::Status s = ServeFromFlags("127.0.0.1:8080", &so.serve, &so.live); !s.ok()) {
      return Fail(s);
    }
    return RunServe(so);
  }
  if (cmd == "play") {
    if (args.size() > 2) {
      return Fail(absl::InvalidArgumentError(absl::StrCat("unexpected argument '", args[2], "'")));
    }
    if (absl::Status s = OnlyFlagsOf("play", bots, options); !s.ok()) return Fail(s);
    return HumanSeatCommand(bots, options, std::any_of(rest.begin(), rest.end(), [](char* a) {
                              return absl::StartsWith(a, "--decision_ms") ||
                                     absl::StartsWith(a, "-decision_ms");
                            }));
  }
  if (cmd == "check-bot") {
    if (args.size() > 2) {
      return Fail(absl::InvalidArgumentError(absl::StrCat("unexpected argument '", args[2], "'")));
    }
    if (absl::Status s = OnlyFlagsOf(cmd, bots, options); !s.ok()) return Fail(s);
    CheckBotOptions co;
    co.games = absl::GetFlag(FLAGS_game);
    co.bots = bots;
    co.options = options;
    co.decision_ms = absl::GetFlag(FLAGS_decision_ms);
    co.decision_cap = absl::GetFlag(FLAGS_decision_cap);
    co.connect_timeout_ms = absl::GetFlag(FLAGS_connect_timeout_ms);
    co.concurrent = absl::GetFlag(FLAGS_concurrent);
    co.opponent = absl::GetFlag(FLAGS_opponent);
    co.records = absl::GetFlag(FLAGS_records);
    co.seed = absl::GetFlag(FLAGS_seed);
    LaunchOptions lo;
    if (absl::Status s = FillLaunchOptions(&lo); !s.ok()) return Fail(s);
    return RunCheckBot(co, std::move(lo));
  }
  if (cmd == "replay-bot") {
    if (absl::Status s = OnlyFlagsOf("replay-bot", bots, options); !s.ok()) return Fail(s);
    auto rb = ReplayBotArgs(argc, argv, args);  // BUNDLE -- COMMAND [ARGS...]
    if (!rb.ok()) return Fail(rb.status());
    if (rb->decision_ms_given) rb->decision_ms = absl::GetFlag(FLAGS_decision_ms);
    rb->inherit_env = absl::GetFlag(FLAGS_inherit_env);
    return RunReplayBot(*rb);
  }
  if (cmd == "ladder") {
    if (absl::Status s = OnlyFlagsOf("ladder", bots, options); !s.ok()) return Fail(s);
    return LadderCommand(args, options);
  }
  if (cmd == "games") {
    if (args.size() > 2) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", args[2], "'")));
    }
    if (absl::Status s = OnlyFlagsOf("games", bots, options); !s.ok()) return Fail(s);
    return RunGames();
  }

  std::cerr << "arena: unknown command '" << cmd << "'\n" << kUsage << "\n";
  return 2;
}
