// The adaptive schedule's decisions: which tables the next round plays, and
// whether the contest has reached its target. No processes, no files: a
// function of the results it is given, so that a tournament, its resume and
// a simulation (tests/bench/schedule_sim.cc) take the same decisions.
//
// Model: the ratings of arena/stats/ratings.h (Bradley-Terry over the
// pairwise placements of each match, a weak prior), and their covariance
// from the likelihood's curvature, widened by the design effect (S + 1) / 3
// of one match's comparisons (the same as the standings' intervals).
//
// Target: the top K named in order. With the entrants ordered by rating,
// the comparisons are each adjacent pair of the top K (1st against 2nd, ...,
// (K-1)th against Kth) and the Kth against every entrant below it (so that
// no entrant outside the top K may be stronger than one inside). A
// comparison's one-sided p-value is 1 - Phi(d / s) for the difference d and
// its standard deviation s; the family is tested with Holm's step-down at
// level 1 - confidence. The target is met when every comparison passes.
//
// Rounds: the first `warmup_rounds` rounds are rounds of the balanced
// design (arena/tournament/design.h: every entrant plays once, where the
// entrants fill whole tables). After that, a round (of `tables` tables, or
// a `growth` share of the tables so far if more) is:
// first, tables for the entrants that have not played for `explore_every`
// rounds (the exploration floor: no entrant is starved, and one rated low
// by bad luck early gets to show it), then tables picked one at a time for
// the largest expected gain on the comparisons that are still undecided:
// for a table, the sum over those comparisons of the relative drop of their
// variance (Sherman-Morrison on the covariance for each pair at the table),
// the covariance updated after each pick so that a round spreads its
// tables. Candidate tables are built from the entrants of the undecided
// comparisons and their nearest neighbours by rating. An entrant may sit
// at several tables of one round (they are different matches).
//
// Determinism: the counts are sums of halves (exact in any order), the fit
// is deterministic, and ties are broken by entrant index and by the design's
// seeded generator; so the same results give the same round on any machine.
//
// Thread safety: none (one owner).
#ifndef ARENA_ARENA_TOURNAMENT_ADAPTIVE_H_
#define ARENA_ARENA_TOURNAMENT_ADAPTIVE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "arena/stats/ratings.h"
#include "arena/tournament/design.h"

namespace arena {

struct AdaptiveOptions {
  int top_k = 8;               // clipped to entrants - 1 (at least 1)
  double confidence = 0.95;    // Holm's familywise level over the comparisons
  int tables = 0;              // tables a round at least (0: entrants / seats)
  // A round is also at least this share of the tables played so far, so
  // that a long contest fits its ratings a logarithmic number of times.
  double growth = 0.05;
  int warmup_rounds = 2;       // balanced rounds first
  int explore_every = 4;       // every entrant plays at least once in as many rounds
};

// One comparison of the target and how far it is.
struct AdaptiveComparison {
  int ahead = 0, behind = 0;   // entrants, by current rating
  double elo_diff = 0;         // fitted difference, Elo
  double sd = 0;               // its standard deviation, Elo
  double p = 1;                // one-sided p-value
  bool separated = false;      // passes Holm's test
};

struct AdaptiveCheck {
  bool met = false;                       // every comparison separated
  std::vector<int> order;                 // entrants, best first
  std::vector<double> elo;                // by entrant, mean 0
  std::vector<AdaptiveComparison> comparisons;
  std::string Describe(const std::vector<std::string>& names) const;
};

class AdaptivePlanner {
 public:
  AdaptivePlanner(int entrants, int seats, bool duplicate, uint64_t seed,
                  AdaptiveOptions options);

  int entrants() const { return design_.entrants(); }
  // Tables the next round plays: max(tables, growth * tables so far).
  int tables_per_round() const;
  int top_k() const { return k_; }
  int rounds() const { return rounds_; }

  // One match's result: entrant by seat, placements by seat (1 best, ties
  // share). Entrants out of range are ignored.
  void Observe(absl::Span<const int> seat_entrants, absl::Span<const int> placements);
  // The target, from the results so far.
  AdaptiveCheck Check() const;
  // The next round: at most `max_tables` tables (each a seating), chosen
  // from the results so far (see above). Call Check() first to stop.
  std::vector<std::vector<int>> NextRound(int max_tables);

 private:
  struct Fit;
  Fit FitNow() const;
  BalancedDesign design_;
  AdaptiveOptions options_;
  int k_ = 1;
  int tables_ = 1;
  int rounds_ = 0;
  int64_t tables_played_ = 0;
  PairCounts counts_;
  int max_seats_ = 2;
  std::vector<int> last_round_;  // by entrant: the last round it played (-1: none)
  // The fit of the results so far, until the next Observe().
  mutable std::shared_ptr<const Fit> fit_;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_ADAPTIVE_H_
