#include "referee/games/quasenbo/policy.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace arena {
namespace bots {
namespace {

constexpr int kNumSuits = 6;

// Weights, roughly in cards; tuned by playing against a uniform random
// player (basic and extended deck, 2 and 4 seats).
constexpr double kPenaltyCost = 2.5;      // per quäsenbö penalty card
constexpr double kPressureNone = 3.0;     // next seat likely cannot follow
constexpr double kPressureStuck = 1.0;    // ... or only with a quäsenbö
constexpr double kFewSuitsPlayed = -0.3;  // per suit under three (Aces and
                                          // Crowns are better kept: they
                                          // also follow each other by rank)
constexpr double kKeepExcuse = 2.3;       // cost of spending the Excuse
constexpr double kSuitCoverage = 0.25;    // per suit the kept hand covers
constexpr double kDecreeOwnSuit = 0.13;   // per kept card of the decree

struct CardInfo {
  int rank = 0;
  unsigned suits = 0;  // bit (s - 1) for QuasenboSuit s
  bool excuse = false;
};

unsigned SuitBit(int suit) {
  return suit >= 1 && suit <= kNumSuits ? 1u << (suit - 1) : 0u;
}

int Bits(unsigned x) { return __builtin_popcount(x); }

}  // namespace

int ChooseQuasenboAction(const v1::QuasenboRules& rules,
                         const v1::DecisionRequest& request) {
  const int num_actions = request.legal_actions_size();
  if (num_actions <= 1) return 0;
  const v1::QuasenboView& view = request.view().quasenbo();

  const int num_cards = rules.cards_size();
  std::vector<CardInfo> cards(num_cards);
  for (const v1::QuasenboCard& c : rules.cards()) {
    if (c.id() < 0 || c.id() >= num_cards) continue;
    CardInfo& info = cards[c.id()];
    info.rank = c.rank();
    info.excuse = c.excuse();
    for (int s : c.suits()) info.suits |= SuitBit(s);
  }
  auto valid = [&](int card) { return card >= 0 && card < num_cards; };

  // Suits of the visible pile cards as the rules see them (top first).
  unsigned top_suits[3] = {0, 0, 0};
  bool top_excuse[3] = {false, false, false};
  for (int d = 0; d < view.top_size() && d < 3; ++d) {
    const v1::QuasenboPileCard& p = view.top(d);
    if (!valid(p.card())) continue;
    const CardInfo& info = cards[p.card()];
    top_suits[d] = info.excuse ? SuitBit(p.decree()) : info.suits;
    top_excuse[d] = info.excuse;
  }
  const int visible = std::min(view.top_size(), 3);

  // Cards this seat cannot see (in other hands or the deck, or deep in the
  // pile), by rank: how likely the next seat can answer by rank.
  std::vector<int> unseen_cards;
  unseen_cards.reserve(num_cards);
  {
    std::vector<bool> seen(num_cards, false);
    for (int c : view.hand()) {
      if (valid(c)) seen[c] = true;
    }
    for (int d = 0; d < view.top_size(); ++d) {
      if (valid(view.top(d).card())) seen[view.top(d).card()] = true;
    }
    for (int c = 0; c < num_cards; ++c) {
      if (!seen[c]) unseen_cards.push_back(c);
    }
  }
  const int num_seats = view.hand_sizes_size();
  const int me = request.seat();
  const int next = num_seats > 0 ? (me + 1) % num_seats : 0;
  const int next_hand = num_seats > 0 ? std::max(1, view.hand_sizes(next)) : 7;

  const int unseen = static_cast<int>(unseen_cards.size());
  const int hand_size = view.hand_size();
  int best = 0;
  double best_score = -1e18;
  for (int i = 0; i < num_actions; ++i) {
    const v1::QuasenboAction& a = request.legal_actions(i).quasenbo();
    const int card = a.card();
    if (!valid(card)) continue;
    const CardInfo& info = cards[card];
    const unsigned eff = info.excuse ? SuitBit(a.decree()) : info.suits;

    // Own quäsenbö and its penalty (runs judged on the visible top only).
    int penalty = 0;
    if (visible >= 2 && (eff & top_suits[0] & top_suits[1])) {
      penalty = 1;
      if (rules.double_quasenbo()) {
        int longest = 0;
        for (int s = 0; s < kNumSuits; ++s) {
          if (!(eff & (1u << s))) continue;
          int run = 1;
          // An Excuse third from the top drops to fourth: no suit then.
          while (run - 1 < visible && !(run - 1 == 2 && top_excuse[2]) &&
                 (top_suits[run - 1] & (1u << s))) {
            ++run;
          }
          longest = std::max(longest, run);
        }
        penalty = std::max(1, longest - 2);
      }
    }
    if (hand_size == 1 && penalty == 0) return i;  // going out wins

    double score = -kPenaltyCost * penalty;

    // Pressure on the next seat: the share of the unseen cards that could
    // follow this card, and of those that could follow it without a
    // quäsenbö (a suit shared with this card and the card below it).
    if (unseen > 0) {
      const int rank = info.excuse ? -1 : info.rank;
      int follow = 0, clean = 0;
      for (int u : unseen_cards) {
        const CardInfo& o = cards[u];
        const unsigned common = o.suits & eff;
        if (o.excuse || common || o.rank == rank) {
          ++follow;
          if (o.excuse || !(common & top_suits[0])) ++clean;
        }
      }
      const double none = std::pow(1.0 - double(follow) / unseen, next_hand);
      const double stuck = std::pow(1.0 - double(clean) / unseen, next_hand);
      // A last card played with a quäsenbö does not go out: as good as none.
      const double stuck_weight =
          next_hand == 1 ? kPressureNone : kPressureStuck;
      score += kPressureNone * none + stuck_weight * (stuck - none);
    }

    // Shape of the hand kept.
    unsigned kept_suits = 0;
    int kept_of_decree = 0;
    for (int c : view.hand()) {
      if (c == card || !valid(c)) continue;
      kept_suits |= cards[c].suits;
      if (cards[c].suits & eff) ++kept_of_decree;
    }
    score += kSuitCoverage * Bits(kept_suits);
    if (info.excuse) {
      score -= kKeepExcuse;
      score += kDecreeOwnSuit * kept_of_decree;
    } else {
      score += kFewSuitsPlayed * std::max(0, 3 - Bits(info.suits));
    }

    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

}  // namespace bots
}  // namespace arena
