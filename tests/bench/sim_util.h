// What the simulations of tests/bench (schedule_sim, ladder_sim) share: a
// simulated match's placements, and seeds run on worker threads.
//
// Thread safety: SimulatedPlacements uses only its arguments; RunSeeds calls
// `simulate` from `threads` threads at once, each seed once.
#ifndef ARENA_TESTS_BENCH_SIM_UTIL_H_
#define ARENA_TESTS_BENCH_SIM_UTIL_H_

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "referee/game_api/rng.h"

namespace arena {

// Placements by seat (1 = first) of a match among players of these Elo
// strengths: Bradley-Terry for two seats, Plackett-Luce for more (each
// strength on the natural scale plus Gumbel noise, highest first).
inline std::vector<int> SimulatedPlacements(const std::vector<double>& elo, Rng& rng) {
  constexpr double kNatPerElo = 2.302585092994046 / 400.0;
  std::vector<double> score(elo.size());
  for (size_t p = 0; p < elo.size(); ++p) {
    const double u = (rng.Next() >> 11) * 0x1.0p-53 + 0x1.0p-54;
    score[p] = elo[p] * kNatPerElo - std::log(-std::log(u));
  }
  std::vector<int> place(elo.size(), 1);
  for (size_t p = 0; p < elo.size(); ++p) {
    for (size_t q = 0; q < elo.size(); ++q) place[p] += score[q] > score[p];
  }
  return place;
}

// simulate(seed) for seeds 0 to seeds - 1 on `threads` threads; the
// results in seed order, whatever the number of threads.
template <typename Out, typename F>
std::vector<Out> RunSeeds(int seeds, int threads, F simulate) {
  std::vector<Out> out(seeds);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = t; i < seeds; i += threads) out[i] = simulate(static_cast<uint64_t>(i));
    });
  }
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace arena

#endif  // ARENA_TESTS_BENCH_SIM_UTIL_H_
