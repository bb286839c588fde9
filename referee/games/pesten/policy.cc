#include "referee/games/pesten/policy.h"

#include <array>
#include <vector>

namespace arena {
namespace bots {
namespace {

constexpr int kTwo = 2, kSeven = 7, kEight = 8, kTen = 10, kJack = 11,
              kKing = 13, kAce = 14, kJoker = 15;

struct Card {
  int rank = 0;
  int suit = 0;  // 0 for a Joker
  bool special = false;
};

bool Special(int rank) {
  return rank == kTwo || rank == kSeven || rank == kEight || rank == kTen ||
         rank == kJack || rank == kKing || rank == kAce || rank == kJoker;
}

// The catalogue, or the standard id scheme when it is missing.
Card Lookup(const v1::PestenRules& rules, int id) {
  Card c;
  if (id >= 0 && id < rules.catalogue_size()) {
    const v1::PestenCard& p = rules.catalogue(id);
    c.rank = p.rank();
    c.suit = p.suit();
    c.special = p.special();
    return c;
  }
  if (id >= 52) {
    c.rank = kJoker;
  } else if (id >= 0) {
    c.rank = id % 13 + 2;
    c.suit = id / 13 + 1;
  }
  c.special = Special(c.rank);
  return c;
}

// How much a card is worth keeping, roughly in cards.
double KeepValue(const Card& c, int hand_size) {
  switch (c.rank) {
    case kJoker: return 4.0;
    case kTwo: return 3.0;
    case kJack: return 3.0;
    case kEight: return 1.5;
    case kSeven:
    case kKing: return 1.0;
    case kAce: return 1.0;
    case kTen: return 0.5;
    default: return hand_size <= 3 ? 2.0 : 1.0;  // plain: a card to finish on
  }
}

bool Follows(const Card& c, const Card& top) {
  return c.rank == kJack || c.rank == kJoker || top.rank == kJoker ||
         c.suit == top.suit || c.rank == top.rank;
}

}  // namespace

int ChoosePestenAction(const v1::PestenRules& rules,
                       const v1::DecisionRequest& request) {
  const int n = request.legal_actions_size();
  if (n <= 1) return 0;
  const v1::PestenView& v = request.view().pesten();
  const int seat = request.seat();
  const int seats = v.hand_sizes_size();
  std::vector<int> hand(v.hand().begin(), v.hand().end());
  const int size = static_cast<int>(hand.size());
  std::array<int, 5> suit_count{};
  for (int id : hand) {
    const Card c = Lookup(rules, id);
    if (c.rank != kJack && c.rank != kJoker) ++suit_count[c.suit];
  }
  const int dir = v.direction() == v1::PESTEN_DIRECTION_COUNTERCLOCKWISE ? -1 : 1;
  auto next_of = [&](int s, int d) { return seats ? ((s + d) % seats + seats) % seats : 0; };
  auto hand_of = [&](int s) { return s >= 0 && s < seats ? v.hand_sizes(s) : 5; };

  double best = -1e18;
  int best_index = 0;
  for (int i = 0; i < n; ++i) {
    const v1::PestenAction& a = request.legal_actions(i).pesten();
    double score = 0;
    switch (a.kind()) {
      case v1::PESTEN_ACTION_KIND_WISH:
        score = suit_count[a.wish()];
        break;
      case v1::PESTEN_ACTION_KIND_PASS_CARD: {
        const Card c = Lookup(rules, a.card());
        // Give away what is least worth keeping; a receiver close to going
        // out gets a special card, which it cannot finish with.
        score = -KeepValue(c, size);
        if (c.rank == kJoker || c.rank == kTwo) score -= 2;  // never arm it
        const int receiver = next_of(seat, 1);
        if (hand_of(receiver) <= 2 && c.special && c.rank != kJoker &&
            c.rank != kTwo && c.rank != kJack) {
          score += 3;
        }
        break;
      }
      case v1::PESTEN_ACTION_KIND_DRAW:
        score = -4;
        break;
      case v1::PESTEN_ACTION_KIND_TAKE_OBLIGATION:
        score = -4 - v.draw_obligation();
        break;
      case v1::PESTEN_ACTION_KIND_PLAY: {
        const Card c = Lookup(rules, a.card());
        const int left = size - 1;
        if (left == 0) {
          score = 1000;  // the round is won
          break;
        }
        if (left == 1 && !a.announce()) {
          score = -100;  // a missed "Pesten" costs two cards
          break;
        }
        score = 10 - KeepValue(c, size);
        // The kept hand: a plain card to finish with, cards that follow.
        int plain_left = 0, follow_left = 0;
        std::array<int, 5> suits_left = suit_count;
        if (c.rank != kJack && c.rank != kJoker) --suits_left[c.suit];
        for (int id : hand) {
          if (id == a.card()) continue;
          const Card k = Lookup(rules, id);
          if (!k.special) ++plain_left;
          if (Follows(k, c)) ++follow_left;
        }
        if (plain_left == 0 && left <= 3) score -= 3;
        // Who moves next, and what the play does to it.
        int next = next_of(seat, dir);
        if (c.rank == kAce) next = next_of(seat, -dir);
        const int threat = hand_of(next);
        const double urgency = threat <= 1 ? 4 : threat == 2 ? 2.5 : threat <= 4 ? 0.8 : 0;
        switch (c.rank) {
          case kJoker:
          case kTwo:
            if (v.draw_obligation() > 0) score += 6;  // stack, do not take
            score += urgency;
            break;
          case kEight:
            score += urgency;
            break;
          case kSeven:
          case kKing:
            // Another card can follow at once: a double shed.
            score += follow_left > 0 ? 2.5 : -2;
            break;
          case kJack: {
            // The wish: the suit held most of after the play.
            score += 0.6 * suits_left[a.wish()];
            if (suits_left[a.wish()] == 0) score -= 1;
            break;
          }
          default:
            break;
        }
        if (c.rank != kSeven && c.rank != kKing && c.rank != kJack) {
          score += 0.3 * follow_left;  // likely to follow again next turn
        }
        break;
      }
      default:
        break;
    }
    if (score > best) {
      best = score;
      best_index = i;
    }
  }
  return best_index;
}

}  // namespace bots
}  // namespace arena
