#include "arena/tournament/adaptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace arena {
namespace {

constexpr double kPriorDraws = 1.0;             // as the standings' fit
constexpr double kEloPerNat = 400.0 / 2.302585092994046;  // 400 / ln 10

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

struct AdaptivePlanner::Fit {
  std::vector<double> r;   // natural units
  Eigen::MatrixXd w;       // inverse of the information (before the design effect)
  double design_effect = 1;
  std::vector<int> order;  // best first
  std::vector<AdaptiveComparison> comparisons;
  bool met = false;
};

AdaptivePlanner::AdaptivePlanner(int entrants, int seats, bool duplicate, uint64_t seed,
                                 AdaptiveOptions options)
    : design_(entrants, seats, duplicate, seed),
      options_(options),
      counts_(std::max(1, entrants)),
      last_round_(std::max(1, entrants), -1) {
  const int b = design_.entrants();
  k_ = std::clamp(options_.top_k, 1, std::max(1, b - 1));
  tables_ = options_.tables > 0 ? options_.tables : design_.tables_per_round();
  tables_ = std::max(1, tables_);
  max_seats_ = std::max(2, design_.seats());
}

int AdaptivePlanner::tables_per_round() const {
  const double grown = options_.growth * static_cast<double>(tables_played_);
  return std::max<int>(tables_, static_cast<int>(std::min(grown, 1e9)));
}

void AdaptivePlanner::Observe(absl::Span<const int> seat_entrants,
                              absl::Span<const int> placements) {
  const int n = static_cast<int>(std::min(seat_entrants.size(), placements.size()));
  for (int a = 0; a < n; ++a) {
    for (int c = a + 1; c < n; ++c) {
      const int i = seat_entrants[a], j = seat_entrants[c];
      if (i == j || i < 0 || j < 0 || i >= entrants() || j >= entrants()) continue;
      counts_.n[i][j] += 1;
      counts_.n[j][i] += 1;
      const double wi = placements[a] < placements[c]    ? 1.0
                        : placements[a] == placements[c] ? 0.5
                                                         : 0.0;
      counts_.w[i][j] += wi;
      counts_.w[j][i] += 1 - wi;
    }
  }
  max_seats_ = std::max(max_seats_, n);
  fit_.reset();
}

AdaptivePlanner::Fit AdaptivePlanner::FitNow() const {
  // Check() and the NextRound() after it fit the same results: once.
  if (fit_ != nullptr) return *fit_;
  const int b = entrants();
  Fit f;
  f.r = FitBradleyTerry(counts_, kPriorDraws);
  f.design_effect = (max_seats_ + 1) / 3.0;
  const std::vector<double> info = BradleyTerryInformation(counts_, kPriorDraws, f.r);
  // Column-major, as the solver's arithmetic (and so every figure of
  // schedule.json, to the last bit) has always been.
  const Eigen::MatrixXd h =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          info.data(), b, b);
  f.w = h.ldlt().solve(Eigen::MatrixXd::Identity(b, b));
  f.order.resize(b);
  std::iota(f.order.begin(), f.order.end(), 0);
  std::stable_sort(f.order.begin(), f.order.end(),
                   [&](int x, int y) { return f.r[x] > f.r[y]; });
  // The target's comparisons, tested with Holm's step-down.
  const int k = std::min(k_, b - 1);
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i + 1 < k; ++i) pairs.emplace_back(f.order[i], f.order[i + 1]);
  for (int j = k; j < b && k >= 1; ++j) pairs.emplace_back(f.order[k - 1], f.order[j]);
  for (const auto& [a, c] : pairs) {
    AdaptiveComparison cmp;
    cmp.ahead = a;
    cmp.behind = c;
    const double var =
        f.design_effect * std::max(0.0, f.w(a, a) + f.w(c, c) - 2 * f.w(a, c));
    const double d = f.r[a] - f.r[c];
    cmp.elo_diff = d * kEloPerNat;
    cmp.sd = std::sqrt(var) * kEloPerNat;
    cmp.p = var > 0 ? 0.5 * std::erfc(d / std::sqrt(var) / std::sqrt(2.0)) : 0.5;
    f.comparisons.push_back(cmp);
  }
  std::vector<size_t> by_p(f.comparisons.size());
  std::iota(by_p.begin(), by_p.end(), 0);
  std::stable_sort(by_p.begin(), by_p.end(), [&](size_t x, size_t y) {
    return f.comparisons[x].p < f.comparisons[y].p;
  });
  const double alpha = 1 - options_.confidence;
  const size_t m = by_p.size();
  for (size_t t = 0; t < m; ++t) {
    if (f.comparisons[by_p[t]].p > alpha / static_cast<double>(m - t)) break;
    f.comparisons[by_p[t]].separated = true;
  }
  f.met = std::all_of(f.comparisons.begin(), f.comparisons.end(),
                      [](const AdaptiveComparison& c) { return c.separated; });
  fit_ = std::make_shared<const Fit>(f);
  return f;
}

AdaptiveCheck AdaptivePlanner::Check() const {
  Fit f = FitNow();
  AdaptiveCheck c;
  c.met = f.met;
  c.order = f.order;
  const double mean = f.r.empty() ? 0.0
                                  : std::accumulate(f.r.begin(), f.r.end(), 0.0) /
                                        static_cast<double>(f.r.size());
  for (double r : f.r) c.elo.push_back((r - mean) * kEloPerNat);
  c.comparisons = std::move(f.comparisons);
  return c;
}

std::string AdaptiveCheck::Describe(const std::vector<std::string>& names) const {
  auto name = [&](int e) {
    return e >= 0 && e < static_cast<int>(names.size()) ? names[e] : absl::StrCat("#", e);
  };
  std::string undecided;
  int open = 0;
  for (const AdaptiveComparison& c : comparisons) {
    if (c.separated) continue;
    ++open;
    if (open <= 12) {
      absl::StrAppendFormat(&undecided, "%s%s ahead of %s by %+.0f Elo (sd %.0f, p %.3f)",
                            undecided.empty() ? "" : "; ", name(c.ahead), name(c.behind),
                            c.elo_diff, c.sd, c.p);
    }
  }
  if (open == 0) {
    return absl::StrCat("target met: all ", comparisons.size(),
                        " comparisons of the top separated");
  }
  return absl::StrCat(open, " of ", comparisons.size(), " comparisons undecided: ",
                      undecided, open > 12 ? "; ..." : "");
}

std::vector<std::vector<int>> AdaptivePlanner::NextRound(int max_tables) {
  const int round = rounds_++;
  const int tables = std::clamp(max_tables, 0, tables_per_round());
  std::vector<std::vector<int>> out;
  auto mark = [&](const std::vector<std::vector<int>>& ts) {
    tables_played_ += static_cast<int64_t>(ts.size());
    for (const auto& t : ts) {
      for (int e : t) last_round_[e] = round;
    }
  };
  if (round < options_.warmup_rounds) {
    out = design_.NextRound(std::min(tables, design_.tables_per_round()));
    mark(out);
    return out;
  }
  Fit f = FitNow();
  const int b = entrants();
  const int s = design_.seats();
  // The exploration floor: entrants that sat out explore_every rounds.
  std::vector<int> starved;
  for (int e = 0; e < b; ++e) {
    if (round - last_round_[e] >= options_.explore_every) starved.push_back(e);
  }
  if (!starved.empty()) {
    // Filled up to whole tables with the entrants that have played least.
    std::vector<int> fill(b);
    std::iota(fill.begin(), fill.end(), 0);
    std::stable_sort(fill.begin(), fill.end(), [&](int x, int y) {
      return design_.played()[x] < design_.played()[y];
    });
    std::set<int> in(starved.begin(), starved.end());
    for (int e : fill) {
      if (starved.size() % s == 0) break;
      if (in.insert(e).second) starved.push_back(e);
    }
    if (static_cast<int>(starved.size()) > tables * s) {
      starved.resize(static_cast<size_t>(tables) * s);  // the longest waiting first
    }
    out = design_.TablesFor(starved);
  }
  // The undecided comparisons, and the candidates: their entrants and the
  // entrants next to them in the order.
  std::vector<std::pair<int, int>> open;
  for (const AdaptiveComparison& c : f.comparisons) {
    if (!c.separated) open.emplace_back(c.ahead, c.behind);
  }
  if (open.empty()) {
    // Nothing undecided (the caller should have stopped): a balanced round.
    auto more = design_.NextRound(
        std::min(tables - static_cast<int>(out.size()), design_.tables_per_round()));
    out.insert(out.end(), more.begin(), more.end());
    mark(out);
    return out;
  }
  std::vector<int> position(b);
  for (int i = 0; i < b; ++i) position[f.order[i]] = i;
  std::set<int> cand_set;
  for (const auto& [x, y] : open) {
    for (int e : {x, y}) {
      for (int d = -2; d <= 2; ++d) {
        const int p = position[e] + d;
        if (p >= 0 && p < b) cand_set.insert(f.order[p]);
      }
    }
  }
  for (int i = 0; static_cast<int>(cand_set.size()) < s + 1 && i < b; ++i) {
    cand_set.insert(f.order[i]);
  }
  std::vector<int> cand(cand_set.begin(), cand_set.end());
  // A table's pairs each add p(1 - p) information per match it plays (all
  // its rotations with duplicate deals).
  const double per_table = design_.duplicate() ? s : 1.0;
  Eigen::MatrixXd& w = f.w;
  // The open comparisons' variances once the exploration's tables are in
  // (set below, before the first pick).
  std::vector<double> open_var(open.size());
  auto info = [&](int i, int j) {
    const double p = Sigmoid(f.r[i] - f.r[j]);
    return per_table * p * (1 - p);
  };
  // The relative drop of the open comparisons' variances if i and j
  // compared once more.
  auto gain = [&](int i, int j) {
    const Eigen::VectorXd c = w.col(i) - w.col(j);
    const double h = info(i, j);
    const double denom = 1 + h * (c[i] - c[j]);
    double g = 0;
    for (size_t u = 0; u < open.size(); ++u) {
      const auto [a, e] = open[u];
      const double x = c[a] - c[e];
      g += h * x * x / denom / open_var[u];
    }
    return g;
  };
  auto apply = [&](int i, int j) {
    const Eigen::VectorXd c = w.col(i) - w.col(j);
    const double h = info(i, j);
    w -= (h / (1 + h * (c[i] - c[j]))) * (c * c.transpose());
  };
  for (const auto& t : out) {  // the exploration's tables count too
    for (size_t x = 0; x < t.size(); ++x) {
      for (size_t y = x + 1; y < t.size(); ++y) apply(t[x], t[y]);
    }
  }
  for (size_t u = 0; u < open.size(); ++u) {
    const auto [a, c] = open[u];
    open_var[u] = std::max(1e-12, w(a, a) + w(c, c) - 2 * w(a, c));
  }
  while (static_cast<int>(out.size()) < tables) {
    std::vector<int> table;
    double best = -1;
    int bi = -1, bj = -1;
    for (size_t x = 0; x < cand.size(); ++x) {
      for (size_t y = x + 1; y < cand.size(); ++y) {
        const double g = gain(cand[x], cand[y]);
        if (g > best) best = g, bi = cand[x], bj = cand[y];
      }
    }
    table = {bi, bj};
    while (static_cast<int>(table.size()) < s) {
      double best_add = -1;
      int add = -1;
      for (int e : cand) {
        if (std::find(table.begin(), table.end(), e) != table.end()) continue;
        double g = 0;
        for (int t : table) g += gain(e, t);
        if (g > best_add) best_add = g, add = e;
      }
      table.push_back(add);
    }
    for (size_t x = 0; x < table.size(); ++x) {
      for (size_t y = x + 1; y < table.size(); ++y) apply(table[x], table[y]);
    }
    out.push_back(design_.Place(std::move(table)));
  }
  mark(out);
  return out;
}

}  // namespace arena
