#include "arena/stats/sprt.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"

namespace arena {
namespace {

constexpr double kEmptyCategory = 1e-3;

// The distribution with mean s closest to (a, p): p / (1 + x (a - s)).
std::vector<double> MeanConstrained(const std::vector<double>& a,
                                    const std::vector<double>& p, double s) {
  // f(x) = sum p (a - s) / (1 + x (a - s)) falls strictly in x on the open
  // interval where every denominator is positive: bisect it.
  const double lo_a = a.front() - s, hi_a = a.back() - s;  // < 0 < hi_a
  double lo = -1.0 / hi_a, hi = -1.0 / lo_a;
  auto f = [&](double x) {
    double v = 0;
    for (size_t k = 0; k < a.size(); ++k) v += p[k] * (a[k] - s) / (1 + x * (a[k] - s));
    return v;
  };
  for (int i = 0; i < 200; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (f(mid) > 0 ? lo : hi) = mid;
  }
  const double x = lo + (hi - lo) / 2;
  std::vector<double> out(a.size());
  for (size_t k = 0; k < a.size(); ++k) out[k] = p[k] / (1 + x * (a[k] - s));
  return out;
}

}  // namespace

SprtBounds Bounds(double alpha, double beta) {
  return {std::log(beta / (1 - alpha)), std::log((1 - beta) / alpha)};
}

double LlrLogistic(const std::vector<double>& counts, double elo0, double elo1) {
  if (counts.size() < 2) return 0;
  double raw = 0;
  for (double c : counts) raw += c;
  if (raw <= 0) return 0;
  const size_t m = counts.size();
  std::vector<double> a(m), p(m);
  double n = 0;
  for (size_t k = 0; k < m; ++k) {
    a[k] = static_cast<double>(k) / (m - 1);
    p[k] = counts[k] > 0 ? counts[k] : kEmptyCategory;
    n += p[k];
  }
  for (double& x : p) x /= n;
  const std::vector<double> p0 = MeanConstrained(a, p, ScoreFromElo(elo0));
  const std::vector<double> p1 = MeanConstrained(a, p, ScoreFromElo(elo1));
  double sum = 0;
  for (size_t k = 0; k < m; ++k) sum += p[k] * std::log(p1[k] / p0[k]);
  return n * sum;
}

double LlrPentanomial(const std::vector<double>& penta, double elo0, double elo1) {
  return LlrLogistic(penta, elo0, elo1);
}

int GroupHalfPoints(const std::vector<RatedMatch>& group, int candidate,
                    int baseline, int* max_half_points) {
  int half = 0, max = 0;
  for (const RatedMatch& m : group) {
    std::vector<int> cand, base;
    for (size_t s = 0; s < m.seat_players.size(); ++s) {
      if (m.seat_players[s] == candidate) cand.push_back(m.placements[s]);
      if (m.seat_players[s] == baseline) base.push_back(m.placements[s]);
    }
    if (cand.empty() || base.empty()) return -1;
    for (int c : cand) {
      for (int b : base) {
        half += c < b ? 2 : c == b ? 1 : 0;
        max += 2;
      }
    }
  }
  if (max_half_points != nullptr) *max_half_points = max;
  return half;
}

EloEstimate EstimateElo(const std::vector<double>& counts) {
  EloEstimate e;
  const size_t m = counts.size();
  double n = 0, mean = 0, sq = 0;
  for (size_t k = 0; k < m; ++k) {
    const double a = m > 1 ? static_cast<double>(k) / (m - 1) : 0.5;
    n += counts[k];
    mean += counts[k] * a;
    sq += counts[k] * a * a;
  }
  if (n <= 0) return e;
  mean /= n;
  const double var = std::max(0.0, sq / n - mean * mean);
  const double se = std::sqrt(var / n);
  // Scores are kept half a group away from 0 and 1, so that a candidate
  // that won (or lost) every group gets a finite Elo, a bound rather than
  // an estimate.
  const double edge = 0.5 / n;
  auto elo = [edge](double s) { return EloFromScore(std::clamp(s, edge, 1 - edge)); };
  e.elo = elo(mean);
  e.low = elo(mean - 1.959963984540054 * se);
  e.high = elo(mean + 1.959963984540054 * se);
  return e;
}

std::string EloText(double elo, double low, double high, int groups) {
  if (groups <= 0) return absl::StrFormat("%+.1f [%+.1f, %+.1f] (95%%)", elo, low, high);
  // EstimateElo's clamp, as an Elo; a little slack for the text's rounding.
  const double top = EloFromScore(1 - 0.5 / groups) - 1e-6;
  if (elo >= top) return absl::StrFormat("at least %+.1f (95%%)", low);
  if (elo <= -top) return absl::StrFormat("at most %+.1f (95%%)", high);
  const std::string lo_text =
      low <= -top ? std::string("no lower bound") : absl::StrFormat("%+.1f", low);
  const std::string hi_text =
      high >= top ? std::string("no upper bound") : absl::StrFormat("%+.1f", high);
  return absl::StrFormat("%+.1f [%s, %s] (95%%)", elo, lo_text, hi_text);
}

SprtState Evaluate(const std::vector<double>& counts, double elo0, double elo1,
                   double alpha, double beta) {
  SprtState st;
  st.bounds = Bounds(alpha, beta);
  st.llr = LlrLogistic(counts, elo0, elo1);
  if (st.llr >= st.bounds.upper) st.decision = SprtDecision::kH1;
  else if (st.llr <= st.bounds.lower) st.decision = SprtDecision::kH0;
  return st;
}

}  // namespace arena
