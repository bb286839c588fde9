#include "arena/stats/ratings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>

#include "Eigen/Dense"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "referee/game_api/rng.h"

namespace arena {
namespace {

constexpr double kEloPerNat = 400.0 / 2.302585092994045684;  // 400 / ln 10

double Sigmoid(double x) {
  return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}
// log sigma(x), stable for large |x|.
double LogSigmoid(double x) {
  return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}

double LogLikelihood(const PairCounts& c, double prior, const Eigen::VectorXd& r) {
  const int n = static_cast<int>(r.size());
  double ll = 0;
  for (int i = 0; i < n; ++i) {
    ll += prior * 0.5 * (LogSigmoid(r[i]) + LogSigmoid(-r[i]));
    for (int j = i + 1; j < n; ++j) {
      if (c.n[i][j] == 0) continue;
      ll += c.w[i][j] * LogSigmoid(r[i] - r[j]) +
            (c.n[i][j] - c.w[i][j]) * LogSigmoid(r[j] - r[i]);
    }
  }
  return ll;
}

// The gradient g (if not null) and minus the Hessian h of LogLikelihood at
// r: h is the information (BradleyTerryInformation).
template <typename Ratings>
void Derivatives(const PairCounts& c, double prior, const Ratings& r, Eigen::VectorXd* g,
                 Eigen::MatrixXd* h) {
  const int n = static_cast<int>(r.size());
  if (g != nullptr) g->setZero(n);
  h->setZero(n, n);
  for (int i = 0; i < n; ++i) {
    const double si = Sigmoid(r[i]);
    if (g != nullptr) (*g)[i] = prior * (0.5 - si);
    (*h)(i, i) += prior * si * (1 - si);
    for (int j = 0; j < n; ++j) {
      if (j == i || c.n[i][j] == 0) continue;
      const double p = Sigmoid(r[i] - r[j]);
      if (g != nullptr) (*g)[i] += c.w[i][j] - c.n[i][j] * p;
      const double v = c.n[i][j] * p * (1 - p);
      (*h)(i, i) += v;
      (*h)(i, j) -= v;
    }
  }
}

// Maximises LogLikelihood over r = *r + Z z (the columns of Z span the
// directions it may move in; no Z: every direction) by Newton's method,
// each step halved until the likelihood does not fall (it is concave, and
// strictly so in every direction thanks to the prior). Returns the maximum.
double MaximiseOnPlane(const PairCounts& c, double prior, const Eigen::MatrixXd* Z,
                       Eigen::VectorXd* r) {
  double ll = LogLikelihood(c, prior, *r);
  if (Z != nullptr && Z->cols() == 0) return ll;
  Eigen::VectorXd g;
  Eigen::MatrixXd h;
  for (int iter = 0; iter < 100; ++iter) {
    Derivatives(c, prior, *r, &g, &h);
    const Eigen::VectorXd step =
        Z == nullptr ? Eigen::VectorXd(h.ldlt().solve(g))
                     : Eigen::VectorXd(*Z * (Z->transpose() * h * *Z).ldlt().solve(
                                                Z->transpose() * g));
    double t = 1.0;
    Eigen::VectorXd next = *r + step;
    double next_ll = LogLikelihood(c, prior, next);
    while (next_ll < ll - 1e-12 && t > 1e-6) {
      t /= 2;
      next = *r + t * step;
      next_ll = LogLikelihood(c, prior, next);
    }
    *r = next;
    ll = next_ll;
    if ((t * step).cwiseAbs().maxCoeff() < 1e-10) break;
  }
  return ll;
}

// The standard normal quantile of p in (0, 1), by bisection (exact to the
// last few bits; called once per fit).
double NormalQuantile(double p) {
  double lo = -40, hi = 40;
  for (int k = 0; k < 200 && hi - lo > 1e-15; ++k) {
    const double mid = (lo + hi) / 2;
    (NormalCdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Profile-likelihood bounds of player i's centred rating (natural units):
// the values theta of r_i - mean(r) at which the most likely ratings with
// that centred rating have a log-likelihood `drop` below the maximum `top`
// (at r_hat). The profile is concave in theta, so each bound is bracketed
// by stepping out from the estimate (doubling) and then found by the
// Illinois variant of regula falsi. Deterministic: the same input, the same
// bits.
std::pair<double, double> ProfileBounds(const PairCounts& c, double prior,
                                        const Eigen::VectorXd& r_hat, double top, int i,
                                        double drop, double start_step) {
  const int n = static_cast<int>(r_hat.size());
  Eigen::VectorXd a = Eigen::VectorXd::Constant(n, -1.0 / n);
  a[i] += 1.0;
  const double theta_hat = a.dot(r_hat);
  if (n < 2) return {theta_hat, theta_hat};
  // An orthonormal basis of the plane a.r = 0: Q's columns after the first.
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd Z = q.rightCols(n - 1);
  const double aa = a.dot(a);
  // How far below `drop` the profile at theta falls (< 0 inside the bound).
  Eigen::VectorXd r;
  auto excess = [&](double theta) {
    r += (theta - a.dot(r)) / aa * a;  // onto the plane, from the last point
    return top - MaximiseOnPlane(c, prior, &Z, &r) - drop;
  };
  double bound[2];
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? -1.0 : 1.0;
    r = r_hat;
    double in = theta_hat, f_in = -drop;
    double step = std::max(start_step, 1e-3);
    double out = theta_hat + sign * step;
    double f_out = excess(out);
    // Stepping out: 60 doublings reach far beyond any rating the prior allows.
    for (int k = 0; k < 60 && f_out < 0; ++k) {
      in = out;
      f_in = f_out;
      step *= 2;
      out = theta_hat + sign * step;
      f_out = excess(out);
    }
    if (f_out < 0) {  // not reached (the prior bounds the ratings): no bound found
      bound[side] = out;
      continue;
    }
    // Illinois: regula falsi, halving the value of an end kept twice.
    int kept = 0;
    double x = out;
    for (int k = 0; k < 100 && std::abs(out - in) > 1e-9; ++k) {
      x = out - f_out * (out - in) / (f_out - f_in);
      const double fx = excess(x);
      if (fx == 0) {
        in = out = x;
        break;
      }
      if (fx < 0) {
        in = x;
        f_in = fx;
        if (kept == 1) f_out /= 2;
        kept = 1;
      } else {
        out = x;
        f_out = fx;
        if (kept == -1) f_in /= 2;
        kept = -1;
      }
    }
    bound[side] = (in + out) / 2;
  }
  return {bound[0], bound[1]};
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

std::vector<double> Centred(const std::vector<double>& r) {
  double mean = 0;
  for (double x : r) mean += x;
  mean /= r.empty() ? 1 : r.size();
  std::vector<double> out;
  for (double x : r) out.push_back((x - mean) * kEloPerNat);
  return out;
}

// 1 + the number of ratings above each by more than 1e-6 (Elo).
std::vector<int> RanksOf(const std::vector<double>& elo) {
  std::vector<double> sorted = elo;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> rank(elo.size());
  for (size_t i = 0; i < elo.size(); ++i) {
    const auto above = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(),
                                                        elo[i] + 1e-6);
    rank[i] = 1 + static_cast<int>(above);
  }
  return rank;
}

// The order statistics of `v` at q (rounded down) and 1 - q (rounded up).
std::pair<int, int> RankBounds(std::vector<int> v, double q) {
  std::sort(v.begin(), v.end());
  const double last = static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(q * last));
  const size_t hi = std::min(v.size() - 1, static_cast<size_t>(std::ceil((1 - q) * last)));
  return {v[lo], v[hi]};
}

}  // namespace

double EloFromScore(double s) { return -400.0 * std::log10(1.0 / s - 1.0); }
double ScoreFromElo(double e) { return 1.0 / (1.0 + std::pow(10.0, -e / 400.0)); }
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

void AddMatch(const RatedMatch& m, double weight, PairCounts* c) {
  const size_t seats = m.seat_players.size();
  for (size_t a = 0; a < seats; ++a) {
    for (size_t b = a + 1; b < seats; ++b) {
      const int i = m.seat_players[a], j = m.seat_players[b];
      if (i == j) continue;
      const double win_i = m.placements[a] < m.placements[b]    ? 1.0
                           : m.placements[a] == m.placements[b] ? 0.5
                                                                : 0.0;
      c->n[i][j] += weight;
      c->n[j][i] += weight;
      c->w[i][j] += weight * win_i;
      c->w[j][i] += weight * (1.0 - win_i);
    }
  }
}

std::vector<double> BradleyTerryInformation(const PairCounts& counts, double prior_draws,
                                            const std::vector<double>& r) {
  Eigen::MatrixXd h;
  Derivatives(counts, prior_draws, r, nullptr, &h);
  const int n = static_cast<int>(r.size());
  std::vector<double> out(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) out[static_cast<size_t>(i) * n + j] = h(i, j);
  }
  return out;
}

std::vector<double> FitBradleyTerry(const PairCounts& c, double prior) {
  const int n = static_cast<int>(c.n.size());
  Eigen::VectorXd r = Eigen::VectorXd::Zero(n);
  MaximiseOnPlane(c, prior, nullptr, &r);
  return std::vector<double>(r.data(), r.data() + n);
}

absl::StatusOr<Ratings> FitRatings(int players,
                                   const std::vector<RatedMatch>& matches,
                                   const RatingOptions& options) {
  DealGroupComparisons groups;
  for (const RatedMatch& m : matches) {
    for (int p : m.seat_players) {
      if (p < 0 || p >= players) {
        return absl::InvalidArgumentError(absl::StrCat(
            "deal group ", m.deal_group, ": player ", p, " is not one of the ", players));
      }
    }
    if (absl::Status s = groups.Add(m.deal_group, m.seat_players, m.placements); !s.ok()) {
      return s;
    }
  }
  return FitRatings(players, groups, {}, options);
}

absl::StatusOr<Ratings> FitRatings(int players, const DealGroupComparisons& groups,
                                   absl::Span<const int> player_of,
                                   const RatingOptions& options) {
  if (players < 1) return absl::InvalidArgumentError("no players to rate");
  if (!(options.prior_draws > 0)) {
    return absl::InvalidArgumentError("prior_draws must be positive");
  }
  if (!(options.level > 0 && options.level < 1)) {
    return absl::InvalidArgumentError("interval level must be in (0, 1)");
  }
  if (!player_of.empty() && player_of.size() < static_cast<size_t>(groups.players())) {
    return absl::InvalidArgumentError(absl::StrCat(
        groups.players(), " players added, ", player_of.size(), " mapped"));
  }
  auto map = [&](int k) { return player_of.empty() ? k : player_of[k]; };
  Ratings out;
  out.comparisons.assign(players, 0);
  for (int k = 0; k < groups.players(); ++k) {
    const int p = map(k);
    if (p < 0 || p >= players) {
      return absl::InvalidArgumentError(
          absl::StrCat("player ", p, " is not one of the ", players));
    }
    out.comparisons[p] += groups.comparisons()[k];
  }
  // Groups of the same content (the same pairs with the same counts, in
  // players' terms) are interchangeable: the fit and the bootstrap need only
  // each group's type (its index in name order -> type) and each type's
  // pairs. A round robin of 8 bots in two seats has a few hundred types
  // however many groups it plays, so this costs 4 bytes per group.
  struct TypePair {
    int i, j;     // i < j
    double n, w;  // comparisons, won by i
  };
  std::vector<TypePair> type_pairs;  // type t's: [type_end[t - 1], type_end[t])
  std::vector<size_t> type_end;
  std::vector<uint32_t> type_of;     // by group, in name order
  type_of.reserve(static_cast<size_t>(groups.groups()));
  absl::flat_hash_map<std::string, uint32_t> type_ids;
  std::vector<TypePair> mapped;
  std::string key;
  groups.ForEachGroup([&](absl::Span<const DealGroupComparisons::Pair> pairs) {
    mapped.clear();
    for (const auto& p : pairs) {
      int i = map(p.i), j = map(p.j);
      double w = p.w;
      if (i > j) {
        std::swap(i, j);
        w = p.n - w;
      }
      mapped.push_back({i, j, p.n, w});
    }
    std::sort(mapped.begin(), mapped.end(), [](const TypePair& a, const TypePair& b) {
      return a.i != b.i ? a.i < b.i : a.j < b.j;
    });
    key.assign(reinterpret_cast<const char*>(mapped.data()),
               mapped.size() * sizeof(TypePair));
    auto [it, fresh] = type_ids.try_emplace(key, static_cast<uint32_t>(type_end.size()));
    if (fresh) {
      type_pairs.insert(type_pairs.end(), mapped.begin(), mapped.end());
      type_end.push_back(type_pairs.size());
    }
    type_of.push_back(it->second);
  });
  // Adds each type's pairs `times[t]` times. Counts are integers and
  // halves, so every sum is exact and the grouping changes nothing.
  auto add_types = [&](const std::vector<uint32_t>& times, PairCounts* c) {
    for (size_t t = 0; t < type_end.size(); ++t) {
      if (times[t] == 0) continue;
      for (size_t e = t == 0 ? 0 : type_end[t - 1]; e < type_end[t]; ++e) {
        const TypePair& x = type_pairs[e];
        const double k = times[t];
        c->n[x.i][x.j] += k * x.n;
        c->n[x.j][x.i] += k * x.n;
        c->w[x.i][x.j] += k * x.w;
        c->w[x.j][x.i] += k * (x.n - x.w);
      }
    }
  };
  const size_t num_groups = type_of.size();
  std::vector<uint32_t> times(type_end.size(), 0);
  for (uint32_t t : type_of) ++times[t];
  PairCounts total(players);
  add_types(times, &total);
  out.deal_groups = static_cast<int>(num_groups);
  const std::vector<double> fit = FitBradleyTerry(total, options.prior_draws);
  out.elo = Centred(fit);
  out.low = out.high = out.elo;
  out.profile_low = out.profile_high = out.elo;
  out.los.assign(players, std::vector<double>(players, 0.5));
  out.rank = RanksOf(out.elo);
  out.rank_low = out.rank_high = out.rank;
  if (options.bootstrap <= 0) return out;
  // The likelihood's side: the profile-likelihood interval of each centred
  // rating, its threshold widened by the design effect of the comparisons
  // of one match (they are not independent), and each pair's curvature
  // standard deviation (likewise widened) for the LOS.
  const int seats = std::max(2, groups.max_seats());
  out.design_effect = (seats + 1) / 3.0;
  const double z = NormalQuantile((1 + options.level) / 2);
  const double drop = out.design_effect * z * z / 2;
  const Eigen::VectorXd r_hat = Eigen::Map<const Eigen::VectorXd>(fit.data(), players);
  const double top = LogLikelihood(total, options.prior_draws, r_hat);
  Eigen::VectorXd grad;
  Eigen::MatrixXd info;
  Derivatives(total, options.prior_draws, r_hat, &grad, &info);
  const Eigen::MatrixXd cov = info.ldlt().solve(Eigen::MatrixXd::Identity(players, players));
  // A large field: the profile likelihood costs O(players^4) and is close
  // to its quadratic approximation (many comparisons a player), which is
  // used instead: the centred rating -/+ z times its curvature sd.
  const bool large = players > kProfilePlayers;
  for (int i = 0; i < players; ++i) {
    Eigen::VectorXd a = Eigen::VectorXd::Constant(players, -1.0 / players);
    a[i] += 1.0;
    const double sd = std::sqrt(std::max(0.0, out.design_effect * a.dot(cov * a)));
    if (large) {
      out.profile_low[i] = out.elo[i] - z * sd * kEloPerNat;
      out.profile_high[i] = out.elo[i] + z * sd * kEloPerNat;
      continue;
    }
    const auto [lo, hi] =
        ProfileBounds(total, options.prior_draws, r_hat, top, i, drop, z * sd);
    out.profile_low[i] = std::min(lo * kEloPerNat, out.elo[i]);
    out.profile_high[i] = std::max(hi * kEloPerNat, out.elo[i]);
  }
  out.low = out.profile_low;
  out.high = out.profile_high;
  std::vector<std::vector<double>> sd(players, std::vector<double>(players, 0.0));
  for (int i = 0; i < players; ++i) {
    for (int j = 0; j < players; ++j) {
      if (i == j) continue;
      const double v = cov(i, i) + cov(j, j) - cov(i, j) - cov(j, i);
      sd[i][j] = std::sqrt(std::max(0.0, out.design_effect * v)) * kEloPerNat;
    }
  }
  // The bootstrap's side, with at least two deal groups to draw from.
  const int reps = num_groups >= 2 ? options.bootstrap : 0;
  out.boot_low = out.boot_high = out.elo;
  if (reps > 0) {
    Rng rng(options.seed);
    std::vector<std::vector<double>> samples(players);  // by player
    std::vector<std::vector<int>> rank_samples(players);
    const uint32_t g = static_cast<uint32_t>(num_groups);
    // A replicate draws g groups (their indices in name order) with
    // replacement and adds each drawn group's type once per draw.
    for (int b = 0; b < reps; ++b) {
      std::fill(times.begin(), times.end(), 0);
      for (uint32_t k = 0; k < g; ++k) ++times[type_of[rng.Uniform(g)]];
      PairCounts c(players);
      add_types(times, &c);
      // A large field's replicates start from the fit (a few Newton steps
      // instead of a dozen); a small one's from 0, as always.
      Eigen::VectorXd r = large ? r_hat : Eigen::VectorXd::Zero(players);
      MaximiseOnPlane(c, options.prior_draws, nullptr, &r);
      const std::vector<double> elo = Centred(std::vector<double>(r.data(), r.data() + players));
      const std::vector<int> rank = RanksOf(elo);
      for (int i = 0; i < players; ++i) {
        samples[i].push_back(elo[i]);
        rank_samples[i].push_back(rank[i]);
      }
    }
    const double tail = (1 - options.level) / 2;
    for (int i = 0; i < players; ++i) {
      out.boot_low[i] = Quantile(samples[i], tail);
      out.boot_high[i] = Quantile(samples[i], 1 - tail);
      out.low[i] = std::min(out.low[i], out.boot_low[i]);
      out.high[i] = std::max(out.high[i], out.boot_high[i]);
      const auto [lo, hi] = RankBounds(rank_samples[i], tail);
      out.rank_low[i] = std::min(lo, out.rank[i]);
      out.rank_high[i] = std::max(hi, out.rank[i]);
    }
    for (int i = 0; i < players; ++i) {
      for (int j = 0; j < players; ++j) {
        if (i == j) continue;
        double mean = 0, sq = 0;
        for (int b = 0; b < reps; ++b) mean += samples[i][b] - samples[j][b];
        mean /= reps;
        for (int b = 0; b < reps; ++b) {
          const double d = samples[i][b] - samples[j][b] - mean;
          sq += d * d;
        }
        sd[i][j] = std::max(sd[i][j], std::sqrt(sq / std::max(1, reps - 1)));
      }
    }
    out.bootstrap = reps;
  }
  for (int i = 0; i < players; ++i) {
    for (int j = 0; j < players; ++j) {
      if (i == j) continue;
      const double diff = out.elo[i] - out.elo[j];
      out.los[i][j] = sd[i][j] > 1e-9 ? NormalCdf(diff / sd[i][j])
                      : std::abs(diff) < 1e-6 ? 0.5
                      : diff > 0 ? 1.0 : 0.0;
    }
  }
  if (reps == 0) {
    // No replicates: the bots each one is (or is not) clearly behind or
    // ahead of, pair by pair, at the level.
    const double sure = (1 + options.level) / 2;
    for (int i = 0; i < players; ++i) {
      int above = 0, below = 0;
      for (int j = 0; j < players; ++j) {
        if (j == i) continue;
        if (out.los[j][i] >= sure) ++above;
        if (out.los[i][j] >= sure) ++below;
      }
      out.rank_low[i] = std::min(out.rank[i], 1 + above);
      out.rank_high[i] = std::max(out.rank[i], players - below);
    }
  }
  // Surely ahead: Holm's step-down over every pair's two-sided p-value,
  // smallest first (ties in pair order, so the result never depends on the
  // sort), rejecting while p_(k) <= alpha / (m - k).
  struct Test {
    double p;
    int i, j;
  };
  std::vector<Test> tests;
  auto compared = [&](int i) {
    return options.compare.empty() ||
           (static_cast<size_t>(i) < options.compare.size() && options.compare[i]);
  };
  for (int i = 0; i < players; ++i) {
    if (!compared(i)) continue;
    for (int j = i + 1; j < players; ++j) {
      if (!compared(j)) continue;
      const double diff = out.elo[i] - out.elo[j];
      const double p = sd[i][j] > 1e-9 ? std::erfc(std::abs(diff) / sd[i][j] / std::sqrt(2.0))
                       : std::abs(diff) < 1e-6 ? 1.0
                                               : 0.0;
      tests.push_back({p, i, j});
    }
  }
  std::sort(tests.begin(), tests.end(), [](const Test& a, const Test& b) {
    if (a.p != b.p) return a.p < b.p;
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  });
  out.surely_ahead.assign(players, std::vector<bool>(players, false));
  out.pairs_compared = static_cast<int64_t>(tests.size());
  const double alpha = 1 - options.level;
  for (size_t k = 0; k < tests.size(); ++k) {
    if (!(tests[k].p <= alpha / static_cast<double>(tests.size() - k))) break;
    const Test& t = tests[k];
    if (out.elo[t.i] > out.elo[t.j]) {
      out.surely_ahead[t.i][t.j] = true;
    } else {
      out.surely_ahead[t.j][t.i] = true;
    }
  }
  return out;
}

}  // namespace arena
