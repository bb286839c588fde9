#include "arena/cli/gate_command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "arena/cli/command.h"
#include "arena/cli/repro_commands.h"
#include "arena/cli/stop_signals.h"
#include "arena/common/json_file.h"
#include "arena/common/public_text.h"
#include "arena/stats/ratings.h"
#include "arena/stats/sprt.h"
#include "arena/stats/standings.h"
#include "arena/tournament/config.h"
#include "arena/tournament/schedule.h"
#include "arena/views/reports.h"
#include "google/protobuf/util/json_util.h"
#include "referee/games/registry.h"

namespace arena {

namespace {

// What the gate saw of one of its bots over every match it recorded.
struct SideTally {
  std::string role;  // "candidate", "baseline" or "filler"
  std::string name;
  int matches = 0;          // matches in which it had a seat
  int fault_matches = 0;    // those in which it had a fault of any kind
  int no_show_matches = 0;  // those it did not show up for (withdrawn)

  double FaultRate() const {
    return matches > 0 ? static_cast<double>(fault_matches) / matches : 0;
  }
};

// Counts `m` for `side` if the bot sits in it (in one seat or several).
void TallyMatch(const MatchSummary& m, SideTally* side) {
  const auto is_side = [&](int seat) {
    return seat >= 0 && seat < static_cast<int>(m.seat_bots.size()) &&
           m.seat_bots[seat] == side->name;
  };
  bool plays = false;
  for (size_t seat = 0; seat < m.seat_bots.size(); ++seat) {
    plays |= is_side(static_cast<int>(seat));
  }
  if (!plays) return;
  bool faulted = is_side(m.forfeit_seat), no_show = false;
  for (const auto& f : m.faults) {
    if (!is_side(f.seat)) continue;
    faulted = true;
    no_show |= f.kind == v1::FAULT_KIND_NO_SHOW;
  }
  ++side->matches;
  if (faulted) ++side->fault_matches;
  if (no_show) ++side->no_show_matches;
}

// Why the gate can give no verdict, one reason per bot that did not play:
// withdrawn or absent from some of its matches (any of the gate's bots), or,
// for the candidate and the baseline, a fault rate above the limit. Empty
// when both played and a verdict may be given.
std::vector<std::string> NoVerdictReasons(
    const std::vector<SideTally>& sides,
    const google::protobuf::RepeatedPtrField<v1::EntrantReport>& entrants,
    double max_fault_rate) {
  std::vector<std::string> reasons;
  for (const SideTally& side : sides) {
    const std::string who =
        absl::StrCat(absl::AsciiStrToUpper(side.role), " '", side.name, "'");
    const v1::EntrantReport* entrant = nullptr;
    for (const auto& e : entrants) {
      if (e.bot() == side.name) entrant = &e;
    }
    const bool withdrawn = entrant != nullptr && entrant->withdrawn();
    if (withdrawn || side.no_show_matches > 0) {
      const int played = side.matches - side.no_show_matches;
      const std::string why =
          withdrawn && !entrant->reason().empty()
              ? PublicText(entrant->reason())
              : absl::StrFormat("it did not show up for %d of its %d matches",
                                side.no_show_matches, side.matches);
      reasons.push_back(
          played == 0
              ? absl::StrCat(who, " did not start: ", why)
              : absl::StrFormat("%s was withdrawn after %d match(es): %s", who, played, why));
    } else if (side.role != "filler" && side.FaultRate() > max_fault_rate) {
      reasons.push_back(absl::StrFormat(
          "%s had a fault in %.1f%% of its matches (%d of %d), above --max_fault_rate %g",
          who, 100 * side.FaultRate(), side.fault_matches, side.matches, max_fault_rate));
    }
  }
  return reasons;
}

// The JSON, JUnit and markdown reports that `options` asks for.
absl::Status WriteGateReports(const GateOptions& options, const v1::GateResult& g) {
  if (const std::string& json = options.json; !json.empty()) {
    std::string text;
    google::protobuf::util::JsonPrintOptions o;
    o.add_whitespace = true;
    o.preserve_proto_field_names = true;
    o.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(g, &text, o).ok()) {
      return absl::InternalError("cannot print the gate result");
    }
    if (absl::Status s = WriteFileAtomically(json, text); !s.ok()) return s;
  }
  if (!options.junit.empty()) {
    if (absl::Status s = WriteFileAtomically(options.junit, GateJUnit(g)); !s.ok()) return s;
  }
  if (!options.summary_md.empty()) {
    if (absl::Status s = AppendToFile(options.summary_md, GateMarkdown(g)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> GateBots(const GateOptions& options) {
  std::vector<std::string> bots;
  for (const auto& f : {options.candidate, options.baseline, options.filler}) {
    if (!f.empty()) bots.push_back(f);
  }
  return bots;
}

absl::Status CheckGateOptions(const GateOptions& options) {
  if (options.candidate.empty() || options.baseline.empty()) {
    return absl::InvalidArgumentError("gate needs --candidate and --baseline");
  }
  const double elo0 = options.elo0, elo1 = options.elo1;
  const double alpha = options.alpha, beta = options.beta;
  if (!(elo1 > elo0)) return absl::InvalidArgumentError("--elo1 must exceed --elo0");
  if (!(alpha > 0 && alpha < 0.5 && beta > 0 && beta < 0.5)) {
    return absl::InvalidArgumentError("--alpha and --beta must be in (0, 0.5)");
  }
  if (options.max_games < 1) {
    return absl::InvalidArgumentError("--max_games must be at least 1");
  }
  if (!(options.max_fault_rate >= 0 && options.max_fault_rate <= 1)) {
    return absl::InvalidArgumentError(
        "--max_fault_rate must be in [0, 1] (a share of the candidate's matches)");
  }
  return absl::OkStatus();
}

absl::Status SetUpGateConfig(const GateOptions& options, v1::TournamentConfig* c) {
  if (c->seats() == 0) {
    const GameInfo* info = FindGameInfo(c->game());
    if (info == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown game '", c->game(), "'"));
    }
    c->set_seats(info->default_seats);
  }
  c->set_matches(options.max_games);
  c->set_deal_mode(v1::DEAL_MODE_DUPLICATE);
  c->clear_gauntlet();
  return absl::OkStatus();
}

int RunGate(const GateOptions& options, const v1::TournamentConfig& config,
            LaunchOptions lo) {
  const double elo0 = options.elo0, elo1 = options.elo1;
  const double alpha = options.alpha, beta = options.beta;
  const v1::TournamentConfig* const c = &config;
  lo.connect_timeout = ConnectTimeout(*c);
  lo.show_progress = false;
  // The SPRT needs whole deal groups as it goes, so a group's rotations are
  // played together by the same processes (a CI gate's bots are trusted).
  lo.fresh_bots_per_rotation = false;
  // [candidate, baseline, filler (or baseline)...], rotated by the schedule.
  lo.fixed_seating = {0, 1};
  for (int s = 2; s < c->seats(); ++s) lo.fixed_seating.push_back(options.filler.empty() ? 1 : 2);
  const size_t group_size = DistinctRotations(lo.fixed_seating).size();
  const std::string cand = c->bots(0).name(), base = c->bots(1).name();

  // Each bot's matches, faults and no-shows over every match played, also
  // after the decision: [candidate, baseline, filler (if one is given)].
  std::vector<SideTally> sides = {{"candidate", cand}, {"baseline", base}};
  if (!options.filler.empty()) sides.push_back({"filler", c->bots(2).name()});

  std::map<std::string, std::vector<RatedMatch>> open_groups;
  std::vector<double> counts;
  int groups = 0;
  SprtState decided;
  bool stopped = false;
  // A bot that no-showed (it was withdrawn): no verdict can come, so the
  // gate stops at once rather than play out its forfeits.
  bool halted = false;
  lo.on_recorded = [&](const MatchSummary& m) {
    for (auto& side : sides) {
      TallyMatch(m, &side);
      halted |= side.no_show_matches > 0;
    }
    RatedMatch r;
    for (const auto& b : m.seat_bots) r.seat_players.push_back(b == cand ? 0 : b == base ? 1 : 2);
    r.placements = m.placements;
    auto& g = open_groups[m.deal_group];
    g.push_back(std::move(r));
    if (g.size() < group_size) return !stopped && !halted;
    int max = 0;
    const int half = GroupHalfPoints(g, 0, 1, &max);
    open_groups.erase(m.deal_group);
    if (half < 0) return !stopped && !halted;
    if (counts.empty()) counts.assign(max + 1, 0.0);
    if (half < static_cast<int>(counts.size())) counts[half] += 1;
    ++groups;
    if (!stopped) {
      SprtState st = Evaluate(counts, elo0, elo1, alpha, beta);
      decided = st;
      if (st.decision != SprtDecision::kNone) {
        stopped = true;
        decided.decision = st.decision;
      }
    }
    return !stopped && !halted;
  };
  // Each match with a fault gets its repro bundles (arena/records/repro_bundle.h).
  ReproBundleWriter bundles(c->records_dir());
  lo.on_recorded = bundles.Hook(std::move(lo.on_recorded));
  // SIGINT, SIGTERM (stop_signals.h): no verdict; the gate is run again.
  SetStopMessage([dir = c->records_dir()](int sig) {
    return StoppedRunMessage(
        sig, dir,
        absl::StrCat("arena: no verdict; a gate is not resumed: run the same command again "
                     "(into a new records folder: another --records, or remove ",
                     dir, ")"));
  });
  auto st = RunConfiguredTournament(*c, lo);
  ReportReproBundles(bundles.Finish(), c->records_dir());
  if (!st.ok()) {
    // It could not run at all (no bot started, a config the tournament
    // refuses): an error, and the reports say that no verdict was given.
    v1::GateResult g;
    g.set_decision("no_verdict");
    g.set_elo0(elo0);
    g.set_elo1(elo1);
    g.set_alpha(alpha);
    g.set_beta(beta);
    g.set_candidate(cand);
    g.set_baseline(base);
    g.set_seats(c->seats());
    g.set_records_dir(c->records_dir());
    g.set_game(c->game());
    g.set_max_fault_rate(options.max_fault_rate);
    g.set_no_verdict(true);
    g.set_no_verdict_reason(
        absl::StrCat("the gate could not run: ", PublicText(st.status().message())));
    g.set_verdict(absl::StrCat("no verdict: ", g.no_verdict_reason()));
    std::cout << g.verdict() << "\n";
    if (absl::Status s = WriteGateReports(options, g); !s.ok()) Fail(s);
    Fail(st.status());
    // The disk could not take a write (5): nothing is wrong with the bots.
    return StorageFailed(st.status()) ? kStorageExitCode : 2;
  }
  // A bot that failed as a program (withdrawn, crashed): say so, with its log.
  for (const auto& e : st->entrants()) {
    if (e.withdrawn()) {
      std::cout << "gate: " << e.bot() << " was WITHDRAWN (its remaining matches are "
                << "its forfeits): " << e.reason() << "; log: " << c->records_dir() << "/"
                << e.log() << "\n";
    } else if (e.restarts() > 0) {
      std::cout << "gate: " << e.bot() << " was restarted " << e.restarts()
                << " time(s); log: " << c->records_dir() << "/" << e.log() << "\n";
    }
  }
  const std::vector<std::string> no_verdict =
      NoVerdictReasons(sides, st->entrants(), options.max_fault_rate);
  // The statistics at the decision (or at the end, without one).
  std::vector<double> at = counts;
  if (!stopped) decided = Evaluate(counts, elo0, elo1, alpha, beta);
  const EloEstimate e = EstimateElo(at);
  int at_groups = 0;
  for (double x : at) at_groups += static_cast<int>(x);
  const char* verdict_word = !no_verdict.empty()                     ? "no_verdict"
                             : decided.decision == SprtDecision::kH1 ? "H1"
                             : decided.decision == SprtDecision::kH0 ? "H0"
                                                                     : "none";
  std::cout << absl::StrFormat(
      "gate: %s (candidate) against %s (baseline), %s, %d seats, deal groups of %d\n"
      "LLR %.3f (bounds %.3f, %.3f) after %d whole deal groups (%d of the %d matches "
      "played)\n"
      "Elo %s\n",
      cand, base, c->game(), c->seats(), group_size, decided.llr, decided.bounds.lower,
      decided.bounds.upper, at_groups, at_groups * static_cast<int>(group_size),
      std::max(at_groups * static_cast<int>(group_size), sides[0].matches),
      EloText(e.elo, e.low, e.high, at_groups));
  if (at_groups > 0 && (at.front() == at_groups || at.back() == at_groups)) {
    std::cout << "(every deal group went the same way: the Elo is a bound)\n";
  }
  std::string verdict;
  if (!no_verdict.empty()) {
    // Forfeits of a bot that did not play, or random moves played for one
    // that faults, say nothing of its strength: no H0 or H1 from them.
    verdict = absl::StrCat("no verdict: ", absl::StrJoin(no_verdict, "; and "));
  } else if (decided.decision == SprtDecision::kH1) {
    verdict = absl::StrFormat("H1 accepted: %s is at least %g Elo stronger than %s", cand,
                              elo1, base);
  } else if (decided.decision == SprtDecision::kH0) {
    verdict = absl::StrFormat("H0 accepted: %s is at most %g Elo stronger than %s", cand,
                              elo0, base);
  } else {
    verdict = absl::StrFormat("no decision within %d matches (--max_games)", options.max_games);
  }
  if (no_verdict.empty()) std::cout << verdict << "\n";

  // Faults, forfeits and withdrawals of both, and their fault rates.
  v1::GateResult g;
  for (const auto& row : st->rows()) {
    if (row.bot() == cand) *g.mutable_candidate_row() = row;
    if (row.bot() == base) *g.mutable_baseline_row() = row;
  }
  // The reports are public text: no path of the organiser's machine.
  for (v1::StandingRow* row : {g.mutable_candidate_row(), g.mutable_baseline_row()}) {
    row->set_withdrawn_reason(PublicText(row->withdrawn_reason()));
  }
  for (int i = 0; i < 2; ++i) {
    const v1::StandingRow* row = i == 0 ? &g.candidate_row() : &g.baseline_row();
    std::cout << absl::StrFormat("%s (%s): faults %s; %d forfeits in %d matches%s\n",
                                 i == 0 ? cand : base, i == 0 ? "candidate" : "baseline",
                                 FaultKindsText(row->fault_kinds()),
                                 row->forfeits(), row->matches(),
                                 row->withdrawn()
                                     ? absl::StrCat("; WITHDRAWN: ",
                                                    PublicText(row->withdrawn_reason()))
                                     : std::string());
  }
  for (int i = 0; i < 2; ++i) {
    const SideTally& t = sides[i];
    std::cout << absl::StrFormat(
        "fault rate of %s: %d of %d matches with a fault (%.1f%%), limit --max_fault_rate "
        "%g%s\n",
        t.name, t.fault_matches, t.matches, 100 * t.FaultRate(), options.max_fault_rate,
        t.FaultRate() > options.max_fault_rate ? ": EXCEEDED" : "");
  }
  if (!no_verdict.empty()) std::cout << verdict << "\n";
  const int code = !no_verdict.empty()                     ? kGateNoVerdict
                   : decided.decision == SprtDecision::kH1 ? 0
                   : decided.decision == SprtDecision::kH0 ? 1
                                                           : 3;
  g.set_decision(verdict_word);
  g.set_llr(decided.llr);
  g.set_lower_bound(decided.bounds.lower);
  g.set_upper_bound(decided.bounds.upper);
  g.set_elo0(elo0);
  g.set_elo1(elo1);
  g.set_alpha(alpha);
  g.set_beta(beta);
  g.set_deal_groups(at_groups);
  g.set_games(at_groups * static_cast<int>(group_size));
  g.set_elo(e.elo);
  g.set_elo_low(e.low);
  g.set_elo_high(e.high);
  for (double x : at) g.add_group_counts(static_cast<int>(x));
  g.set_candidate(cand);
  g.set_baseline(base);
  g.set_seats(c->seats());
  g.set_records_dir(c->records_dir());
  g.set_game(c->game());
  g.set_candidate_matches(sides[0].matches);
  g.set_candidate_fault_matches(sides[0].fault_matches);
  g.set_fault_rate(sides[0].FaultRate());
  g.set_max_fault_rate(options.max_fault_rate);
  g.set_fault_rate_exceeded(sides[0].FaultRate() > options.max_fault_rate);
  g.set_baseline_matches(sides[1].matches);
  g.set_baseline_fault_matches(sides[1].fault_matches);
  g.set_baseline_fault_rate(sides[1].FaultRate());
  g.set_baseline_fault_rate_exceeded(sides[1].FaultRate() > options.max_fault_rate);
  g.set_no_verdict(!no_verdict.empty());
  g.set_no_verdict_reason(absl::StrJoin(no_verdict, "; and "));
  g.set_passed(code == 0);
  g.set_verdict(verdict);
  if (absl::Status s = WriteGateReports(options, g); !s.ok()) return Fail(s);
  return code;
}

}  // namespace arena
