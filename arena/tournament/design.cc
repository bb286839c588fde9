#include "arena/tournament/design.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace arena {

BalancedDesign::BalancedDesign(int entrants, int seats, bool duplicate, uint64_t seed)
    : b_(std::max(1, entrants)),
      s_(std::clamp(seats, 1, std::max(1, entrants))),
      duplicate_(duplicate),
      rng_(seed),
      played_(b_, 0),
      meet_(static_cast<size_t>(b_) * b_, 0),
      next_(static_cast<size_t>(b_) * b_, 0),
      seat_(static_cast<size_t>(b_) * s_, 0) {}

std::vector<std::vector<int>> BalancedDesign::NextRound(int tables) {
  tables = std::clamp(tables, 0, tables_per_round());
  std::vector<int> all(b_);
  std::iota(all.begin(), all.end(), 0);
  rng_.Shuffle(all);  // ties in tables played are broken at random
  std::stable_sort(all.begin(), all.end(),
                   [&](int a, int b) { return played_[a] < played_[b]; });
  all.resize(static_cast<size_t>(tables) * s_);
  return TablesFor(std::move(all));
}

std::vector<std::vector<int>> BalancedDesign::TablesFor(std::vector<int> entrants) {
  std::sort(entrants.begin(), entrants.end());
  entrants.erase(std::unique(entrants.begin(), entrants.end()), entrants.end());
  rng_.Shuffle(entrants);
  entrants.resize(entrants.size() / s_ * s_);
  std::vector<std::vector<int>> out = Split(std::move(entrants));
  for (auto& t : out) {
    t = Order(std::move(t));
    Record(t);
  }
  return out;
}

std::vector<std::vector<int>> BalancedDesign::Split(std::vector<int> chosen) {
  const int tables = static_cast<int>(chosen.size()) / s_;
  if (tables < 1) return {};
  // The marginal cost of x meeting the others of `table` once more (all
  // but `skip`): sum of (m + 1)^2 - m^2 = 2m + 1 over them.
  auto cost = [&](int x, const std::vector<int>& table, int skip) {
    int64_t c = 0;
    for (int y : table) {
      if (y != skip && y != x) c += 2 * meet_[x * b_ + y] + 1;
    }
    return c;
  };
  auto total = [&](const std::vector<std::vector<int>>& t) {
    int64_t c = 0;
    for (const auto& table : t) {
      for (int x : table) c += cost(x, table, -1);
    }
    return c;
  };
  std::vector<std::vector<int>> best;
  int64_t best_cost = 0;
  // A few tries, each from its own shuffle: built greedily (each table
  // takes the entrant that has met its members least), then improved by
  // swaps between tables while one lowers the sum of squared meetings.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::vector<int> left = chosen;
    rng_.Shuffle(left);
    std::vector<std::vector<int>> t(tables);
    for (int k = 0; k < tables; ++k) {
      t[k].push_back(left.back());
      left.pop_back();
      while (static_cast<int>(t[k].size()) < s_) {
        size_t pick = 0;
        int64_t pick_cost = std::numeric_limits<int64_t>::max();
        for (size_t i = 0; i < left.size(); ++i) {
          const int64_t c = cost(left[i], t[k], -1);
          if (c < pick_cost) pick_cost = c, pick = i;
        }
        t[k].push_back(left[pick]);
        left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
      }
    }
    for (int pass = 0; pass < 16 && tables > 1 && s_ > 1; ++pass) {
      bool changed = false;
      for (int a = 0; a < tables; ++a) {
        for (int b = a + 1; b < tables; ++b) {
          for (int i = 0; i < s_; ++i) {
            for (int j = 0; j < s_; ++j) {
              const int x = t[a][i], y = t[b][j];
              const int64_t now = cost(x, t[a], x) + cost(y, t[b], y);
              const int64_t then = cost(y, t[a], x) + cost(x, t[b], y);
              if (then < now) {
                std::swap(t[a][i], t[b][j]);
                changed = true;
              }
            }
          }
        }
      }
      if (!changed) break;
    }
    const int64_t c = total(t);
    if (best.empty() || c < best_cost) best = std::move(t), best_cost = c;
  }
  return best;
}

std::vector<int> BalancedDesign::Order(std::vector<int> table) {
  const int n = static_cast<int>(table.size());
  if (n < 2) return table;
  // The cost of a seating: who sits directly before whom (cyclically: the
  // order of play), and with independent deals the seat positions too.
  // A seat already taken more often than the entrant's least-taken seat
  // costs steeply (64 per time more): seat positions come first.
  auto seat_cost = [&](int x, int k) -> int64_t {
    const int* row = &seat_[x * s_];
    const int least = *std::min_element(row, row + s_);
    const int over = std::min(row[k] - least, 8);
    return over == 0 ? 0 : int64_t{1} << (6 * over);
  };
  auto cost = [&](const std::vector<int>& p) {
    int64_t c = 0;
    for (int k = 0; k < n; ++k) {
      c += 2 * next_[p[k] * b_ + p[(k + 1) % n]] + 1;
      if (!duplicate_) c += seat_cost(p[k], k);
    }
    return c;
  };
  if (n > 7) {
    // Greedy: each seat in turn takes the entrant that costs least there.
    std::vector<int> out;
    std::vector<int> left = table;
    while (!left.empty()) {
      size_t best = 0;
      int64_t best_cost = std::numeric_limits<int64_t>::max();
      for (size_t i = 0; i < left.size(); ++i) {
        const int x = left[i];
        const int k = static_cast<int>(out.size());
        int64_t c = duplicate_ ? 0 : seat_cost(x, k);
        if (!out.empty()) c += 2 * next_[out.back() * b_ + x];
        if (c < best_cost) best_cost = c, best = i;
      }
      out.push_back(left[best]);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
    }
    return out;
  }
  std::vector<int> p = table;
  std::sort(p.begin(), p.end());
  std::vector<int> best = p;
  int64_t best_cost = std::numeric_limits<int64_t>::max();
  // Duplicate deals: the cyclic orders (the first entrant fixed; every
  // rotation is played); independent deals: every order.
  const auto first = duplicate_ ? p.begin() + 1 : p.begin();
  do {
    const int64_t c = cost(p);
    if (c < best_cost) best_cost = c, best = p;
  } while (std::next_permutation(first, p.end()));
  return best;
}

std::vector<int> BalancedDesign::Place(std::vector<int> table) {
  std::vector<int> seating = Order(std::move(table));
  Record(seating);
  return seating;
}

void BalancedDesign::Record(const std::vector<int>& seating) {
  const int n = static_cast<int>(seating.size());
  for (int k = 0; k < n; ++k) {
    const int x = seating[k];
    ++played_[x];
    for (int j = 0; j < n; ++j) {
      if (j != k) ++meet_[x * b_ + seating[j]];
    }
    if (n > 1) ++next_[x * b_ + seating[(k + 1) % n]];
    if (duplicate_) {
      for (int s = 0; s < s_; ++s) ++seat_[x * s_ + s];
    } else if (k < s_) {
      ++seat_[x * s_ + k];
    }
  }
}

}  // namespace arena
