#include "referee/games/quabble/policy.h"

#include <algorithm>
#include <string>
#include <vector>

namespace arena {
namespace bots {
namespace {

using v1::QuabblePower;

// The asset list, compiled from the rules once per decision.
struct Assets {
  struct Kind {
    QuabblePower power;
    int value = 0;
    int amount = 0;
    int threshold = 0;
    int target = -1;
  };
  std::vector<Kind> kinds;
  std::vector<int> card_kind;

  explicit Assets(const v1::QuabbleRules& rules) {
    for (const auto& a : rules.assets()) {
      Kind k;
      k.power = a.power();
      k.value = a.value();
      k.amount = a.amount();
      k.threshold = a.threshold();
      for (int j = 0; j < rules.assets_size(); ++j) {
        if (!a.target().empty() && rules.assets(j).name() == a.target()) {
          k.target = j;
        }
      }
      kinds.push_back(k);
    }
    card_kind.assign(rules.card_assets().begin(), rules.card_assets().end());
  }
  int KindOf(int card) const {
    return card >= 0 && card < static_cast<int>(card_kind.size())
               ? card_kind[card]
               : 0;
  }
};

// Treasury counts: counts[seat * K + kind].
class Table {
 public:
  Table(const Assets& a, int seats)
      : a_(a), n_(seats), k_(static_cast<int>(a.kinds.size())),
        counts_(seats * k_, 0) {}

  int& at(int seat, int kind) { return counts_[seat * k_ + kind]; }
  int get(int seat, int kind) const { return counts_[seat * k_ + kind]; }

  // Every seat's treasury score in half points (shared cards left out).
  std::vector<int> Scores() const {
    std::vector<int> score(n_, 0);
    std::vector<int> worth(n_ * k_, 0);
    for (int k = 0; k < k_; ++k) {
      const Assets::Kind& as = a_.kinds[k];
      const int v2 = 2 * as.value;
      for (int s = 0; s < n_; ++s) {
        const int c = get(s, k);
        int& w = worth[s * k_ + k];
        w = v2;
        if (c == 0) continue;
        score[s] += c * v2;
        switch (as.power) {
          case v1::QUABBLE_POWER_SET_SQUARE:  // amount*c*c in all
            w = 2 * as.amount * c;
            score[s] += 2 * as.amount * c * c - c * v2;
            break;
          case v1::QUABBLE_POWER_NEIGHBOUR_BONUS: {
            int beside = get(Left(s), k);
            if (n_ > 2) beside += get(Right(s), k);
            w = v2 + 2 * as.amount * beside;
            score[s] += c * 2 * as.amount * beside;
            break;
          }
          case v1::QUABBLE_POWER_DOUBLE_TARGET:
            if (as.target >= 0) {
              score[s] += std::min(c, get(s, as.target)) *
                          worth[s * k_ + as.target];
            }
            break;
          case v1::QUABBLE_POWER_NEIGHBOUR_PENALTY:
            score[Left(s)] -= 2 * as.amount * c;
            if (n_ > 2) score[Right(s)] -= 2 * as.amount * c;
            break;
          case v1::QUABBLE_POWER_SINGLETON:
            w = c == 1 ? 2 * as.amount : 0;
            score[s] += c * w - c * v2;
            break;
          case v1::QUABBLE_POWER_SLAY_TARGET:
            if (as.target >= 0) {
              const int slain = std::min(c, get(s, as.target));
              score[s] += slain * (2 * as.amount - worth[s * k_ + as.target]);
            }
            break;
          case v1::QUABBLE_POWER_CURSE:
            if (c >= as.threshold) {
              w = 2 * as.amount;
              score[s] += c * (w - v2);
            }
            break;
          default:
            break;
        }
      }
      if (as.power == v1::QUABBLE_POWER_MAJORITY) {
        int most = 0, holders = 0;
        for (int s = 0; s < n_; ++s) most = std::max(most, get(s, k));
        for (int s = 0; s < n_; ++s) holders += most > 0 && get(s, k) == most;
        for (int s = 0; s < n_ && most > 0; ++s) {
          if (get(s, k) == most) score[s] += 2 * as.amount / holders;
        }
      }
    }
    return score;
  }

  int Left(int s) const { return (s + 1) % n_; }
  int Right(int s) const { return (s + n_ - 1) % n_; }

 private:
  const Assets& a_;
  int n_, k_;
  std::vector<int> counts_;
};

class Decider {
 public:
  Decider(const v1::QuabbleRules& rules, const v1::DecisionRequest& request)
      : assets_(rules),
        view_(request.view().quabble()),
        me_(request.seat()),
        n_(view_.hand_sizes_size()),
        table_(assets_, n_) {
    for (const auto& t : view_.treasuries()) {
      for (int c : t.cards()) ++table_.at(t.seat(), assets_.KindOf(c));
    }
    lambda_ = n_ > 1 ? 1.0 / (n_ - 1) : 0.0;
    base_ = Utility(table_);
    dir_ = view_.direction() == v1::QUABBLE_DIRECTION_RIGHT ? -1 : 1;
  }

  int Choose(const v1::DecisionRequest& request) {
    const int num = request.legal_actions_size();
    if (num <= 1) return 0;
    std::vector<double> value(num, 0);
    for (int i = 0; i < num; ++i) {
      const v1::QuabbleAction& a = request.legal_actions(i).quabble();
      switch (a.kind()) {
        case v1::QUABBLE_ACTION_KIND_CLAIM:
          value[i] = ClaimValue(request, i);
          break;
        case v1::QUABBLE_ACTION_KIND_OFFER:
          value[i] = OfferValue(a.card());
          break;
        case v1::QUABBLE_ACTION_KIND_SNATCH:
          value[i] = SnatchValue(a.card(), a.seat());
          break;
        default:
          value[i] = 0;  // take nothing
          break;
      }
    }
    int best = 0;
    for (int i = 1; i < num; ++i) {
      if (value[i] > value[best] + 1e-9) best = i;
    }
    return best;
  }

 private:
  int Seat(int s, int step) const { return ((s + step) % n_ + n_) % n_; }

  double Utility(const Table& t) const {
    const std::vector<int> s = t.Scores();
    double others = 0;
    for (int i = 0; i < n_; ++i) {
      if (i != me_) others += s[i];
    }
    return s[me_] - lambda_ * others;
  }

  // Change of utility if `card` enters `seat`'s treasury.
  double Gain(int seat, int card) {
    const int k = assets_.KindOf(card);
    ++table_.at(seat, k);
    const double u = Utility(table_);
    --table_.at(seat, k);
    return u - base_;
  }

  // `seat`'s own score change if `card` enters its treasury.
  int OwnGain(int seat, int card) {
    const int k = assets_.KindOf(card);
    const int before = table_.Scores()[seat];
    ++table_.at(seat, k);
    const int after = table_.Scores()[seat];
    --table_.at(seat, k);
    return after - before;
  }

  // Utility of the card being shared by this seat and `other`.
  double SharedGain(int card) const {
    const int h = assets_.kinds[assets_.KindOf(card)].value;  // half points
    return h - lambda_ * h;
  }

  // Chance that `other` claims `card` rather than its `alternative` (-1:
  // unknown).
  double ClaimChance(int other, int card, int alternative) {
    const int g = OwnGain(other, card);
    const int alt = alternative >= 0 ? OwnGain(other, alternative) : 2;
    if (g > alt) return 0.7;
    if (g < alt) return 0.3;
    return 0.5;
  }

  // Expected utility of claiming `x` (other claimant `other_x`, whose other
  // card is `alt_x`) and leaving `z` (claimant `other_z`, other card `alt_z`).
  double ClaimEU(int x, int other_x, int alt_x, int z, int other_z,
                 int alt_z) {
    const double px = ClaimChance(other_x, x, alt_x);
    double eu = px * SharedGain(x) + (1 - px) * Gain(me_, x);
    if (z >= 0) {
      const double pz = ClaimChance(other_z, z, alt_z);
      eu += pz * Gain(other_z, z);
    }
    return eu;
  }

  double ClaimValue(const v1::DecisionRequest& request, int i) {
    const v1::QuabbleAction& a = request.legal_actions(i).quabble();
    const v1::QuabbleAction& b = request.legal_actions(1 - i).quabble();
    const int receiver = Seat(me_, dir_);  // beside the card this seat offered
    const int giver = Seat(me_, -dir_);    // beside the card offered to it
    // The other card each of them may claim.
    auto other_card = [&](int seat, int not_this) {
      for (const auto& o : view_.offers()) {
        if ((o.from_seat() == seat || o.to_seat() == seat) &&
            o.card() != not_this) {
          return o.card();
        }
      }
      return -1;
    };
    const int ox = a.own_offer() ? receiver : giver;
    const int oz = a.own_offer() ? giver : receiver;
    return ClaimEU(a.card(), ox, other_card(ox, a.card()), b.card(), oz,
                   other_card(oz, b.card()));
  }

  double OfferValue(int card) {
    const int receiver = Seat(me_, dir_);
    int incoming = -1;
    for (const auto& o : view_.offers()) {
      if (o.to_seat() == me_) incoming = o.card();
    }
    const int giver = Seat(me_, -dir_);
    if (incoming >= 0) {
      const double keep = ClaimEU(card, receiver, -1, incoming, giver, -1);
      const double take = ClaimEU(incoming, giver, -1, card, receiver, -1);
      return std::max(keep, take);
    }
    // The card offered to this seat is not known yet: claiming it is worth
    // about as much as an average card.
    const double keep = ClaimEU(card, receiver, -1, -1, giver, -1);
    const double take =
        1.0 + ClaimChance(receiver, card, -1) * Gain(receiver, card);
    return std::max(keep, take);
  }

  double SnatchValue(int card, int from) {
    const int k = assets_.KindOf(card);
    --table_.at(from, k);
    ++table_.at(me_, k);
    const double u = Utility(table_);
    ++table_.at(from, k);
    --table_.at(me_, k);
    return u - base_;
  }

  Assets assets_;
  const v1::QuabbleView& view_;
  int me_;
  int n_;
  Table table_;
  double lambda_ = 0;
  double base_ = 0;
  int dir_ = 1;
};

}  // namespace

int ChooseQuabbleAction(const v1::QuabbleRules& rules,
                        const v1::DecisionRequest& request) {
  if (request.legal_actions_size() <= 1 || !request.view().has_quabble() ||
      rules.assets_size() == 0) {
    return 0;
  }
  Decider d(rules, request);
  return d.Choose(request);
}

}  // namespace bots
}  // namespace arena
