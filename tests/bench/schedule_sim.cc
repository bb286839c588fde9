// Schedules compared without processes: a field of known strengths plays
// simulated matches (Bradley-Terry for two seats, Plackett-Luce for more:
// each entrant's Elo on the natural scale plus Gumbel noise, highest
// first), scheduled either adaptively (arena/tournament/adaptive.h) or by
// balanced rounds (arena/tournament/design.h, every entrant once a round),
// each run until the top K are separated at the stated confidence (the
// adaptive schedule's own stopping rule, applied to both) or a budget.
//
// Fields: "even" (strengths 30 Elo apart) or "normal" (drawn from a normal
// of standard deviation 100 Elo), assigned to entrants in a shuffled order
// so that no tie-break by index can help. Reported per schedule: matches
// until separation (mean, median, 90th percentile), matches per entrant,
// how often the true top K came out in order, and Kendall's tau of the
// whole order against the truth.
//
// Usage: schedule_sim --seeds 1000 --field even --seats 2 [--entrants 64]
//        [--top_k 8] [--confidence 0.95] [--budget 400000] [--threads 2]
//        [--schedule both|adaptive|rounds]
// Every figure is a function of the flags (seeded generator, fixed order of
// work), whatever the number of threads.
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
#include "referee/game_api/rng.h"
#include "tests/bench/sim_util.h"

ABSL_FLAG(int, seeds, 200, "simulated contests per schedule");
ABSL_FLAG(std::string, field, "even", "even (30 Elo apart) or normal (sd 100 Elo)");
ABSL_FLAG(int, seats, 2, "seats a match");
ABSL_FLAG(int, entrants, 64, "entrants");
ABSL_FLAG(int, top_k, 8, "the top K to separate");
ABSL_FLAG(double, confidence, 0.95, "Holm's familywise level");
ABSL_FLAG(int64_t, budget, 400000, "at most this many matches a contest");
ABSL_FLAG(int, threads, 2, "worker threads");
ABSL_FLAG(std::string, schedule, "both", "both, adaptive or rounds");
ABSL_FLAG(int, explore_every, 4, "adaptive: every entrant plays once in as many rounds");
ABSL_FLAG(int, warmup_rounds, 2, "adaptive: balanced rounds first");

namespace arena {
namespace {

struct Outcome {
  int64_t matches = 0;
  bool met = false;
  bool top_in_order = false;
  double tau = 0;
};

double Kendall(const std::vector<int>& order, const std::vector<double>& truth) {
  const int n = static_cast<int>(order.size());
  std::vector<int> pos(n);
  for (int i = 0; i < n; ++i) pos[order[i]] = i;
  int64_t concordant = 0, discordant = 0;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (truth[a] == truth[b]) continue;
      const bool truly = truth[a] > truth[b];
      const bool said = pos[a] < pos[b];
      (truly == said ? concordant : discordant) += 1;
    }
  }
  return concordant + discordant > 0
             ? static_cast<double>(concordant - discordant) / (concordant + discordant)
             : 0.0;
}

Outcome Simulate(uint64_t seed, bool adaptive) {
  const int b = absl::GetFlag(FLAGS_entrants);
  const int s = absl::GetFlag(FLAGS_seats);
  const int k = absl::GetFlag(FLAGS_top_k);
  Rng rng(DeriveSeed(seed, 1));
  std::vector<double> elo(b);
  if (absl::GetFlag(FLAGS_field) == "normal") {
    for (int i = 0; i < b; ++i) {
      const double u1 = (rng.Next() >> 11) * 0x1.0p-53 + 0x1.0p-54;
      const double u2 = (rng.Next() >> 11) * 0x1.0p-53;
      elo[i] = 100.0 * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    }
  } else {
    std::vector<int> perm(b);
    std::iota(perm.begin(), perm.end(), 0);
    rng.Shuffle(perm);
    for (int i = 0; i < b; ++i) elo[perm[i]] = 30.0 * (b - 1 - i);
  }
  std::vector<int> truth(b);
  std::iota(truth.begin(), truth.end(), 0);
  std::stable_sort(truth.begin(), truth.end(), [&](int x, int y) { return elo[x] > elo[y]; });

  AdaptiveOptions o;
  o.top_k = k;
  o.confidence = absl::GetFlag(FLAGS_confidence);
  o.explore_every = absl::GetFlag(FLAGS_explore_every);
  o.warmup_rounds = adaptive ? absl::GetFlag(FLAGS_warmup_rounds) : (1 << 30);
  // Independent matches: a table is one match (no deal to duplicate).
  AdaptivePlanner planner(b, s, /*duplicate=*/false, DeriveSeed(seed, 2), o);
  const int64_t budget = absl::GetFlag(FLAGS_budget);
  Outcome out;
  int rounds = 0;
  int next_check = 0;  // balanced rounds: checked on a geometric grid (2 %)
  AdaptiveCheck check;
  for (;;) {
    if (adaptive || rounds >= next_check) {
      check = planner.Check();
      if (check.met) {
        out.met = true;
        break;
      }
      next_check = rounds + std::max(1, rounds / 50);
    }
    if (out.matches >= budget) break;
    const int tables = static_cast<int>(
        std::min<int64_t>(planner.tables_per_round(), budget - out.matches));
    for (const std::vector<int>& seating : planner.NextRound(tables)) {
      std::vector<double> strengths;
      for (int x : seating) strengths.push_back(elo[x]);
      planner.Observe(seating, SimulatedPlacements(strengths, rng));
      ++out.matches;
    }
    ++rounds;
  }
  if (!out.met) check = planner.Check();
  out.top_in_order = std::equal(truth.begin(), truth.begin() + std::min(k, b),
                                check.order.begin());
  out.tau = Kendall(check.order, elo);
  return out;
}

void Report(const char* name, std::vector<Outcome> runs, int entrants) {
  std::vector<int64_t> m;
  double tau = 0;
  int in_order = 0, met = 0;
  for (const Outcome& o : runs) {
    m.push_back(o.matches);
    tau += o.tau;
    in_order += o.top_in_order;
    met += o.met;
  }
  std::sort(m.begin(), m.end());
  const double n = static_cast<double>(runs.size());
  const double mean = std::accumulate(m.begin(), m.end(), 0.0) / n;
  const int seats = absl::GetFlag(FLAGS_seats);
  std::printf(
      "| %s | %d | %.0f | %lld | %lld | %.1f | %.1f %% | %.1f %% | %.3f |\n", name,
      static_cast<int>(runs.size()), mean, static_cast<long long>(m[m.size() / 2]),
      static_cast<long long>(m[static_cast<size_t>(0.9 * (m.size() - 1))]),
      mean * seats / entrants, 100.0 * met / n, 100.0 * in_order / n, tau / n);
}

}  // namespace
}  // namespace arena

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int seeds = absl::GetFlag(FLAGS_seeds);
  const int threads = std::max(1, absl::GetFlag(FLAGS_threads));
  const std::string which = absl::GetFlag(FLAGS_schedule);
  std::printf("field %s, %d entrants, %d seats, top %d at %.0f %%, budget %lld, %d seeds\n\n",
              absl::GetFlag(FLAGS_field).c_str(), absl::GetFlag(FLAGS_entrants),
              absl::GetFlag(FLAGS_seats), absl::GetFlag(FLAGS_top_k),
              100 * absl::GetFlag(FLAGS_confidence),
              static_cast<long long>(absl::GetFlag(FLAGS_budget)), seeds);
  std::printf(
      "| schedule | seeds | matches (mean) | median | 90th pct | matches per entrant | "
      "target met | true top K in order | Kendall tau |\n|---|---|---|---|---|---|---|---|---|\n");
  double mean_adaptive = 0, mean_rounds = 0;
  for (const bool adaptive : {true, false}) {
    if (which == (adaptive ? "rounds" : "adaptive")) continue;
    const std::vector<arena::Outcome> runs = arena::RunSeeds<arena::Outcome>(
        seeds, threads, [&](uint64_t seed) { return arena::Simulate(seed, adaptive); });
    double sum = 0;
    for (const auto& o : runs) sum += static_cast<double>(o.matches);
    (adaptive ? mean_adaptive : mean_rounds) = sum / seeds;
    arena::Report(adaptive ? "adaptive" : "balanced rounds", runs,
                  absl::GetFlag(FLAGS_entrants));
  }
  if (mean_adaptive > 0 && mean_rounds > 0) {
    std::printf("\nadaptive / balanced rounds, mean matches: %.3f\n",
                mean_adaptive / mean_rounds);
  }
  return 0;
}
