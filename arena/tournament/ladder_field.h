// A ladder's field: every version of every entrant, their online ratings
// (arena/stats/online_ratings.h), and the matchmaking that chooses the
// next tables. What `arena ladder` plans with, and what its simulation
// (tests/bench/ladder_sim.cc) measures, without processes.
//
// Versions: an entrant's submission is a new version; it starts from the
// entrant's last mean with the uncertainty raised (a revised bot is most
// likely near its predecessor, but may have jumped), and the older version
// is retired from new matches (its results stay in the ratings of the
// versions it met). A withdrawn entrant has no active version.
//
// Matchmaking, a batch of tables at a time, each active version at one
// table at most (or, for a small field, at one table a pass; NextBatch):
//  - placement first: a version with fewer than `placement_matches`
//    matches anchors a table before any other;
//  - then by uncertainty, and a floor: a version that has not played for
//    `starve_after` batches comes first among the placed;
//  - each anchor's table is filled with the versions whose means are
//    nearest its own (the matches that say most about its place),
//    preferring established ones (low uncertainty), so that a newcomer is
//    measured against known opponents and no established version plays
//    mostly newcomers; a little randomness keeps the same tables from
//    repeating.
//
// Thread safety: none; one thread owns a field.
#ifndef ARENA_ARENA_TOURNAMENT_LADDER_FIELD_H_
#define ARENA_ARENA_TOURNAMENT_LADDER_FIELD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "arena/stats/online_ratings.h"
#include "referee/game_api/rng.h"

namespace arena {

struct LadderFieldOptions {
  int seats = 2;
  int placement_matches = 10;
  // A new version's uncertainty: its entrant's last, raised by this (in
  // quadrature), at most a new entrant's.
  double new_version_sigma = 25.0 / 6.0;
  int starve_after = 8;   // batches without a match before a version comes first
  double established_weight = 0.5;  // how much an opponent's uncertainty counts against it
  OnlineRatingOptions ratings;
};

class LadderField {
 public:
  struct Version {
    int entrant = 0;
    int number = 1;  // the entrant's 1st, 2nd, ... version
    OnlineRating rating;
    int64_t matches = 0;
    int64_t last_batch = -1;  // the batch it last played in
    bool active = true;
  };

  explicit LadderField(LadderFieldOptions options) : options_(options) {}

  // A new entrant (its first version) or an entrant's new version (its
  // older one retired); returns the version's index.
  int Submit(int entrant);
  // The entrant leaves: its active version is retired.
  void Withdraw(int entrant);
  // The entrant's earlier version `version` is its active one again (its
  // newer one was refused), with its rating as it stands.
  void Reinstate(int entrant, int version);

  // The next batch: at most `tables` seatings (version indices), each
  // version at `tables_per_version` tables at most; fewer when too few
  // versions are active. With more than one, the tables are seated in
  // passes over the same order (placement first, then the floor, then by
  // uncertainty), each version at one table a pass: a field of fewer than
  // `tables` x seats versions still fills the batch.
  std::vector<std::vector<int>> NextBatch(int tables, Rng& rng, int tables_per_version = 1);
  // A played table's result: its seating and placements by seat (1 =
  // first, ties equal). Retired versions' ratings move too (a match that
  // started before its version was retired counts).
  void Record(const std::vector<int>& seating, const std::vector<int>& placements);

  // Active versions, best first by the conservative bound (ties: higher
  // mean, then lower index).
  std::vector<int> Leaderboard() const;

  const std::vector<Version>& versions() const { return versions_; }
  // The entrant's active version, or -1.
  int ActiveVersion(int entrant) const;

 private:
  // Who anchors a table: tier 0 placing, 1 starved, 2 the rest; then
  // order within the tier, then a random tie-break.
  struct AnchorKey {
    int tier;
    double order;
    double tie;
    int version;
  };
  // One pass: tables anchored in `keys`' order (every active version), each
  // version at one table at most, until `out` holds `tables`.
  void Seat(const std::vector<AnchorKey>& keys, int tables, double jitter, Rng& rng,
            std::vector<std::vector<int>>* out);

  LadderFieldOptions options_;
  std::vector<Version> versions_;
  std::vector<int> active_of_entrant_;  // -1: none
  std::vector<int> last_of_entrant_;    // the latest version, active or not; -1: none
  int64_t batch_ = 0;
};

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_LADDER_FIELD_H_
