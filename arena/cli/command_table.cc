#include "arena/cli/command_table.h"

#include <algorithm>
#include <iostream>

#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace arena {

const char kUsage[] =
    "arena: matches and tournaments between card-game bots.\n"
    "  arena match      --game G --bot NAME=COMMAND ... [--seed N] [--records DIR]\n"
    "  arena tournament --game G --bot NAME=COMMAND ... [--seats S] --games N\n"
    "                   --jobs J --records DIR [--option KEY=VALUE ...]\n"
    "  arena replay FILE [--seat S] [--step K] [--json]\n"
    "  arena replay FILE --requests --seat S   (what seat S was sent, as stdio JSON lines)\n"
    "  arena replay-bot BUNDLE [--decision_ms MS] [--inherit_env] -- COMMAND [ARGS...]\n"
    "             (re-feed a repro bundle)\n"
    "  arena verify FILE|DIR\n"
    "  arena cat RECORD...   (records of any format as plain JSON lines)\n"
    "  arena standings DIR... [--out OUT]   (rebuild the standings from the records;\n"
    "                   --out: also write the combined standings into OUT)\n"
    "  arena tournament ... --secret_file F --shard I/N   (one shard of N)\n"
    "  arena gate --game G --candidate NAME=CMD --baseline NAME=CMD\n"
    "             [--filler NAME=CMD] [--seats S] [--elo0 0] [--elo1 10]\n"
    "             [--alpha 0.05] [--beta 0.05] [--max_games N] [--max_fault_rate R]\n"
    "             [--json FILE] [--junit FILE] [--summary_md FILE] --records DIR\n"
    "             (exit 0: H1; 1: H0; 3: no decision; 4: no verdict, a bot did not\n"
    "             play: withdrawn or fault rate above R; 2: error; 5: the disk\n"
    "             could not take a write; 130, 143: stopped by SIGINT, SIGTERM)\n"
    "  arena html DIR [--out OUT] [--replays N] [--show_notes]   (a static site; or --html on\n"
    "             match/tournament; --show_notes: the bots' notes in the replays)\n"
    "  arena serve DIR [--serve HOST:PORT]   (the live site; or --serve on tournament)\n"
    "  arena play --game G --bot NAME=COMMAND ... [--seat S]   (you, at the terminal, against bots)\n"
    "  arena check-bot --game G[,G2...] --bot NAME=COMMAND   (a bot's checklist before a contest)\n"
    "  arena ladder submit|withdraw|run DIR ...   (a ladder: bots submitted while it runs)\n"
    "tournament and match also take --junit FILE and --summary_md FILE (CI reports).\n"
    "Repeat --bot and --option once per value. A usage error (an unknown flag, a\n"
    "flag of another command, a value that does not parse) exits 2.";

const std::vector<CommandHelp>& Commands() {
  static const std::vector<std::string> kSandbox = {
      "sandbox", "bot_memory_mb", "bot_processes", "bot_open_files", "bot_tmp_mb"};
  static const std::vector<std::string> kPlay = {
      "game", "bot", "option", "seats", "games", "jobs", "records", "secret_file", "seed",
      "decision_ms", "time_bank_ms", "fault_policy", "decision_cap", "auto_moves", "max_restarts",
      "on_bot_failure", "connect_timeout_ms", "max_live_bots", "bot_idle_ms", "duplicate",
      "fresh_bots_per_rotation", "gauntlet", "standings_every", "resume", "fail_on_forfeit",
      "record_format", "compress", "html", "show_notes", "progress", "serve", "spectator_delay_s",
      "serve_max_connections", "serve_updates_per_s", "live_records",
      "junit", "summary_md", "log_file"};
  auto join = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  static const auto* commands = new std::vector<CommandHelp>{
      {"match",
       "arena match --game G --bot NAME=COMMAND ... [flags]\n  One match, one bot per seat.\n"
       "  Exit 130 (SIGINT) or 143 (SIGTERM): stopped at once (docs/operations.md).",
       join(kPlay, kSandbox)},
      {"tournament",
       "arena tournament --game G --bot NAME=COMMAND ... --games N [flags]\n"
       "  A round robin (or --gauntlet) of duplicate deals; standings with ratings.\n"
       "  Exit 0: all well; 1: the tournament ran but a bot was withdrawn, crashed,\n"
       "  was restarted or cut off, or a match is unrecorded (--fail_on_forfeit: or\n"
       "  any forfeit; --on_bot_failure abort: a bot failed at start); 2: it could\n"
       "  not run (usage, config, no bot could start); 5: stopped because the disk\n"
       "  could not take a write (full, quota, I/O error): free space, then --resume;\n"
       "  130 (SIGINT, Ctrl-C) or 143 (SIGTERM): stopped at once, without waiting\n"
       "  for the live matches; it prints what is recorded and the --resume command\n"
       "  (docs/operations.md).",
       join(join(kPlay, kSandbox), {"shard", "schedule", "top_k", "confidence",
                                    "explore_every", "warmup_rounds", "round_tables"})},
      {"replay", "arena replay FILE [--seat S] [--step K] [--json]\n  A record step by step, in words.\n"
                 "arena replay FILE --requests --seat S\n  What seat S was sent, as stdio JSON lines.",
       {"seat", "step", "json", "requests", "log_file"}},
      {"replay-bot",
       "arena replay-bot BUNDLE [--decision_ms MS] [--inherit_env] -- COMMAND [ARGS...]\n"
       "  Re-feeds a bot a repro bundle; says how it answers each request now.\n"
       "  The bot gets the sandbox's PATH and environment, as in a tournament\n"
       "  (--inherit_env: yours, as with --sandbox none).\n"
       "  Exit 0: all legal in time; 1: it still fails; 2: usage, unreadable bundle.",
       {"decision_ms", "inherit_env", "log_file"}},
      {"cat", "arena cat RECORD...\n  Records of any format as plain JSON lines (one RecordLine each).",
       {"log_file"}},
      {"verify", "arena verify FILE|DIR\n  Re-simulate records (and check a folder's standings).\n"
                 "  Exit 0: all verified; 1: a failure.", {"log_file"}},
      {"standings", "arena standings DIR... [--out OUT]\n  Rebuild the standings from the records.",
       {"out", "log_file"}},
      {"gate",
       "arena gate --game G --candidate NAME=CMD --baseline NAME=CMD [flags]\n"
       "  SPRT of a candidate against a baseline.\n"
       "  Exit 0: H1 accepted; 1: H0 accepted; 3: no decision within --max_games;\n"
       "  4: no verdict, a bot did not play (the candidate or the baseline was\n"
       "  withdrawn, or its fault rate is above --max_fault_rate); 2: error;\n"
       "  5: the disk could not take a write; 130 (SIGINT) or 143 (SIGTERM): stopped\n"
       "  at once, no verdict.",
       join({"game", "candidate", "baseline", "filler", "seats", "option", "elo0", "elo1",
             "alpha", "beta", "max_games", "max_fault_rate", "json", "junit", "summary_md",
             "records", "jobs", "secret_file", "seed", "decision_ms", "fault_policy",
             "decision_cap", "auto_moves", "record_format", "compress", "max_restarts", "on_bot_failure",
             "connect_timeout_ms", "max_live_bots", "bot_idle_ms", "log_file"},
            kSandbox)},
      {"html",
       "arena html DIR [--out OUT] [--replays N] [--show_notes]\n  A static site of a records "
       "folder.\n  --show_notes: the bots' notes beside their decisions (off: entrants may\n"
       "  read each other's replays).",
       {"out", "replays", "show_notes", "log_file"}},
      {"serve",
       "arena serve DIR [--serve HOST:PORT] [--spectator_delay_s S] [--show_notes]\n"
       "  The live site of a records folder (and of shards' folders in it), as it\n"
       "  grows: the pages of arena html, updated as records land, and matches in\n"
       "  progress as a spectator sees them. Until SIGINT or SIGTERM (docs/live.md).",
       {"serve", "spectator_delay_s", "serve_max_connections", "serve_updates_per_s",
        "show_notes", "log_file"}},
      {"games", "arena games\n  The games and their options.", {"log_file"}},
      {"ladder",
       "arena ladder submit DIR --entrant NAME --command CMD   (a new version)\n"
       "arena ladder withdraw DIR --entrant NAME\n"
       "arena ladder run DIR --game G [--seats N] [--jobs J] [--matches M]\n"
       "                 [--freeze_at M] [--final_top N] [--final_matches K]\n"
       "                 [--serve HOST:PORT]\n"
       "  A ladder over folder DIR: submissions taken while it runs, online\n"
       "  ratings, DIR/leaderboard.json after every match; at the freeze (M rated\n"
       "  matches or a file DIR/freeze) a final of the top N (docs/ladder.md).\n"
       "  A restart rebuilds everything from DIR.",
       join({"entrant", "command", "game", "option", "seats", "jobs", "matches", "freeze_at",
             "final_top", "final_matches", "seed", "decision_ms", "time_bank_ms",
             "fault_policy", "decision_cap", "auto_moves", "record_format", "compress",
             "max_restarts", "connect_timeout_ms", "max_live_bots", "bot_idle_ms",
             "serve", "spectator_delay_s", "serve_max_connections", "serve_updates_per_s",
             "show_notes", "live_records", "log_file"},
            kSandbox)},
      {"play",
       "arena play --game G --bot NAME=COMMAND [--bot ...] [--seat S] [flags]\n"
       "  You at the terminal against bots, in one recorded match: --seat is yours\n"
       "  (default 0), the bots fill the others in order (the last one repeated);\n"
       "  --decision_ms defaults to 10 minutes. Type a move's number; q leaves.",
       join({"game", "bot", "option", "seats", "seat", "records", "seed", "secret_file",
             "decision_ms", "time_bank_ms", "fault_policy", "decision_cap", "auto_moves", "record_format", "compress",
             "connect_timeout_ms", "max_restarts", "log_file"},
            kSandbox)},
      {"check-bot",
       "arena check-bot --game G[,G2...] --bot NAME=COMMAND [flags]\n"
       "  One bot through a checklist against the random bot, sandboxed as in a\n"
       "  tournament: connect, every seat of every seat count, deadline, legal\n"
       "  answers, MatchEnd, --concurrent matches at once, a forced reconnect, a\n"
       "  notice (docs/bots.md). --decision_cap 0: 60; without --records, a temporary\n"
       "  folder, kept if a check fails. Exit 0: all passed; 1: a check failed; 2: usage.",
       join({"game", "bot", "option", "decision_ms", "decision_cap", "connect_timeout_ms",
             "concurrent", "opponent", "records", "seed", "log_file"},
            kSandbox)},
  };
  return *commands;
}

void PrintHelp(const std::string& command) {
  const CommandHelp* found = nullptr;
  for (const auto& c : Commands()) {
    if (command == c.name) found = &c;
  }
  if (found == nullptr) {
    std::cout << kUsage << "\n\n`arena COMMAND --help` lists the flags of a command.\n";
    return;
  }
  std::cout << "Usage: " << found->usage << "\n";
  if (!found->flags.empty()) std::cout << "\nFlags:\n";
  for (const auto& name : found->flags) {
    const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name);
    if (f == nullptr) continue;
    std::string def = f->DefaultValue();
    if (def.empty()) def = "\"\"";
    std::cout << "  --" << name << " (default " << def << ")\n      " << f->Help() << "\n";
  }
}

bool WantsHelp(int argc, char** argv, std::string* command) {
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;  // a bot's command follows (replay-bot)
    if (a == "--help" || a == "-h" || a == "--helpfull" || a == "--helpshort" ||
        (i == 1 && a == "help")) {
      help = true;
    } else if (a[0] != '-' && command->empty() && a != "help") {
      *command = a;
    }
  }
  return help;
}

bool FlagChanged(const std::string& name) {
  const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name);
  return f != nullptr && f->CurrentValue() != f->DefaultValue();
}
absl::Status OnlyFlagsOf(const std::string& cmd, const std::vector<std::string>& bots,
                         const std::vector<std::string>& options) {
  const std::vector<std::string>* own = nullptr;
  for (const auto& c : Commands()) {
    if (cmd == c.name) own = &c.flags;
  }
  if (own == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown command '", cmd, "'"));
  const auto takes = [&](const std::string& name) {
    return std::find(own->begin(), own->end(), name) != own->end();
  };
  const auto not_ours = [&](const std::string& name) {
    std::vector<std::string> whose;
    for (const auto& c : Commands()) {
      if (std::find(c.flags.begin(), c.flags.end(), name) != c.flags.end()) whose.push_back(c.name);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, " is a flag of arena ", absl::StrJoin(whose, ", "), ", not of ", cmd,
        " (arena ", cmd, " --help lists its flags)"));
  };
  if (!bots.empty() && !takes("bot")) return not_ours("bot");
  if (!options.empty() && !takes("option")) return not_ours("option");
  for (const auto& c : Commands()) {
    for (const auto& name : c.flags) {
      if (!takes(name) && FlagChanged(name)) return not_ours(name);
    }
  }
  return absl::OkStatus();
}


}  // namespace arena
