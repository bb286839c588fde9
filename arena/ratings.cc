#include "arena/ratings.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "referee/rng.h"

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

// One comparison entry of a deal group (i < j).
struct Entry {
  int i, j;
  double n, w;  // comparisons, won by i
};

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

std::vector<double> FitBradleyTerry(const PairCounts& c, double prior) {
  const int n = static_cast<int>(c.n.size());
  Eigen::VectorXd r = Eigen::VectorXd::Zero(n);
  double ll = LogLikelihood(c, prior, r);
  for (int iter = 0; iter < 100; ++iter) {
    Eigen::VectorXd g(n);
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(n, n);  // minus the Hessian
    for (int i = 0; i < n; ++i) {
      const double si = Sigmoid(r[i]);
      g[i] = prior * (0.5 - si);
      h(i, i) += prior * si * (1 - si);
      for (int j = 0; j < n; ++j) {
        if (j == i || c.n[i][j] == 0) continue;
        const double p = Sigmoid(r[i] - r[j]);
        g[i] += c.w[i][j] - c.n[i][j] * p;
        const double v = c.n[i][j] * p * (1 - p);
        h(i, i) += v;
        h(i, j) -= v;
      }
    }
    Eigen::VectorXd step = h.ldlt().solve(g);
    // Newton step, halved until the likelihood does not fall (it is concave).
    double t = 1.0;
    Eigen::VectorXd next = r + step;
    double next_ll = LogLikelihood(c, prior, next);
    while (next_ll < ll - 1e-12 && t > 1e-6) {
      t /= 2;
      next = r + t * step;
      next_ll = LogLikelihood(c, prior, next);
    }
    r = next;
    ll = next_ll;
    if ((t * step).cwiseAbs().maxCoeff() < 1e-10) break;
  }
  return std::vector<double>(r.data(), r.data() + n);
}

absl::StatusOr<Ratings> FitRatings(int players,
                                   const std::vector<RatedMatch>& matches,
                                   const RatingOptions& options) {
  if (players < 1) return absl::InvalidArgumentError("no players to rate");
  if (!(options.prior_draws > 0)) {
    return absl::InvalidArgumentError("prior_draws must be positive");
  }
  if (!(options.level > 0 && options.level < 1)) {
    return absl::InvalidArgumentError("interval level must be in (0, 1)");
  }
  // Group the matches' comparisons by deal group, in name order (so the
  // result does not depend on the order the matches finished in).
  std::map<std::string, PairCounts> by_group;
  Ratings out;
  out.comparisons.assign(players, 0);
  for (const RatedMatch& m : matches) {
    if (m.placements.size() != m.seat_players.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "deal group ", m.deal_group, ": ", m.seat_players.size(), " seats but ",
          m.placements.size(), " placements"));
    }
    for (size_t s = 0; s < m.seat_players.size(); ++s) {
      if (m.seat_players[s] < 0 || m.seat_players[s] >= players) {
        return absl::InvalidArgumentError(absl::StrCat(
            "deal group ", m.deal_group, ": player ", m.seat_players[s],
            " is not one of the ", players));
      }
      if (m.placements[s] < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "deal group ", m.deal_group, ": placement ", m.placements[s],
            " (1 is best)"));
      }
      for (size_t t = 0; t < m.seat_players.size(); ++t) {
        if (m.seat_players[t] != m.seat_players[s]) ++out.comparisons[m.seat_players[s]];
      }
    }
    auto it = by_group.try_emplace(m.deal_group, players).first;
    AddMatch(m, 1.0, &it->second);
  }
  std::vector<std::vector<Entry>> groups;
  PairCounts total(players);
  for (const auto& [name, c] : by_group) {
    std::vector<Entry> entries;
    for (int i = 0; i < players; ++i) {
      for (int j = i + 1; j < players; ++j) {
        if (c.n[i][j] == 0) continue;
        entries.push_back({i, j, c.n[i][j], c.w[i][j]});
        total.n[i][j] += c.n[i][j];
        total.n[j][i] += c.n[i][j];
        total.w[i][j] += c.w[i][j];
        total.w[j][i] += c.n[i][j] - c.w[i][j];
      }
    }
    groups.push_back(std::move(entries));
  }
  out.deal_groups = static_cast<int>(groups.size());
  out.elo = Centred(FitBradleyTerry(total, options.prior_draws));
  out.low = out.high = out.elo;
  out.los.assign(players, std::vector<double>(players, 0.5));
  const int reps = groups.size() >= 2 ? options.bootstrap : 0;
  if (reps > 0) {
    Rng rng(options.seed);
    std::vector<std::vector<double>> samples(players);  // by player
    const uint32_t g = static_cast<uint32_t>(groups.size());
    for (int b = 0; b < reps; ++b) {
      PairCounts c(players);
      for (uint32_t k = 0; k < g; ++k) {
        for (const Entry& e : groups[rng.Uniform(g)]) {
          c.n[e.i][e.j] += e.n;
          c.n[e.j][e.i] += e.n;
          c.w[e.i][e.j] += e.w;
          c.w[e.j][e.i] += e.n - e.w;
        }
      }
      const std::vector<double> elo = Centred(FitBradleyTerry(c, options.prior_draws));
      for (int i = 0; i < players; ++i) samples[i].push_back(elo[i]);
    }
    const double tail = (1 - options.level) / 2;
    for (int i = 0; i < players; ++i) {
      out.low[i] = Quantile(samples[i], tail);
      out.high[i] = Quantile(samples[i], 1 - tail);
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
        const double sd = std::sqrt(sq / std::max(1, reps - 1));
        const double diff = out.elo[i] - out.elo[j];
        out.los[i][j] = sd > 1e-9 ? NormalCdf(diff / sd)
                        : std::abs(diff) < 1e-6 ? 0.5
                        : diff > 0 ? 1.0 : 0.0;
      }
    }
    out.bootstrap = reps;
  }
  out.rank.assign(players, 1);
  for (int i = 0; i < players; ++i) {
    for (int j = 0; j < players; ++j) {
      if (out.elo[j] > out.elo[i] + 1e-6) ++out.rank[i];
    }
  }
  return out;
}

std::vector<std::vector<HeadToHead>> HeadToHeads(
    int players, const std::vector<RatedMatch>& matches) {
  std::vector<std::vector<HeadToHead>> h(players, std::vector<HeadToHead>(players));
  for (const RatedMatch& m : matches) {
    // Each present player's mean score and placement in this match.
    std::map<int, std::pair<double, double>> sum;  // score, placement
    std::map<int, int> seats;
    for (size_t s = 0; s < m.seat_players.size(); ++s) {
      auto& e = sum[m.seat_players[s]];
      e.first += s < m.scores.size() ? m.scores[s] : 0.0;
      e.second += m.placements[s];
      ++seats[m.seat_players[s]];
    }
    for (const auto& [a, ea] : sum) {
      for (const auto& [b, eb] : sum) {
        if (a == b || a < 0 || b < 0 || a >= players || b >= players) continue;
        HeadToHead& x = h[a][b];
        const double sa = ea.first / seats[a], pa = ea.second / seats[a];
        const double sb = eb.first / seats[b], pb = eb.second / seats[b];
        ++x.matches;
        if (pa < pb) ++x.ahead;
        else if (pa == pb) ++x.tied;
        else ++x.behind;
        x.score += sa;
        x.opponent_score += sb;
        x.placement += pa;
        x.opponent_placement += pb;
      }
    }
  }
  for (auto& row : h) {
    for (HeadToHead& x : row) {
      if (x.matches == 0) continue;
      x.score /= x.matches;
      x.opponent_score /= x.matches;
      x.placement /= x.matches;
      x.opponent_placement /= x.matches;
    }
  }
  return h;
}

}  // namespace arena
