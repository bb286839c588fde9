#include "arena/stats/online_ratings.h"

#include <algorithm>
#include <cmath>

namespace arena {

std::vector<OnlineRating> UpdateOnlineRatings(const std::vector<OnlineRating>& seats,
                                              const std::vector<int>& placements,
                                              const OnlineRatingOptions& options) {
  const size_t n = seats.size();
  if (n < 2 || placements.size() != n) return seats;
  const double beta2 = options.beta * options.beta;
  // c: the spread of the whole match's performances.
  double c2 = 0;
  for (const OnlineRating& r : seats) c2 += r.sigma * r.sigma + beta2;
  const double c = std::sqrt(c2);
  // Scaled strengths exp(mu / c), taken relative to the strongest so that
  // no exponential overflows (every ratio below is unchanged by it).
  double top = seats[0].mu;
  for (const OnlineRating& r : seats) top = std::max(top, r.mu);
  std::vector<double> strength(n);
  for (size_t i = 0; i < n; ++i) strength[i] = std::exp((seats[i].mu - top) / c);
  // For each seat q: the sum of the strengths of the seats placed at q's
  // place or below (those still "in the race" when q's place is decided),
  // and how many seats share q's place.
  std::vector<double> sum_q(n, 0.0);
  std::vector<int> tied(n, 0);
  for (size_t q = 0; q < n; ++q) {
    for (size_t s = 0; s < n; ++s) {
      if (placements[s] >= placements[q]) sum_q[q] += strength[s];
      if (placements[s] == placements[q]) ++tied[q];
    }
  }
  std::vector<OnlineRating> out = seats;
  for (size_t i = 0; i < n; ++i) {
    double omega = 0, delta = 0;
    for (size_t q = 0; q < n; ++q) {
      if (placements[q] > placements[i]) continue;  // places decided after i's
      const double p = strength[i] / sum_q[q];      // i's chance to take q's place
      delta += p * (1 - p) / tied[q];
      omega += (q == i ? 1 - p : -p) / tied[q];
    }
    const double var = seats[i].sigma * seats[i].sigma;
    omega *= var / c;
    delta *= var / c2;
    delta *= seats[i].sigma / c;  // gamma, Weng and Lin's default
    out[i].mu = seats[i].mu + omega;
    out[i].sigma = seats[i].sigma * std::sqrt(std::max(1 - delta, options.kappa));
  }
  return out;
}

}  // namespace arena
