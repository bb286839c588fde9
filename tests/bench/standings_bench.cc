// Standings (ratings with a 1,000-replicate bootstrap, head-to-head) over a
// number of two-seat deal groups of three bots: what one refresh costs
// during a tournament and what `arena standings` costs after it.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arena/stats/standings.h"
#include "benchmark/benchmark.h"

namespace arena {
namespace {

std::vector<MatchSummary> Matches(int groups) {
  const std::vector<std::string> bots = {"a", "b", "c"};
  std::vector<MatchSummary> ms;
  for (int g = 0; g < groups; ++g) {
    const std::string x = bots[g % 3], y = bots[(g + 1) % 3];
    for (int r = 0; r < 2; ++r) {
      MatchSummary m;
      m.match_id = absl::StrCat("m", g, "-", r);
      m.deal_group = absl::StrCat("g", g);
      m.seat_bots = r == 0 ? std::vector<std::string>{x, y} : std::vector<std::string>{y, x};
      const bool first_wins = (g * 7 + r * 3) % 5 < 3;
      m.placements = first_wins ? std::vector<int>{1, 2} : std::vector<int>{2, 1};
      m.scores = first_wins ? std::vector<double>{0, 3} : std::vector<double>{3, 0};
      ms.push_back(std::move(m));
    }
  }
  return ms;
}

void BM_BuildStandings(benchmark::State& state) {
  const std::vector<MatchSummary> ms = Matches(static_cast<int>(state.range(0)));
  StandingsContext c;
  c.game = "g";
  c.seats = 2;
  c.bots = {"a", "b", "c"};
  for (auto _ : state) {
    auto st = BuildStandings(c, ms);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(state.iterations() * ms.size());
}
BENCHMARK(BM_BuildStandings)->Arg(100)->Arg(1000)->Arg(10000)->Arg(50000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace arena

BENCHMARK_MAIN();
