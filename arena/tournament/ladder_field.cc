#include "arena/tournament/ladder_field.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace arena {
namespace {

// A uniform double in [0, 1).
double Uniform(Rng& rng) { return static_cast<double>(rng.Next() >> 11) * 0x1.0p-53; }

}  // namespace

int LadderField::Submit(int entrant) {
  if (entrant < 0) return -1;
  if (static_cast<size_t>(entrant) >= active_of_entrant_.size()) {
    active_of_entrant_.resize(entrant + 1, -1);
    last_of_entrant_.resize(entrant + 1, -1);
  }
  Version v;
  v.entrant = entrant;
  const int last = last_of_entrant_[entrant];
  if (last >= 0) {
    const Version& before = versions_[last];
    v.number = before.number + 1;
    v.rating.mu = before.rating.mu;
    const OnlineRating fresh;
    v.rating.sigma = std::min(fresh.sigma, std::hypot(before.rating.sigma,
                                                      options_.new_version_sigma));
  }
  Withdraw(entrant);
  versions_.push_back(v);
  const int index = static_cast<int>(versions_.size()) - 1;
  active_of_entrant_[entrant] = index;
  last_of_entrant_[entrant] = index;
  return index;
}

void LadderField::Withdraw(int entrant) {
  if (entrant < 0 || static_cast<size_t>(entrant) >= active_of_entrant_.size()) return;
  const int v = active_of_entrant_[entrant];
  if (v >= 0) versions_[v].active = false;
  active_of_entrant_[entrant] = -1;
}

void LadderField::Reinstate(int entrant, int version) {
  if (entrant < 0 || static_cast<size_t>(entrant) >= active_of_entrant_.size() || version < 0 ||
      static_cast<size_t>(version) >= versions_.size()) {
    return;
  }
  Withdraw(entrant);
  versions_[version].active = true;
  active_of_entrant_[entrant] = version;
}

int LadderField::ActiveVersion(int entrant) const {
  if (entrant < 0 || static_cast<size_t>(entrant) >= active_of_entrant_.size()) return -1;
  return active_of_entrant_[entrant];
}

std::vector<std::vector<int>> LadderField::NextBatch(int tables, Rng& rng,
                                                     int tables_per_version) {
  const int seats = std::max(2, options_.seats);
  std::vector<int> active;
  for (size_t i = 0; i < versions_.size(); ++i) {
    if (versions_[i].active) active.push_back(static_cast<int>(i));
  }
  std::vector<std::vector<int>> out;
  if (static_cast<int>(active.size()) < seats || tables <= 0) return out;
  // Who anchors a table first: versions still placing (fewest matches
  // first), then the starved (longest wait first), then by uncertainty.
  std::vector<AnchorKey> keys;
  for (int v : active) {
    const Version& x = versions_[v];
    const int64_t waited = x.last_batch < 0 ? batch_ + 1 : batch_ - x.last_batch;
    AnchorKey k{2, -x.rating.sigma, Uniform(rng), v};
    if (x.matches < options_.placement_matches) {
      k = {0, static_cast<double>(x.matches), Uniform(rng), v};
    } else if (waited >= options_.starve_after) {
      k = {1, -static_cast<double>(waited), Uniform(rng), v};
    }
    keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end(), [](const AnchorKey& a, const AnchorKey& b) {
    return std::tie(a.tier, a.order, a.tie) < std::tie(b.tier, b.order, b.tie);
  });
  const double jitter = options_.ratings.beta / 2;
  // Pass after pass over the same order, each version at one table at most
  // a pass, until the batch has its tables (a small field at many jobs).
  for (int pass = 0; pass < std::max(1, tables_per_version); ++pass) {
    if (static_cast<int>(out.size()) >= tables) break;
    Seat(keys, tables, jitter, rng, &out);
  }
  ++batch_;
  return out;
}

void LadderField::Seat(const std::vector<AnchorKey>& keys, int tables, double jitter, Rng& rng,
                       std::vector<std::vector<int>>* out) {
  const int seats = std::max(2, options_.seats);
  std::vector<int> active;
  for (const AnchorKey& k : keys) active.push_back(k.version);
  std::vector<bool> used(versions_.size(), false);
  int free = static_cast<int>(active.size());
  for (const AnchorKey& anchor : keys) {
    if (static_cast<int>(out->size()) >= tables || free < seats) break;
    if (used[anchor.version]) continue;
    const OnlineRating& a = versions_[anchor.version].rating;
    // The nearest means, established ones preferred, a little noise.
    std::vector<std::pair<double, int>> near;
    for (int v : active) {
      if (used[v] || v == anchor.version) continue;
      const OnlineRating& r = versions_[v].rating;
      near.emplace_back(std::abs(r.mu - a.mu) + options_.established_weight * r.sigma +
                            jitter * Uniform(rng),
                        v);
    }
    std::partial_sort(near.begin(), near.begin() + (seats - 1), near.end());
    std::vector<int> table = {anchor.version};
    for (int k = 0; k < seats - 1; ++k) table.push_back(near[k].second);
    rng.Shuffle(table);  // seats in no particular order
    for (int v : table) {
      used[v] = true;
      versions_[v].last_batch = batch_;
    }
    free -= seats;
    out->push_back(std::move(table));
  }
}

void LadderField::Record(const std::vector<int>& seating, const std::vector<int>& placements) {
  if (seating.size() != placements.size() || seating.size() < 2) return;
  std::vector<OnlineRating> before;
  for (int v : seating) {
    if (v < 0 || static_cast<size_t>(v) >= versions_.size()) return;
    before.push_back(versions_[v].rating);
  }
  const std::vector<OnlineRating> after =
      UpdateOnlineRatings(before, placements, options_.ratings);
  for (size_t s = 0; s < seating.size(); ++s) {
    versions_[seating[s]].rating = after[s];
    ++versions_[seating[s]].matches;
  }
}

std::vector<int> LadderField::Leaderboard() const {
  std::vector<int> out;
  for (size_t i = 0; i < versions_.size(); ++i) {
    if (versions_[i].active) out.push_back(static_cast<int>(i));
  }
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    const double ca = ConservativeRating(versions_[a].rating);
    const double cb = ConservativeRating(versions_[b].rating);
    if (ca != cb) return ca > cb;
    if (versions_[a].rating.mu != versions_[b].rating.mu) {
      return versions_[a].rating.mu > versions_[b].rating.mu;
    }
    return a < b;
  });
  return out;
}

}  // namespace arena
