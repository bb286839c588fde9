// Ratings from match placements, for any number of seats.
//
// Model: Bradley-Terry over the pairwise placements within each match. Every
// pair of seats of a match held by different bots is one comparison: the bot
// placed better wins it, a shared placement is half a win for each. The
// ratings r maximise
//   sum over comparisons of log sigma(r_winner - r_loser)
// (plus a weak prior, `prior_draws` virtual drawn comparisons of each bot
// against a bot rated 0, so that a bot that won or lost everything still gets
// a finite rating and bots in unconnected groups stay comparable), found by
// Newton's method with Eigen's LDLT solver. Why pairs and not Plackett-Luce:
// if placements come from a Plackett-Luce model (strength plus Gumbel noise),
// the chance that i places before j in a match is exactly sigma(r_i - r_j)
// whoever else sits at the table, so the pairwise fit estimates the same
// strengths; it also takes ties (shared placements) as they are, where
// Plackett-Luce has no tie, and it is the model the SPRT gate and the LOS use.
// The comparisons of one match are not independent: the likelihood's
// intervals are widened by the design effect (seats + 1) / 3 (the variance of
// a bot's pairwise score in one Plackett-Luce match of that many seats,
// against independent comparisons; 1 for two seats).
//
// Scale: Elo, 400 / ln(10) times r, centred so that the mean rating is 0.
// A difference of D Elo means P(placed before) = 1 / (1 + 10^(-D / 400)).
//
// Intervals: the wider of two, so that neither can make them a point:
// (1) the profile-likelihood interval of each centred rating (prior
// included): the ratings whose best fit lies less than
// design_effect * z^2 / 2 below the maximum log-likelihood (z the normal
// quantile of the level, 1.96), which keeps its width with few matches and
// under complete separation, where a bootstrap degenerates; (2) a
// percentile bootstrap (`bootstrap` replicates, linear
// interpolation between order statistics) over deal groups drawn with
// replacement by referee/game_api/rng.h's generator from `seed`, so they are the same
// on every machine (the groups are indexed in name order; groups of the
// same content share a type, and a replicate counts its draws per type,
// which gives the same sums as adding the drawn groups one by one, since
// every count is an integer or a half). LOS(i, j), the likelihood that i
// is stronger than j, is Phi(d / s) where d is the fitted Elo difference and
// s the larger of that difference's standard deviation over the bootstrap
// replicates and from the likelihood's curvature (times the design effect).
//
// Large fields (more than kProfilePlayers players): the profile likelihood,
// whose cost grows with the fourth power of the players, is replaced by its
// quadratic approximation (the centred rating -/+ z times the curvature's
// standard deviation, times the design effect), and each bootstrap replicate
// starts its Newton steps from the full fit instead of 0 (the same maximum).
//
// Ranks: 1 + the number of bots rated strictly higher (equal ratings, to
// 1e-6 Elo, share a rank). A rank's interval is the 2.5% and 97.5% points
// (for level 0.95) of the ranks the bot takes in the bootstrap replicates
// (the order statistics rounded outward, so the bounds are ranks), widened
// to hold the fitted rank; without replicates (fewer than two deal groups),
// 1 + the bots j with LOS(j, i) >= (1 + level) / 2 to n - the bots i is so
// far ahead of.
//
// Surely ahead: every pair {i, j} of the players compared
// (RatingOptions::compare) is tested, two-sided, for a difference of
// strength, with z = d / s (the LOS's d and s) and p = 2 (1 - Phi(|z|));
// Holm's step-down procedure over all k (k - 1) / 2 pairs of the k players
// compared keeps the chance of any false "i is stronger than j" at most
// 1 - level. A pair it rejects is ordered by the sign of d.
//
// Thread safety: pure functions.
#ifndef ARENA_ARENA_STATS_RATINGS_H_
#define ARENA_ARENA_STATS_RATINGS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace arena {

// One match, as the ratings see it.
struct RatedMatch {
  std::string deal_group;          // matches of one deal group are resampled together
  std::vector<int> seat_players;   // player index (0..players-1) by seat
  std::vector<int> placements;     // by seat: 1 is best, ties share
  std::vector<double> scores;      // by seat (head-to-head only)
};

// Fields above this many players use the large-field shortcuts (above).
inline constexpr int kProfilePlayers = 64;

struct RatingOptions {
  int bootstrap = 1000;       // replicates; 0: no intervals (and LOS 0.5)
  uint64_t seed = 1;          // bootstrap generator seed
  double prior_draws = 1.0;   // virtual drawn comparisons per bot vs rating 0 (> 0)
  double level = 0.95;        // interval coverage
  // The players the "surely ahead" tests compare (by player; empty: all).
  // Standings leave withdrawn bots out: that they are behind says nothing.
  std::vector<bool> compare;
};

struct Ratings {
  std::vector<double> elo;            // by player, mean 0
  std::vector<double> low, high;      // interval bounds (= elo without intervals)
  // The interval's two sources (low is the lower of the two lows, high the
  // higher of the two highs): the profile likelihood and the bootstrap
  // (= elo with fewer than two deal groups).
  std::vector<double> profile_low, profile_high, boot_low, boot_high;
  double design_effect = 1;           // (seats + 1) / 3, seats of the widest match
  std::vector<int> rank;              // 1 = best; equal ratings share
  std::vector<int> rank_low, rank_high;  // rank interval (= rank without intervals)
  // surely_ahead[i][j]: i is surely stronger than j (Holm over
  // pairs_compared pairs); empty rows without intervals.
  std::vector<std::vector<bool>> surely_ahead;
  int64_t pairs_compared = 0;         // 0 without intervals
  std::vector<std::vector<double>> los;  // los[i][j] = P(i stronger than j)
  std::vector<int64_t> comparisons;   // pairwise comparisons each player took part in
  int deal_groups = 0;
  int bootstrap = 0;                  // replicates used (0: no bootstrap)
};

// Sufficient statistics of a Bradley-Terry fit: n[i][j] comparisons between
// i and j, w[i][j] of them won by i (ties count half).
struct PairCounts {
  explicit PairCounts(int players)
      : n(players, std::vector<double>(players, 0.0)),
        w(players, std::vector<double>(players, 0.0)) {}
  std::vector<std::vector<double>> n, w;
};

// The comparisons of one match added to `counts` (with weight `weight`).
void AddMatch(const RatedMatch& m, double weight, PairCounts* counts);

// Maximum-likelihood ratings (natural log-odds units, not centred) for the
// counts with `prior_draws` virtual draws per player against rating 0.
std::vector<double> FitBradleyTerry(const PairCounts& counts, double prior_draws);

// The information (minus the Hessian of the log-likelihood, prior included)
// of that model at ratings `r`, row by row (n x n): the inverse of its
// curvature is the ratings' covariance (arena/tournament/adaptive.h).
std::vector<double> BradleyTerryInformation(const PairCounts& counts, double prior_draws,
                                            const std::vector<double>& r);

// A sum of doubles that is exact until it is read: Value() is the exact
// sum rounded once (to nearest, ties to even), so it does not depend on the
// order the terms were added in (Shewchuk's non-overlapping partials, as in
// Python's math.fsum). An infinite or NaN term makes the sum that term (or
// NaN). A few doubles of state.
class ExactSum {
 public:
  void Add(double x);
  double Value() const;

 private:
  absl::InlinedVector<double, 2> partials_;  // increasing magnitude
  double special_ = 0;                       // sum of the non-finite terms
};

// The comparisons of many matches, grouped by deal group: what FitRatings
// needs of them, kept without the matches. Independent of the order the
// matches are added in; a group's name is kept as an interned prefix and its
// trailing number (a tournament's groups are "<game>-<id>-g000123"), its
// comparisons as integer counts of half comparisons, so a group of one pair
// of players costs about 33 bytes (measured on x86-64) however many
// matches it holds.
//
// Thread safety: none (a value type; a copy shares nothing with the
// original, so it may be read on another thread while the original grows).
class DealGroupComparisons {
 public:
  DealGroupComparisons();
  DealGroupComparisons(const DealGroupComparisons& other);
  DealGroupComparisons& operator=(const DealGroupComparisons& other);
  DealGroupComparisons(DealGroupComparisons&&) noexcept;
  DealGroupComparisons& operator=(DealGroupComparisons&&) noexcept;
  ~DealGroupComparisons();

  // Adds one match. Errors (and changes nothing) on a negative player,
  // seats and placements of different lengths or a placement below 1.
  absl::Status Add(absl::string_view deal_group, absl::Span<const int> seat_players,
                   absl::Span<const int> placements);

  // 1 + the highest player index added (0 when empty).
  int players() const { return static_cast<int>(comparisons_.size()); }
  int64_t groups() const;
  // Pairwise comparisons each player took part in, by player.
  const std::vector<int64_t>& comparisons() const { return comparisons_; }
  // The most seats of any match added (0 when empty).
  int max_seats() const { return max_seats_; }

  // One pair's comparisons in a group (i < j as added; n comparisons, w won by i).
  struct Pair {
    int i, j;
    double n, w;
  };
  // Calls `f` with each group's pairs, the groups in the order of their
  // names (byte order), each group's pairs in (i, j) order.
  void ForEachGroup(const std::function<void(absl::Span<const Pair>)>& f) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<int64_t> comparisons_;
  int max_seats_ = 0;
};

// Fits ratings with intervals. Errors on a player index out of range, seats
// and placements of different lengths, a placement below 1, or prior_draws
// <= 0.
absl::StatusOr<Ratings> FitRatings(int players,
                                   const std::vector<RatedMatch>& matches,
                                   const RatingOptions& options);
// The same from comparisons already grouped; `player_of[k]` is the player
// (0..players-1) whose comparisons were added as player k (empty: the same
// index). The result is FitRatings' on the same matches.
absl::StatusOr<Ratings> FitRatings(int players, const DealGroupComparisons& groups,
                                   absl::Span<const int> player_of,
                                   const RatingOptions& options);

// How A fared against B in the matches where both played (different seats).
// A bot in several seats of a match is represented there by its mean score
// and mean placement.
struct HeadToHead {
  int matches = 0;
  int ahead = 0, tied = 0, behind = 0;  // A's mean placement vs B's
  double score = 0, opponent_score = 0;          // means over those matches
  double placement = 0, opponent_placement = 0;  // means over those matches
};
// h2h[a][b]; the diagonal is empty.
std::vector<std::vector<HeadToHead>> HeadToHeads(
    int players, const std::vector<RatedMatch>& matches);

// The same, accumulated match by match, sparse (only pairs that met) and
// independent of the order the matches are added in (exact sums).
// Thread safety: none (a value type).
class HeadToHeadTable {
 public:
  // Adds one match (scores may be shorter than the seats: missing ones are 0).
  void Add(absl::Span<const int> seat_players, absl::Span<const int> placements,
           absl::Span<const double> scores);
  // a's record against b (empty if they never met).
  HeadToHead Get(int a, int b) const;

 private:
  struct Sums {
    int matches = 0, ahead = 0, tied = 0, behind = 0;
    ExactSum score, opponent_score, placement, opponent_placement;
  };
  absl::btree_map<std::pair<int, int>, Sums> pairs_;
};

// Elo difference from an expected score in (0, 1), and back.
double EloFromScore(double score);
double ScoreFromElo(double elo);
// Standard normal CDF.
double NormalCdf(double x);

}  // namespace arena

#endif  // ARENA_ARENA_STATS_RATINGS_H_
