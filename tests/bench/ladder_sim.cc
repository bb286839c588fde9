// A ladder's season without processes (arena/tournament/ladder_field.h):
// entrants of known strengths (a normal of standard deviation 100 Elo)
// arrive over the first half of the season and resubmit a few times, each
// new version's strength its predecessor's plus a jump (normal, sd
// `--jump` Elo). Matches are simulated as in schedule_sim (Bradley-Terry
// for two seats, Plackett-Luce for more: Elo on the natural scale plus
// Gumbel noise, highest first), played a batch of tables at a time; the
// tables are chosen by the ladder's matchmaking or, to compare, at random
// among the active versions (each at one table at most a batch, as the
// ladder's).
//
// Reported, over every seed:
//  - placement: each new version, once it has played `--placement_check`
//    matches, its leaderboard rank (by mean - 3 sd, as the ladder shows
//    it, and by mean) against its true rank among the active versions:
//    how often within `--rank_slack`, the median and 90th percentile of the
//    difference, as a share of the field too;
//  - drift: each established version (twice the check's matches), how far
//    its displayed-minus-true rank moves afterwards while newcomers arrive
//    (90th percentile of its largest move; how often beyond the slack);
//  - the final: at the season's end, the leaderboard's top `--finalists`
//    play an adaptive schedule (arena/tournament/adaptive.h) from fresh
//    ratings until its top `--top_k` are separated: how often that names the
//    true top K of the active field in order, and its matches against a
//    round robin's (balanced rounds among the same finalists, checked the
//    same way). Below the table, where its misses come from: how often its
//    finalists held the true top K, how often it separated them within
//    --final_budget, and how often it was right when it did.
//
// Usage: ladder_sim --seeds 1000 --seats 4 [--entrants 200] [--threads 2]
//        [--matchmaking both|ladder|random]
// Every figure is a function of the flags, whatever the number of threads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "arena/tournament/adaptive.h"
#include "arena/tournament/ladder_field.h"
#include "referee/game_api/rng.h"
#include "tests/bench/sim_util.h"

ABSL_FLAG(int, seeds, 200, "simulated seasons per matchmaking");
ABSL_FLAG(int, seats, 4, "seats a match");
ABSL_FLAG(int, entrants, 200, "entrants over the season");
ABSL_FLAG(int, resubmits, 3, "each entrant resubmits 0 to this many times");
ABSL_FLAG(double, jump, 100, "a resubmission's change in strength, sd in Elo");
ABSL_FLAG(int, tables, 16, "tables a batch");
ABSL_FLAG(int, matches_per_version, 120,
          "the season's length: about this many matches for each version");
ABSL_FLAG(int, placement_check, 0, "matches before a new version's rank is checked "
                                   "(0: 30 at 3 seats or more, 60 at 2)");
ABSL_FLAG(int, rank_slack, 3, "a rank within this many of the true one counts as right");
ABSL_FLAG(int, finalists, 16, "the final's field: the leaderboard's top N");
ABSL_FLAG(int, top_k, 8, "the final separates its top K");
ABSL_FLAG(double, confidence, 0.95, "the final's familywise level");
ABSL_FLAG(int64_t, final_budget, 200000, "at most this many matches in a final");
ABSL_FLAG(int, threads, 2, "worker threads");
ABSL_FLAG(std::string, matchmaking, "both", "both, ladder or random");

namespace arena {
namespace {

double Uniform01(Rng& rng) { return ((rng.Next() >> 11) + 0.5) * 0x1.0p-53; }
double Normal(Rng& rng) {
  return std::sqrt(-2 * std::log(Uniform01(rng))) * std::cos(2 * M_PI * Uniform01(rng));
}

struct Season {
  std::vector<int> placement_error;     // |displayed - true| rank, by the bound
  std::vector<int> placement_error_mu;  // the same, by the mean
  std::vector<double> placement_share;  // by the bound, as a share of the field
  std::vector<int> drift;               // established versions' largest move
  bool final_in_order = false;
  bool final_field_holds = false;  // the finalists hold the true top K
  int64_t final_matches = 0, final_rounds_matches = 0;
  bool final_met = false;
  int64_t season_matches = 0;
};

// The final among `elo` (the finalists' strengths): matches until the top
// K are separated, and the order it names.
std::pair<int64_t, std::vector<int>> Final(const std::vector<double>& elo, bool adaptive,
                                           uint64_t seed, bool* met) {
  const int n = static_cast<int>(elo.size());
  AdaptiveOptions o;
  o.top_k = absl::GetFlag(FLAGS_top_k);
  o.confidence = absl::GetFlag(FLAGS_confidence);
  if (!adaptive) o.warmup_rounds = 1 << 30;
  AdaptivePlanner planner(n, absl::GetFlag(FLAGS_seats), /*duplicate=*/false,
                          DeriveSeed(seed, 7), o);
  Rng rng(DeriveSeed(seed, 8));
  int64_t matches = 0;
  const int64_t budget = absl::GetFlag(FLAGS_final_budget);
  int rounds = 0, next_check = 0;
  AdaptiveCheck check;
  *met = false;
  for (;;) {
    if (adaptive || rounds >= next_check) {
      check = planner.Check();
      if (check.met) {
        *met = true;
        break;
      }
      next_check = rounds + std::max(1, rounds / 50);
    }
    if (matches >= budget) break;
    for (const std::vector<int>& seating : planner.NextRound(planner.tables_per_round())) {
      std::vector<double> e;
      for (int x : seating) e.push_back(elo[x]);
      planner.Observe(seating, SimulatedPlacements(e, rng));
      ++matches;
    }
    ++rounds;
  }
  if (!*met) check = planner.Check();
  return {matches, check.order};
}

Season Simulate(uint64_t seed, bool ladder) {
  const int seats = absl::GetFlag(FLAGS_seats);
  const int entrants = absl::GetFlag(FLAGS_entrants);
  const int tables = absl::GetFlag(FLAGS_tables);
  const int check_at = absl::GetFlag(FLAGS_placement_check) > 0
                           ? absl::GetFlag(FLAGS_placement_check)
                           : (seats >= 3 ? 30 : 60);
  Rng world(DeriveSeed(seed, 1));  // the field: the same for both matchmakings
  Rng rng(DeriveSeed(seed, ladder ? 2 : 3));
  // Submissions: (batch, entrant, strength), in batch order.
  struct Submission {
    int64_t batch;
    int entrant;
    double elo;
  };
  std::vector<Submission> subs;
  int versions_total = 0;
  std::vector<std::vector<Submission>> per_entrant(entrants);
  for (int e = 0; e < entrants; ++e) {
    per_entrant[e].push_back({0, e, 100 * Normal(world)});
    const int more = static_cast<int>(world.Uniform(absl::GetFlag(FLAGS_resubmits) + 1));
    for (int r = 0; r < more; ++r) per_entrant[e].push_back({0, e, 0});
    versions_total += 1 + more;
  }
  // The season: long enough for about matches_per_version matches each.
  const int64_t season_tables =
      static_cast<int64_t>(versions_total) * absl::GetFlag(FLAGS_matches_per_version) / seats;
  const int64_t batches = std::max<int64_t>(1, season_tables / tables);
  for (int e = 0; e < entrants; ++e) {
    // Arrival in the first half; resubmissions after it, in the first 80 %.
    const int64_t arrive = static_cast<int64_t>(Uniform01(world) * batches / 2);
    std::vector<int64_t> at = {arrive};
    for (size_t r = 1; r < per_entrant[e].size(); ++r) {
      at.push_back(arrive + static_cast<int64_t>(Uniform01(world) * (batches * 0.8 - arrive)));
    }
    std::sort(at.begin(), at.end());
    double elo = per_entrant[e][0].elo;
    for (size_t r = 0; r < per_entrant[e].size(); ++r) {
      if (r > 0) elo += absl::GetFlag(FLAGS_jump) * Normal(world);
      subs.push_back({at[r], e, elo});
    }
  }
  std::stable_sort(subs.begin(), subs.end(),
                   [](const Submission& a, const Submission& b) { return a.batch < b.batch; });

  LadderFieldOptions fo;
  fo.seats = seats;
  LadderField field(fo);
  std::vector<double> truth;  // by version
  std::vector<int> checked;   // by version: 0 not yet, 1 placement checked, 2 established
  std::vector<int> base_offset, max_drift;
  Season out;
  size_t next_sub = 0;
  for (int64_t b = 0; b < batches; ++b) {
    while (next_sub < subs.size() && subs[next_sub].batch <= b) {
      const int v = field.Submit(subs[next_sub].entrant);
      truth.resize(v + 1);
      truth[v] = subs[next_sub].elo;
      checked.resize(v + 1, 0);
      base_offset.resize(v + 1, 0);
      max_drift.resize(v + 1, 0);
      ++next_sub;
    }
    std::vector<std::vector<int>> batch;
    if (ladder) {
      batch = field.NextBatch(tables, rng);
    } else {
      std::vector<int> active = field.Leaderboard();
      rng.Shuffle(active);
      for (size_t t = 0; static_cast<int>(batch.size()) < tables && t + seats <= active.size();
           t += seats) {
        batch.emplace_back(active.begin() + t, active.begin() + t + seats);
      }
    }
    for (const auto& seating : batch) {
      std::vector<double> e;
      for (int v : seating) e.push_back(truth[v]);
      field.Record(seating, SimulatedPlacements(e, rng));
      ++out.season_matches;
    }
    // Ranks now: displayed (by the bound; by the mean) and true.
    const std::vector<int> board = field.Leaderboard();
    const int n = static_cast<int>(board.size());
    std::vector<int> by_truth = board, by_mu = board;
    std::stable_sort(by_truth.begin(), by_truth.end(),
                     [&](int x, int y) { return truth[x] > truth[y]; });
    const auto& vs = field.versions();
    std::stable_sort(by_mu.begin(), by_mu.end(),
                     [&](int x, int y) { return vs[x].rating.mu > vs[y].rating.mu; });
    std::vector<int> shown(truth.size()), real(truth.size()), shown_mu(truth.size());
    for (int i = 0; i < n; ++i) {
      shown[board[i]] = i;
      real[by_truth[i]] = i;
      shown_mu[by_mu[i]] = i;
    }
    for (int v : board) {
      const int offset = shown[v] - real[v];
      if (checked[v] == 0 && vs[v].matches >= check_at) {
        checked[v] = 1;
        out.placement_error.push_back(std::abs(offset));
        out.placement_error_mu.push_back(std::abs(shown_mu[v] - real[v]));
        out.placement_share.push_back(static_cast<double>(std::abs(offset)) / n);
      }
      if (checked[v] == 1 && vs[v].matches >= 2 * check_at) {
        checked[v] = 2;
        base_offset[v] = offset;
      } else if (checked[v] == 2) {
        max_drift[v] = std::max(max_drift[v], std::abs(offset - base_offset[v]));
      }
    }
  }
  for (size_t v = 0; v < checked.size(); ++v) {
    if (checked[v] == 2) out.drift.push_back(max_drift[v]);
  }
  // The final: the leaderboard's top N, from fresh ratings.
  const std::vector<int> board = field.Leaderboard();
  std::vector<int> by_truth = board;
  std::stable_sort(by_truth.begin(), by_truth.end(),
                   [&](int x, int y) { return truth[x] > truth[y]; });
  const int f = std::min<int>(absl::GetFlag(FLAGS_finalists), static_cast<int>(board.size()));
  const int k = std::min(absl::GetFlag(FLAGS_top_k), f);
  std::vector<double> elo;
  for (int i = 0; i < f; ++i) elo.push_back(truth[board[i]]);
  bool met = false, met_rounds = false;
  auto [matches, order] = Final(elo, /*adaptive=*/true, seed, &met);
  out.final_matches = matches;
  out.final_met = met;
  out.final_field_holds = std::all_of(by_truth.begin(), by_truth.begin() + k, [&](int v) {
    return std::find(board.begin(), board.begin() + f, v) != board.begin() + f;
  });
  out.final_in_order = static_cast<int>(order.size()) >= k;
  for (int i = 0; i < k && out.final_in_order; ++i) {
    out.final_in_order = board[order[i]] == by_truth[i];
  }
  out.final_rounds_matches = Final(elo, /*adaptive=*/false, seed, &met_rounds).first;
  return out;
}

template <typename T>
T Quantile(std::vector<T> v, double q) {
  if (v.empty()) return T();
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}

// Prints the table's row of `runs`; returns the line on where the final's
// misses come from, printed below the table.
std::string Report(const char* name, const std::vector<Season>& runs) {
  const int slack = absl::GetFlag(FLAGS_rank_slack);
  std::vector<int> err, err_mu, drift;
  std::vector<double> share;
  int64_t within = 0, within_mu = 0, drift_over = 0, in_order = 0, met = 0;
  int64_t held = 0, held_in_order = 0, held_met = 0, held_met_in_order = 0;
  double fm = 0, fr = 0, season = 0;
  for (const Season& s : runs) {
    for (int e : s.placement_error) within += e <= slack, err.push_back(e);
    for (int e : s.placement_error_mu) within_mu += e <= slack, err_mu.push_back(e);
    for (int d : s.drift) drift_over += d > slack, drift.push_back(d);
    share.insert(share.end(), s.placement_share.begin(), s.placement_share.end());
    in_order += s.final_in_order;
    held += s.final_field_holds;
    held_in_order += s.final_field_holds && s.final_in_order;
    held_met += s.final_field_holds && s.final_met;
    held_met_in_order += s.final_field_holds && s.final_met && s.final_in_order;
    met += s.final_met;
    fm += static_cast<double>(s.final_matches);
    fr += static_cast<double>(s.final_rounds_matches);
    season += static_cast<double>(s.season_matches);
  }
  const double n = static_cast<double>(runs.size());
  std::printf(
      "| %s | %.0f | %zu | %.1f %% | %d | %d | %.1f %% | %.1f %% | %d | %.1f %% | %.1f %% | "
      "%.0f | %.3f |\n",
      name, season / n, err.size(), 100.0 * within / std::max<size_t>(1, err.size()),
      Quantile(err, 0.5), Quantile(err, 0.9), 100.0 * Quantile(share, 0.9),
      100.0 * within_mu / std::max<size_t>(1, err_mu.size()), Quantile(drift, 0.9),
      100.0 * drift_over / std::max<size_t>(1, drift.size()), 100.0 * in_order / n, fm / n,
      fr > 0 ? fm / fr : 0.0);
  return absl::StrFormat(
      "%s: the final separated its top K within its budget in %.1f %% of seasons; its "
      "field held the true top K in %.1f %%; of those, it named them in order in %.1f %% "
      "(%.1f %% of those it separated)",
      name, 100.0 * met / n, 100.0 * held / n,
      100.0 * held_in_order / std::max<int64_t>(1, held),
      100.0 * held_met_in_order / std::max<int64_t>(1, held_met));
}

}  // namespace
}  // namespace arena

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int seeds = absl::GetFlag(FLAGS_seeds);
  const int threads = std::max(1, absl::GetFlag(FLAGS_threads));
  const std::string which = absl::GetFlag(FLAGS_matchmaking);
  std::printf(
      "%d entrants, %d seats, up to %d resubmissions (jump sd %.0f Elo), %d tables a batch, "
      "about %d matches a version; final: top %d, separating %d at %.0f %%; %d seeds\n\n",
      absl::GetFlag(FLAGS_entrants), absl::GetFlag(FLAGS_seats),
      absl::GetFlag(FLAGS_resubmits), absl::GetFlag(FLAGS_jump), absl::GetFlag(FLAGS_tables),
      absl::GetFlag(FLAGS_matches_per_version), absl::GetFlag(FLAGS_finalists),
      absl::GetFlag(FLAGS_top_k), 100 * absl::GetFlag(FLAGS_confidence), seeds);
  std::printf(
      "| matchmaking | season matches | new versions checked | rank within %d | median rank "
      "error | 90th pct | 90th pct, share of field | within %d by the mean | established drift, "
      "90th pct | drift over %d | final: true top K in order | final matches | / round robin's |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      absl::GetFlag(FLAGS_rank_slack), absl::GetFlag(FLAGS_rank_slack),
      absl::GetFlag(FLAGS_rank_slack));
  std::vector<std::string> finals;  // where each final's misses come from
  for (const bool ladder : {true, false}) {
    if (which == (ladder ? "random" : "ladder")) continue;
    const std::vector<arena::Season> runs = arena::RunSeeds<arena::Season>(
        seeds, threads, [&](uint64_t seed) { return arena::Simulate(seed, ladder); });
    finals.push_back(arena::Report(ladder ? "ladder" : "random", runs));
  }
  std::printf("\n");
  for (const std::string& line : finals) std::printf("%s\n", line.c_str());
  return 0;
}
