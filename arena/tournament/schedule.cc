#include "arena/tournament/schedule.h"

#include <algorithm>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"

namespace arena {

absl::StatusOr<std::vector<std::vector<int>>> Arrangements(int bots, int seats,
                                                           int64_t limit) {
  if (bots < 1 || seats < 1) {
    return absl::InvalidArgumentError("need at least one bot and one seat");
  }
  const int distinct = std::min(bots, seats);
  std::vector<std::vector<int>> out;
  std::vector<int> t(seats, 0);
  std::vector<int> used(bots, 0);
  // Depth-first over tuples, pruning those that cannot reach `distinct`.
  std::function<absl::Status(int, int)> rec = [&](int pos,
                                                  int ndistinct) -> absl::Status {
    if (pos == seats) {
      if (ndistinct == distinct) {
        if (static_cast<int64_t>(out.size()) >= limit) {
          return absl::InvalidArgumentError(absl::StrCat(
              "more than ", limit, " seat arrangements for ", bots,
              " bots and ", seats, " seats"));
        }
        out.push_back(t);
      }
      return absl::OkStatus();
    }
    for (int b = 0; b < bots; ++b) {
      const bool fresh = used[b] == 0;
      if (bots >= seats && !fresh) continue;  // all distinct
      if (distinct - (ndistinct + fresh) > seats - pos - 1) continue;
      t[pos] = b;
      ++used[b];
      absl::Status s = rec(pos + 1, ndistinct + fresh);
      --used[b];
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  };
  absl::Status s = rec(0, 0);
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<std::vector<int>>> GauntletArrangements(
    int bots, int seats, int hero, int64_t limit) {
  if (hero < 0 || hero >= bots) {
    return absl::InvalidArgumentError("the gauntlet bot is not one of the bots");
  }
  if (bots < 2) return absl::InvalidArgumentError("a gauntlet needs at least two bots");
  auto pair = Arrangements(2, seats, limit);
  if (!pair.ok()) return pair.status();
  std::vector<std::vector<int>> out;
  for (int x = 0; x < bots; ++x) {
    if (x == hero) continue;
    for (const auto& a : *pair) {
      if (static_cast<int64_t>(out.size()) >= limit) {
        return absl::InvalidArgumentError(
            absl::StrCat("more than ", limit, " gauntlet arrangements"));
      }
      std::vector<int> t;
      for (int b : a) t.push_back(b == 0 ? hero : x);
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::vector<std::vector<int>> DistinctRotations(const std::vector<int>& seating) {
  std::vector<std::vector<int>> out;
  const size_t n = seating.size();
  for (size_t r = 0; r < std::max<size_t>(n, 1); ++r) {
    std::vector<int> t(n);
    for (size_t s = 0; s < n; ++s) t[s] = seating[(s + r) % n];
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  }
  return out;
}

Schedule PlanSchedule(const std::vector<std::vector<int>>& arrangements,
                      int matches, bool duplicate) {
  Schedule sch;
  if (arrangements.empty() || matches < 1) return sch;
  if (!duplicate) {
    const int k = static_cast<int>(arrangements.size());
    for (int i = 0; i < matches; ++i) {
      sch.matches.push_back({i, i, arrangements[i % k]});
    }
    sch.deal_groups = matches;
    sch.cycle = k;
    sch.balanced = matches % k == 0;
    return sch;
  }
  std::vector<std::vector<std::vector<int>>> classes;
  std::set<std::vector<int>> seen;
  for (const auto& a : arrangements) {
    if (seen.count(a)) continue;
    classes.push_back(DistinctRotations(a));
    for (const auto& r : classes.back()) seen.insert(r);
  }
  for (const auto& c : classes) sch.cycle += static_cast<int>(c.size());
  int g = 0;
  while (static_cast<int>(sch.matches.size()) < matches) {
    for (const auto& seating : classes[g % classes.size()]) {
      const int i = static_cast<int>(sch.matches.size());
      sch.matches.push_back({i, g, seating});
    }
    ++g;
  }
  sch.deal_groups = g;
  sch.balanced = g % static_cast<int>(classes.size()) == 0;
  return sch;
}

}  // namespace arena
