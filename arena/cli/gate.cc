#include "arena/cli/gate.h"

#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "arena/cli/command.h"
#include "arena/cli/repro_commands.h"
#include "arena/common/json_file.h"
#include "arena/stats/ratings.h"
#include "arena/stats/sprt.h"
#include "arena/stats/standings.h"
#include "arena/tournament/schedule.h"
#include "arena/views/reports.h"
#include "google/protobuf/util/json_util.h"
#include "referee/games/registry.h"

namespace arena {

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
  lo.connect_timeout = absl::Milliseconds(c->connect_timeout_ms());
  lo.show_progress = false;
  // The SPRT needs whole deal groups as it goes, so a group's rotations are
  // played together by the same processes (a CI gate's bots are trusted).
  lo.fresh_bots_per_rotation = false;
  // [candidate, baseline, filler (or baseline)...], rotated by the schedule.
  lo.fixed_seating = {0, 1};
  for (int s = 2; s < c->seats(); ++s) lo.fixed_seating.push_back(options.filler.empty() ? 1 : 2);
  const size_t group_size = DistinctRotations(lo.fixed_seating).size();
  const std::string cand = c->bots(0).name(), base = c->bots(1).name();

  std::map<std::string, std::vector<RatedMatch>> open_groups;
  std::vector<double> counts;
  int groups = 0;
  SprtState decided;
  bool stopped = false;
  // The candidate's matches and those in which it had a fault (of any kind,
  // forfeited or not), over every match played, also after the decision.
  int cand_matches = 0, cand_fault_matches = 0;
  lo.on_recorded = [&](const MatchSummary& m) {
    const auto is_cand = [&](int seat) {
      return seat >= 0 && seat < static_cast<int>(m.seat_bots.size()) && m.seat_bots[seat] == cand;
    };
    bool plays = false, faulted = is_cand(m.forfeit_seat);
    for (size_t seat = 0; seat < m.seat_bots.size(); ++seat) plays |= is_cand(static_cast<int>(seat));
    for (const auto& f : m.faults) faulted |= is_cand(f.seat);
    if (plays) {
      ++cand_matches;
      if (faulted) ++cand_fault_matches;
    }
    RatedMatch r;
    for (const auto& b : m.seat_bots) r.seat_players.push_back(b == cand ? 0 : b == base ? 1 : 2);
    r.placements = m.placements;
    auto& g = open_groups[m.deal_group];
    g.push_back(std::move(r));
    if (g.size() < group_size) return !stopped;
    int max = 0;
    const int half = GroupHalfPoints(g, 0, 1, &max);
    open_groups.erase(m.deal_group);
    if (half < 0) return !stopped;
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
    return !stopped;
  };
  // Each match with a fault gets its repro bundles (arena/records/repro_bundle.h).
  ReproBundleWriter bundles(c->records_dir());
  lo.on_recorded = bundles.Hook(std::move(lo.on_recorded));
  auto st = RunConfiguredTournament(*c, lo);
  ReportReproBundles(bundles.Finish(), c->records_dir());
  if (!st.ok()) return Fail(st.status());
  // A candidate that failed as a program (withdrawn, crashed) loses its
  // matches by forfeit: say so, so that it does not read as a weaker bot.
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
  // The statistics at the decision (or at the end, without one).
  std::vector<double> at = counts;
  if (!stopped) decided = Evaluate(counts, elo0, elo1, alpha, beta);
  const EloEstimate e = EstimateElo(at);
  int at_groups = 0;
  for (double x : at) at_groups += static_cast<int>(x);
  const char* verdict_word = decided.decision == SprtDecision::kH1   ? "H1"
                             : decided.decision == SprtDecision::kH0 ? "H0"
                                                                     : "none";
  std::cout << absl::StrFormat(
      "gate: %s (candidate) against %s (baseline), %s, %d seats, deal groups of %d\n"
      "LLR %.3f (bounds %.3f, %.3f) after %d deal groups (%d games)\n"
      "Elo %+.1f [%+.1f, %+.1f] (95%%)\n",
      cand, base, c->game(), c->seats(), group_size, decided.llr, decided.bounds.lower,
      decided.bounds.upper, at_groups, at_groups * static_cast<int>(group_size), e.elo,
      e.low, e.high);
  if (at_groups > 0 && (at.front() == at_groups || at.back() == at_groups)) {
    std::cout << "(every deal group went the same way: the Elo is a bound)\n";
  }
  std::string sprt_line;
  if (decided.decision == SprtDecision::kH1) {
    sprt_line = absl::StrFormat("H1 accepted: %s is at least %g Elo stronger than %s", cand,
                                elo1, base);
  } else if (decided.decision == SprtDecision::kH0) {
    sprt_line = absl::StrFormat("H0 accepted: %s is at most %g Elo stronger than %s", cand,
                                elo0, base);
  } else {
    sprt_line = absl::StrFormat("no decision within %d games (--max_games)", options.max_games);
  }
  std::cout << sprt_line << "\n";

  // Faults, forfeits and withdrawals of both, and the candidate's fault rate.
  v1::GateResult g;
  for (const auto& row : st->rows()) {
    if (row.bot() == cand) *g.mutable_candidate_row() = row;
    if (row.bot() == base) *g.mutable_baseline_row() = row;
  }
  for (int i = 0; i < 2; ++i) {
    const v1::StandingRow* row = i == 0 ? &g.candidate_row() : &g.baseline_row();
    std::cout << absl::StrFormat("%s (%s): faults %s; %d forfeits in %d matches%s\n",
                                 i == 0 ? cand : base, i == 0 ? "candidate" : "baseline",
                                 FaultKindsText(row->fault_kinds()),
                                 row->forfeits(), row->matches(),
                                 row->withdrawn()
                                     ? absl::StrCat("; WITHDRAWN: ", row->withdrawn_reason())
                                     : std::string());
  }
  const double fault_rate =
      cand_matches > 0 ? static_cast<double>(cand_fault_matches) / cand_matches : 0;
  const bool exceeded = fault_rate > options.max_fault_rate;
  std::cout << absl::StrFormat(
      "fault rate of %s: %d of %d matches with a fault (%.1f%%), limit --max_fault_rate %g%s\n",
      cand, cand_fault_matches, cand_matches, 100 * fault_rate, options.max_fault_rate,
      exceeded ? ": EXCEEDED" : "");
  std::string verdict = sprt_line;
  if (exceeded) {
    verdict = absl::StrFormat(
        "FAIL: the fault rate of %s, %.4g, exceeds --max_fault_rate %g, whatever its strength "
        "(%s)",
        cand, fault_rate, options.max_fault_rate, sprt_line);
    std::cout << verdict << "\n";
  }
  const int code = exceeded                                  ? 1
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
  g.set_candidate_matches(cand_matches);
  g.set_candidate_fault_matches(cand_fault_matches);
  g.set_fault_rate(fault_rate);
  g.set_max_fault_rate(options.max_fault_rate);
  g.set_fault_rate_exceeded(exceeded);
  g.set_passed(code == 0);
  g.set_verdict(verdict);
  if (const std::string& json = options.json; !json.empty()) {
    std::string text;
    google::protobuf::util::JsonPrintOptions o;
    o.add_whitespace = true;
    o.preserve_proto_field_names = true;
    o.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(g, &text, o).ok()) {
      return Fail(absl::InternalError("cannot print the gate result"));
    }
    if (absl::Status s = WriteFileAtomically(json, text); !s.ok()) return Fail(s);
  }
  if (!options.junit.empty()) {
    if (absl::Status s = WriteFileAtomically(options.junit, GateJUnit(g)); !s.ok()) return Fail(s);
  }
  if (!options.summary_md.empty()) {
    if (absl::Status s = AppendToFile(options.summary_md, GateMarkdown(g)); !s.ok()) {
      return Fail(s);
    }
  }
  return code;
}

}  // namespace arena
