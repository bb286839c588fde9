// Sequential probability ratio test of a candidate against a baseline, on
// the scores of whole deal groups (used by `arena gate`).
//
// Two seats (as fishtest does with game pairs): a deal group is one deal
// played twice with the seats swapped. The candidate's score in a match is 1
// (placed before the baseline), 1/2 (shared placement) or 0; a deal pair
// scores 0, 1/2, 1, 3/2 or 2, i.e. one of the five pentanomial outcomes
// LL, LD, WL+DD, WD, WW. Pairs are independent where single games of one
// deal are not, so the test's variance is the true one.
//
// N seats: a deal group is one deal played once for each rotation of the
// seating [candidate, baseline, filler...] (S matches). In each match the
// candidate scores against each baseline seat 1, 1/2 or 0 as above; the
// group's score is the sum over the S matches and the B baseline seats per
// match, in half points k = 0..2SB, and its normalised value is k / (2SB).
// The distribution of k over groups is the (2SB+1)-nomial generalisation of
// the pentanomial, and the test runs on it unchanged (for S = 2, B = 1 it is
// exactly the pentanomial test).
//
// The test (a generalised SPRT, as fishtest's logistic-Elo test): H0 is
// "expected score s0 = L(elo0)", H1 "s1 = L(elo1)", L(e) = 1/(1+10^(-e/400)),
// i.e. Elo on the logistic scale of the ratings (not fishtest's normalised
// Elo). With N groups and empirical frequencies p_k of values a_k (empty
// categories get 1e-3 of a count, as fishtest does, so that the maximum-
// likelihood distributions exist), the log-likelihood ratio is
//   LLR = N * sum_k p_k * log(p_k(s1) / p_k(s0)),
// where p_k(s) = p_k / (1 + x (a_k - s)) is the distribution closest to p
// (in the likelihood sense) whose mean is s, x solving
//   sum_k p_k (a_k - s) / (1 + x (a_k - s)) = 0.
// The test stops when LLR <= log(beta / (1 - alpha)) (accept H0) or
// LLR >= log((1 - beta) / alpha) (accept H1).
//
// Thread safety: pure functions.
#ifndef ARENA_ARENA_STATS_SPRT_H_
#define ARENA_ARENA_STATS_SPRT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "arena/stats/ratings.h"

namespace arena {

struct SprtBounds {
  double lower, upper;  // accept H0 at or below, H1 at or above
};
SprtBounds Bounds(double alpha, double beta);

// LLR for category counts: counts[k] groups scored k / (counts.size() - 1).
// At least two categories; an empty or all-zero vector gives 0.
double LlrLogistic(const std::vector<double>& counts, double elo0, double elo1);

// The same for pentanomial counts LL, LD, WL+DD, WD, WW.
double LlrPentanomial(const std::vector<double>& penta, double elo0, double elo1);

// The candidate's score in one deal group, in half points (0..2SB): every
// match of the group, every seat of `baseline` against the seat(s) of
// `candidate`. Returns -1 if a match lacks either.
int GroupHalfPoints(const std::vector<RatedMatch>& group, int candidate,
                    int baseline, int* max_half_points);

// Elo of the candidate against the baseline from the category counts, with
// a 95% interval (normal approximation to the mean group score, variance of
// the group scores: pairing by deal is kept). Mean scores are clamped to
// [1/(2N), 1 - 1/(2N)] for N groups, so a clean sweep gives a finite bound.
struct EloEstimate {
  double elo = 0, low = 0, high = 0;
};
EloEstimate EstimateElo(const std::vector<double>& counts);

// The estimate and its interval for people, from `groups` deal groups:
// "+190.8 [+150.2, +231.4] (95%)". An end the clamp above holds (a score
// within half a group of 0 or 1, which `groups` groups cannot tell from a
// clean sweep, of infinite Elo) is open: "+850.0 [+800.0, no upper bound]
// (95%)"; with the estimate on it too, only the other end is known and the
// text is a bound: "at least +916.6 (95%)", "at most -916.6 (95%)".
std::string EloText(double elo, double low, double high, int groups);

enum class SprtDecision { kNone, kH0, kH1 };
struct SprtState {
  double llr = 0;
  SprtBounds bounds{0, 0};
  SprtDecision decision = SprtDecision::kNone;
};
SprtState Evaluate(const std::vector<double>& counts, double elo0, double elo1,
                   double alpha, double beta);

}  // namespace arena

#endif  // ARENA_ARENA_STATS_SPRT_H_
