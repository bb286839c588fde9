// Online ratings for a field that changes while it plays (a ladder): each
// player's strength as a belief, a mean and an uncertainty, updated after
// every match by Weng and Lin's Bayesian approximation ("A Bayesian
// Approximation Method for Online Ranking", JMLR 12, 2011, Algorithm 4:
// the Plackett-Luce model, the updates OpenSkill implements), for any
// number of seats, ties allowed. A match moves only its own players, in
// time independent of the field's size; the full fit with intervals
// (arena/stats/ratings.h, `arena standings`) stays the reference, and a
// ladder checks that the two agree.
//
// The scale is Weng and Lin's (and TrueSkill's): a new player has mean 25
// and uncertainty 25/3, and beta (25/6) is the spread of one match's
// performance. A leaderboard ranks by the conservative bound mean - 3 x
// uncertainty, which a new player earns by playing.
//
// Thread safety: plain functions of their arguments.
#ifndef ARENA_ARENA_STATS_ONLINE_RATINGS_H_
#define ARENA_ARENA_STATS_ONLINE_RATINGS_H_

#include <vector>

namespace arena {

struct OnlineRating {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
};

struct OnlineRatingOptions {
  double beta = 25.0 / 6.0;  // the spread of a match's performance
  // The least fraction of its variance an update leaves a player (Weng and
  // Lin's kappa): uncertainty never collapses to 0.
  double kappa = 1e-4;
};

// The players' ratings after a match of theirs: `seats` in seat order,
// `placements` by seat (1 = first; equal placements are ties). Sizes must
// agree and be 2 or more (else the ratings come back as they were).
std::vector<OnlineRating> UpdateOnlineRatings(const std::vector<OnlineRating>& seats,
                                              const std::vector<int>& placements,
                                              const OnlineRatingOptions& options = {});

// What a leaderboard ranks by: mean - z x uncertainty.
inline double ConservativeRating(const OnlineRating& r, double z = 3.0) {
  return r.mu - z * r.sigma;
}

}  // namespace arena

#endif  // ARENA_ARENA_STATS_ONLINE_RATINGS_H_
