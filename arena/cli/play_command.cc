#include "arena/cli/play_command.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/cli/command.h"
#include "arena/cli/terminal_player.h"
#include "arena/tournament/config.h"
#include "referee/games/registry.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// The result of the match in `records_dir` (its one record), for people.
absl::Status PrintResult(const std::string& records_dir, int human_seat, std::ostream& out) {
  const std::vector<std::string> files = ListRecordFiles(records_dir).files;
  if (files.size() != 1) {
    return absl::DataLossError(absl::StrCat("expected one record in ", records_dir,
                                            ", found ", files.size()));
  }
  auto lines = ReadRecordFile(files[0]);
  if (!lines.ok()) return lines.status();
  std::vector<std::string> bots;
  for (const auto& l : *lines) {
    if (l.has_header()) bots.assign(l.header().seat_bots().begin(), l.header().seat_bots().end());
    if (l.has_forfeit()) {
      out << "forfeit at step " << l.forfeit().step() << ": seat " << l.forfeit().seat()
          << (l.forfeit().seat() == human_seat ? " (you)" : "") << ", "
          << l.forfeit().detail() << "\n";
    }
    if (!l.has_result()) continue;
    const v1::MatchResult& r = l.result();
    out << "result: " << r.detail() << " (" << r.decisions() << " decisions; "
        << (r.higher_score_wins() ? "higher" : "lower") << " scores are better)\n";
    for (int s = 0; s < r.scores_size(); ++s) {
      out << "  seat " << s << " " << (s < static_cast<int>(bots.size()) ? bots[s] : "?")
          << ": score " << r.scores(s) << ", placement "
          << (s < r.placements_size() ? r.placements(s) : 0) << "\n";
    }
  }
  out << "record: " << files[0] << "  (check it: arena verify " << files[0] << ")\n";
  return absl::OkStatus();
}

}  // namespace

int RunHumanSeat(const HumanSeatOptions& options, v1::TournamentConfig c, LaunchOptions lo) {
  std::ostream& out = options.out != nullptr ? *options.out : std::cout;
  if (c.bots_size() == 0) {
    return Fail(absl::InvalidArgumentError(
        "play needs a bot to play against: --bot NAME=COMMAND (one per other seat, "
        "or one for all)"));
  }
  for (const auto& b : c.bots()) {
    if (b.name() == kHumanSeatName) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "--bot ", b.name(), "=...: the name '", kHumanSeatName, "' is the person's")));
    }
  }
  c.set_matches(1);
  {
    // The game's name and options checked (with its "did you mean") before
    // the seats are worked out from it.
    v1::TournamentConfig probe = c;
    if (absl::Status s = ValidateConfig(&probe); !s.ok()) return Fail(s);
    c.set_game(probe.game());
  }
  const GameInfo* info = FindGameInfo(c.game());
  if (info == nullptr) {
    return Fail(absl::InvalidArgumentError(absl::StrCat("unknown game '", c.game(), "'")));
  }
  const int nbots = c.bots_size();
  if (c.seats() == 0) c.set_seats(std::max(nbots + 1, info->min_seats));
  if (absl::Status s = CheckSeatCount(*info, c.seats()); !s.ok()) return Fail(s);
  if (nbots > c.seats() - 1) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat(nbots, " bots for the ", c.seats() - 1, " seats beside yours (", c.seats(),
                     " seats): give at most one --bot per other seat")));
  }
  if (options.seat < 0 || options.seat >= c.seats()) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "--seat ", options.seat, ": the match has seats 0 to ", c.seats() - 1)));
  }
  auto token = NewToken();
  if (!token.ok()) return Fail(token.status());
  v1::BotConfig* human = c.add_bots();
  human->set_name(kHumanSeatName);
  human->set_token(*token);
  // Seating: the person at their seat, the bots in order, the last repeated.
  lo.fixed_seating.clear();
  for (int seat = 0, next = 0; seat < c.seats(); ++seat) {
    if (seat == options.seat) {
      lo.fixed_seating.push_back(nbots);
    } else {
      lo.fixed_seating.push_back(std::min(next++, nbots - 1));
    }
  }
  c.set_deal_mode(v1::DEAL_MODE_INDEPENDENT);
  if (c.on_bot_failure() == v1::BOT_FAILURE_POLICY_UNSPECIFIED) {
    c.set_on_bot_failure(v1::BOT_FAILURE_POLICY_ABORT);
  }
  out << c.game() << ", " << c.seats() << " seats, "
      << MinutesSeconds(absl::Milliseconds(c.time_control().decision_ms()))
      << " per decision:\n";
  for (int seat = 0; seat < c.seats(); ++seat) {
    const v1::BotConfig& b = c.bots(lo.fixed_seating[seat]);
    out << "  seat " << seat << ": " << b.name()
        << (b.name() == kHumanSeatName ? " (at this terminal)" : absl::StrCat(" (", b.command(), ")"))
        << "\n";
  }
  for (const auto& [k, v] : c.options()) out << "  option " << k << "=" << v << "\n";
  out << std::flush;

  TerminalPlayer player(*token, options.input_fd, &out);
  lo.self_connecting_bots = {kHumanSeatName};
  lo.on_listening = [&player](const std::string& address) { player.Connect(address); };
  // A person who leaves is gone at once: no grace to come back in.
  lo.hub.reconnect_grace = absl::ZeroDuration();
  lo.show_progress = false;
  lo.fresh_bots_per_rotation = false;
  lo.connect_timeout = ConnectTimeout(c);
  // The referee's routine lines would break into the prompts.
  spdlog::set_level(spdlog::level::warn);
  std::atomic<bool> done{false};
  absl::StatusOr<v1::Standings> standings(absl::UnknownError("not run"));
  std::thread referee([&] {
    standings = RunConfiguredTournament(c, lo);
    done = true;
  });
  player.Play([&done] { return done.load(); });
  referee.join();
  player.Close();
  if (!standings.ok()) return Fail(standings.status());
  out << "\n== the match is over\n";
  if (absl::Status s = PrintResult(c.records_dir(), options.seat, out); !s.ok()) return Fail(s);
  out << std::flush;
  return 0;
}

}  // namespace arena
