#include "referee/games/quodlibet/policy.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace arena {
namespace bots {
namespace {

using v1::QuodlibetAction;
using v1::QuodlibetView;

constexpr int kTen = 3, kUnter = 4, kOber = 5, kAce = 7;
constexpr int kHeartsKing = 6;   // Hearts King
constexpr int kBellsOber = 13;   // Bells Ober

inline int SuitOf(int c) { return c >> 3; }
inline int RankOf(int c) { return c & 7; }
inline uint32_t Bit(int c) { return uint32_t{1} << c; }

// Chance-weighted tricks a card takes in an ordinary deal.
double TrickPotential(int card) {
  static constexpr double kByRank[8] = {0.0, 0.03, 0.08, 0.15,
                                        0.25, 0.4, 0.6, 0.85};
  return kByRank[RankOf(card)];
}

// Penalty a card brings to the trick that takes it, by contract (for
// discards: the dearest card goes first).
int CardPenalty(int contract, int card) {
  int p = 0;
  const bool alarich = contract == v1::QUODLIBET_CONTRACT_ALARICH ||
                       contract == v1::QUODLIBET_CONTRACT_ALL_OR_NOTHING;
  const bool no_reds = contract == v1::QUODLIBET_CONTRACT_NO_REDS ||
                       contract == v1::QUODLIBET_CONTRACT_ALL_OR_NOTHING;
  const bool ober_unter = contract == v1::QUODLIBET_CONTRACT_OBER_UNTER ||
                          contract == v1::QUODLIBET_CONTRACT_ALL_OR_NOTHING;
  if (alarich && card == kHeartsKing) p += 50;
  if (alarich && card == kBellsOber) p += 30;
  if (no_reds && SuitOf(card) == 0) p += RankOf(card) <= kTen ? 20 : 10;
  if (ober_unter && RankOf(card) == kOber) p += 30;
  if (ober_unter && RankOf(card) == kUnter) p += 20;
  return p;
}

// Own expected penalty minus the others' average, for a contract and hand.
double ContractCost(int contract, int ruleset, const std::vector<int>& hand) {
  if (hand.empty()) return 0;  // chosen before the deal: all alike
  double tricks = 0;
  for (int c : hand) tricks += TrickPotential(c);
  auto relative = [](double mine, double total) {
    return mine - (total - mine) / 3;
  };
  const bool encyclopedia = ruleset == v1::QUODLIBET_RULESET_ENCYCLOPEDIA;
  const double share = tricks / 8;
  double held_penalty = 0;
  for (int c : hand) held_penalty += CardPenalty(contract, c);
  switch (contract) {
    case v1::QUODLIBET_CONTRACT_MINUS:
    case v1::QUODLIBET_CONTRACT_GOOD_HUNTING:
      return relative(10 * tricks, 80);
    case v1::QUODLIBET_CONTRACT_PLUS:
      return relative(10 * (8 - tricks), 240);
    case v1::QUODLIBET_CONTRACT_ALARICH:
      return relative(80 * share + 0.5 * held_penalty, 80);
    case v1::QUODLIBET_CONTRACT_NO_REDS:
      return relative(120 * share + 0.3 * held_penalty, 120);
    case v1::QUODLIBET_CONTRACT_FIRST_THREE_AND_LAST: {
      const double total = encyclopedia ? 110 : 140;
      return relative(total * share, total);
    }
    case v1::QUODLIBET_CONTRACT_OBER_UNTER:
      return relative(200 * share + 0.3 * held_penalty, 200);
    case v1::QUODLIBET_CONTRACT_ALL_OR_NOTHING:
      return relative(540 * share + 0.4 * held_penalty, 540);
    case v1::QUODLIBET_CONTRACT_BRIBE:
      return relative(400 * share, 400);
    default:  // Bad Neighbour, Open Trousers, Quadrature, Snack
      return 0;
  }
}

// The seat and card winning the current trick so far.
int WinningCard(const QuodlibetView& v) {
  if (v.trick_size() == 0) return -1;
  int best = v.trick(0).card();
  for (const auto& t : v.trick()) {
    if (SuitOf(t.card()) == SuitOf(best) && RankOf(t.card()) > RankOf(best)) {
      best = t.card();
    }
  }
  return best;
}

// Index of the legal card action maximising `score` (ties: lowest index).
template <typename Score>
int BestCard(const v1::DecisionRequest& r, Score score) {
  int best = 0;
  double best_score = -1e18;
  for (int i = 0; i < r.legal_actions_size(); ++i) {
    const QuodlibetAction& a = r.legal_actions(i).quodlibet();
    if (!a.has_card()) continue;
    const double s = score(a.card());
    if (s > best_score) {
      best_score = s;
      best = i;
    }
  }
  return best;
}

int PlayTrick(const v1::DecisionRequest& r) {
  const QuodlibetView& v = r.view().quodlibet();
  const int contract = v.contract();
  const int winning = WinningCard(v);
  const bool last = v.trick_size() == 3;
  const bool plus = contract == v1::QUODLIBET_CONTRACT_PLUS;
  const bool ftl_free = contract == v1::QUODLIBET_CONTRACT_FIRST_THREE_AND_LAST &&
                        v.trick_number() >= 4 && v.trick_number() <= 7;
  if (ftl_free) {  // tricks 4..7 cost nothing: shed high cards
    return BestCard(r, [](int c) { return RankOf(c) + 0.01 * CardPenalty(0, c); });
  }
  if (winning < 0) {  // leading
    if (plus) return BestCard(r, [](int c) { return RankOf(c); });
    return BestCard(r, [&](int c) {
      return -RankOf(c) - 0.1 * CardPenalty(contract, c);
    });
  }
  const int led = SuitOf(v.trick(0).card());
  const bool following = SuitOf(r.legal_actions(0).quodlibet().card()) == led &&
                         [&] {
                           for (const auto& a : r.legal_actions()) {
                             if (SuitOf(a.quodlibet().card()) != led) return false;
                           }
                           return true;
                         }();
  if (!following) {  // discarding: no risk of winning
    if (plus) return BestCard(r, [](int c) { return -RankOf(c); });
    return BestCard(r, [&](int c) {
      return CardPenalty(contract, c) * 10 + RankOf(c);
    });
  }
  auto beats = [&](int c) { return RankOf(c) > RankOf(winning); };
  if (plus) {
    return BestCard(r, [&](int c) {
      if (beats(c)) return last ? 100.0 - RankOf(c) : 50.0 + RankOf(c);
      return -static_cast<double>(RankOf(c));
    });
  }
  // Minus-type: the highest card that ducks; if none ducks, the highest when
  // last (the trick is ours anyway), else the lowest (someone may go over).
  return BestCard(r, [&](int c) {
    if (!beats(c)) return 100.0 + RankOf(c) + 0.1 * CardPenalty(contract, c);
    return last ? 50.0 + RankOf(c) : 50.0 - RankOf(c);
  });
}

int LeadQuadrature(const v1::DecisionRequest& r) {
  const QuodlibetView& v = r.view().quodlibet();
  uint32_t mine = 0, played = 0;
  for (int c : v.hand()) mine |= Bit(c);
  for (int c : v.played_cards()) played |= Bit(c);
  return BestCard(r, [&](int lead) {
    int own = 1, count = 1, c = lead;
    bool last_mine = true;
    while (count < 4 && RankOf(c) != kAce) {
      const int next = c + 1;
      if (played & Bit(next)) break;
      last_mine = (mine & Bit(next)) != 0;
      own += last_mine;
      ++count;
      c = next;
    }
    // Leading a card nobody can follow up on frees a stopper for later.
    return own * 10.0 + (last_mine ? 6.0 : 0.0) + RankOf(lead) * 0.1;
  });
}

int SnackTurn(const v1::DecisionRequest& r) {
  const QuodlibetView& v = r.view().quodlibet();
  uint32_t mine = 0;
  for (int c : v.hand()) mine |= Bit(c);
  int best = -1;
  double best_score = -1e18;
  for (int i = 0; i < r.legal_actions_size(); ++i) {
    const QuodlibetAction& a = r.legal_actions(i).quodlibet();
    double s;
    if (a.has_card()) {
      const int c = a.card();
      // Cards of mine this one opens the way to (in its direction).
      int chain = 0;
      const int rank = RankOf(c);
      const int base = c & ~7;
      if (rank < kUnter) {
        for (int x = rank - 1; x >= 0 && (mine & Bit(base + x)); --x) ++chain;
      } else if (rank > kUnter) {
        for (int x = rank + 1; x <= kAce && (mine & Bit(base + x)); ++x) ++chain;
      }
      s = 100 + chain * 5 - RankOf(c) * 0.01;
    } else if (a.pick_up()) {
      s = 0;
    } else {
      s = 10;  // end turn: keep laying out while possible (scored above)
    }
    if (s > best_score) {
      best_score = s;
      best = i;
    }
  }
  return best < 0 ? 0 : best;
}

}  // namespace

int ChooseQuodlibetAction(const v1::QuodlibetRules& rules,
                          const v1::DecisionRequest& request) {
  const int n = request.legal_actions_size();
  if (n <= 1) return 0;
  const QuodlibetView& v = request.view().quodlibet();
  const QuodlibetAction& first = request.legal_actions(0).quodlibet();
  if (first.kind_case() == QuodlibetAction::kContract) {
    std::vector<int> hand(v.hand().begin(), v.hand().end());
    int best = 0;
    double best_cost = 1e18;
    for (int i = 0; i < n; ++i) {
      const double cost = ContractCost(
          request.legal_actions(i).quodlibet().contract(), rules.ruleset(), hand);
      if (cost < best_cost) {
        best_cost = cost;
        best = i;
      }
    }
    return best;
  }
  if (first.kind_case() == QuodlibetAction::kSlot) return 0;
  switch (v.phase()) {
    case v1::QUODLIBET_PHASE_QUADRATURE:
      return LeadQuadrature(request);
    case v1::QUODLIBET_PHASE_SNACK:
      return SnackTurn(request);
    case v1::QUODLIBET_PHASE_TRICKS:
      return PlayTrick(request);
    default:
      return 0;
  }
}

}  // namespace bots
}  // namespace arena
