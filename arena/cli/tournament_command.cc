#include "arena/cli/tournament_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "arena/cli/command.h"
#include "arena/cli/repro_commands.h"
#include "arena/cli/stop_signals.h"
#include "arena/common/json_file.h"
#include "arena/records/folder.h"
#include "arena/stats/standings.h"
#include "arena/tournament/config.h"
#include "arena/views/html.h"
#include "arena/views/reports.h"

namespace arena {

absl::StatusOr<v1::BotFailurePolicy> ParseBotFailurePolicy(const std::string& v) {
  if (v.empty()) return v1::BOT_FAILURE_POLICY_UNSPECIFIED;
  if (v == "withdraw") return v1::BOT_FAILURE_POLICY_WITHDRAW;
  if (v == "abort") return v1::BOT_FAILURE_POLICY_ABORT;
  return absl::InvalidArgumentError(
      absl::StrCat("--on_bot_failure=", v, ": use withdraw or abort"));
}

int RunTournamentCommand(const TournamentCommandOptions& options, v1::TournamentConfig config,
                         LaunchOptions lo) {
  v1::TournamentConfig* const c = &config;
  {
    // SIGINT, SIGTERM: what was recorded, and what to run (stop_signals.h).
    std::string resume = absl::StrCat(ShellQuote(options.program), " tournament --resume ",
                                      ShellQuote(c->records_dir()));
    for (const std::string& f : options.resume_flags) absl::StrAppend(&resume, " ", f);
    SetStopMessage([dir = c->records_dir(), resume, single = options.single](int sig) {
      const std::string next =
          single ? absl::StrCat("arena: a match is not resumed: run the same command again "
                                "(into a new records folder: another --records, or remove ",
                                dir, ")")
                 : ResumeAdvice(dir, resume);
      return StoppedRunMessage(sig, dir, next);
    });
  }
  lo.resume = options.resume;
  lo.fresh_bots_per_rotation = options.fresh_bots_per_rotation;
  lo.connect_timeout = ConnectTimeout(*c);
  lo.show_progress = options.show_progress && !options.single;
  if (options.single) {
    if (c->seats() == 0) c->set_seats(c->bots_size());
    if (c->seats() != c->bots_size()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "arena match seats one bot per seat: ", c->bots_size(), " bots for ",
          c->seats(), " seats")));
    }
    if (c->matches() == 0) c->set_matches(1);
    c->set_deal_mode(v1::DEAL_MODE_INDEPENDENT);
    // One match: a bot that cannot play it makes it meaningless.
    if (c->on_bot_failure() == v1::BOT_FAILURE_POLICY_UNSPECIFIED) {
      c->set_on_bot_failure(v1::BOT_FAILURE_POLICY_ABORT);
    }
    for (int i = 0; i < c->bots_size(); ++i) lo.fixed_seating.push_back(i);
  }
  if (options.resume && !options.on_bot_failure.empty()) {
    auto given = ParseBotFailurePolicy(options.on_bot_failure);
    if (!given.ok()) return Fail(given.status());
    c->set_on_bot_failure(*given);
  }
  // Each match with a fault gets its repro bundles (arena/records/repro_bundle.h).
  ReproBundleWriter bundles(c->records_dir());
  lo.on_recorded = bundles.Hook(std::move(lo.on_recorded));
  // The live site, from before the first match to the standings' last word.
  std::unique_ptr<LiveSite> site;
  std::unique_ptr<LiveServer> server;
  if (!options.serve.address.empty()) {
    if (absl::Status s = MakeRecordsDir(c->records_dir()); !s.ok()) return Fail(s);
    site = std::make_unique<LiveSite>(c->records_dir(), options.live);
    auto started = LiveServer::Start(site.get(), options.serve);
    if (!started.ok()) return Fail(started.status());
    server = *std::move(started);
    // What the tournament writes, the site is handed rather than read back.
    lo.on_record_finished = [s = site.get()](const std::string& path,
                                             std::vector<v1::RecordLine> lines) {
      s->Offer(path, std::move(lines));
    };
    std::cout << "live site: http://" << server->address() << "/ (" << c->records_dir() << ")"
              << std::endl;
  }
  auto st = RunConfiguredTournament(*c, lo);
  if (server) server->Stop();  // after a last look at the folder
  ReportReproBundles(bundles.Finish(), c->records_dir());
  if (!st.ok()) {
    if (StorageFailed(st.status())) {
      // The disk could not take a write: stopped, resumable (5).
      std::cerr << "arena: " << st.status().message()
                << "\narena: to finish the tournament, free space where "
                << c->records_dir() << " is (and where the log file is), then ";
      if (std::filesystem::exists(c->records_dir() + "/manifest.json")) {
        std::cerr << "run: arena tournament --resume " << c->records_dir()
                  << " (it plays only the matches without a whole record)\n";
      } else {
        std::cerr << "run the same command again (nothing was recorded; no --resume)\n";
      }
      return kStorageExitCode;
    }
    // A bot that failed at start under --on_bot_failure abort stops the
    // tournament (1); anything else means it could not run (2).
    Fail(st.status());
    return StartupFailed(st.status()) ? 1 : 2;
  }
  std::cout << StandingsTable(*st);
  if (!st->entrants().empty() && !st->entrants(0).log().empty()) {
    std::cout << "bot logs (stdout and stderr of each bot process): " << c->records_dir()
              << "/logs/\n";
  }
  std::cout << "records and standings (standings.csv, head_to_head.csv, "
               "standings.json) in "
            << c->records_dir() << "\n";
  // The CI reports, whatever the exit code (they say what failed).
  if (!options.junit.empty()) {
    if (absl::Status s = WriteFileAtomically(options.junit, TournamentJUnit(*st)); !s.ok()) {
      return Fail(s);
    }
  }
  if (!options.summary_md.empty()) {
    if (absl::Status s = AppendToFile(options.summary_md, TournamentMarkdown(*st));
        !s.ok()) {
      return Fail(s);
    }
  }
  if (options.html) {
    HtmlOptions ho;
    ho.show_notes = options.live.show_notes;
    auto site = WriteHtmlSite(c->records_dir(), ho);
    if (!site.ok()) return Fail(site.status());
    std::cout << "HTML site: " << site->out_dir << "/index.html\n";
    if (!site->failures.empty()) return 1;
  }
  int forfeits = 0;
  for (const auto& r : st->rows()) forfeits += r.forfeits();
  if (st->matches_unrecorded() > 0) return 1;
  // An entrant that failed as a program (not as a player): the run is
  // complete, but the organiser must look (the table above says who and why).
  const std::vector<std::string> failed = FailedEntrants(*st);
  if (!failed.empty()) {
    std::cerr << "arena: the tournament is complete, but these bots failed as "
                 "programs (withdrawn, crashed, restarted or cut off): "
              << absl::StrJoin(failed, ", ") << "; see their logs\n";
    return 1;
  }
  if (options.fail_on_forfeit && forfeits > 0) {
    std::cerr << "arena: " << forfeits << " forfeits (--fail_on_forfeit)\n";
    return 1;
  }
  return 0;
}

}  // namespace arena
