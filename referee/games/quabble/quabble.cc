#include "referee/games/quabble/quabble.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/game_api/card_checks.h"
#include "referee/game_api/options.h"

namespace arena {
namespace quabble {
namespace {

std::string CardName(const Catalogue& cat, int card) {
  return absl::StrCat(cat.assets[cat.card_asset[card]].name, " #", card);
}

}  // namespace

// ---------------------------------------------------------------------------
// Game

const GameInfo& QuabbleInfo() {
  static const GameInfo* info = [] {
    auto* i = new GameInfo;
    i->name = "quabble";
    i->min_seats = kMinSeats;
    i->max_seats = kMaxSeats;
    i->default_seats = 4;
    i->default_decision_cap = 1000;
    i->higher_score_wins = true;
    i->options = {
        {"assets",
         "path of a text-format QuabbleAssetList (default: the list shipped "
         "in referee/games/quabble/assets.textproto, compiled in)"},
    };
    i->simultaneous_steps = true;
    i->proto_files = {v1::QuabbleView::descriptor()->file()};
    return i;
  }();
  return *info;
}

absl::StatusOr<std::unique_ptr<QuabbleGame>> QuabbleGame::Create(
    const Options& options, int num_seats) {
  const GameInfo& info = QuabbleInfo();
  if (absl::Status s = CheckSeatCount(info, num_seats); !s.ok()) return s;
  OptionReader reader(options, info);
  const std::string path = reader.String("assets", "");
  if (absl::Status s = reader.Finish(); !s.ok()) return s;
  std::shared_ptr<const Catalogue> catalogue;
  if (path.empty()) {
    static const auto* default_list =
        new absl::StatusOr<std::shared_ptr<const Catalogue>>(
            ParseAssetList(DefaultAssetListText(), "default", 0));
    if (!default_list->ok()) return default_list->status();
    catalogue = **default_list;
    if (catalogue->num_cards() < num_seats * kHandSize) {
      return absl::InvalidArgumentError(
          absl::StrCat("quabble: the default asset list is too small for ",
                       num_seats, " seats"));
    }
  } else {
    auto loaded = LoadAssetFile(path, num_seats);
    if (!loaded.ok()) return loaded.status();
    catalogue = *std::move(loaded);
  }
  return std::unique_ptr<QuabbleGame>(
      new QuabbleGame(num_seats, std::move(catalogue)));
}

absl::StatusOr<std::unique_ptr<Game>> CreateQuabble(const Options& options,
                                                    int num_seats) {
  auto game = QuabbleGame::Create(options, num_seats);
  if (!game.ok()) return game.status();
  return std::unique_ptr<Game>(std::move(*game));
}

int QuabbleGame::CardId(absl::string_view name, int copy) const {
  for (size_t i = 0; i < catalogue_->assets.size(); ++i) {
    if (catalogue_->assets[i].name == name) {
      if (copy < 0 || copy >= catalogue_->assets[i].count) return -1;
      return catalogue_->first_card[i] + copy;
    }
  }
  return -1;
}

void QuabbleGame::FillRules(v1::QuabbleRules* rules) const {
  rules->Clear();
  *rules->mutable_assets() = catalogue_->list.assets();
  rules->mutable_card_assets()->Reserve(catalogue_->num_cards());
  for (uint8_t a : catalogue_->card_asset) rules->add_card_assets(a);
  rules->set_hand_size(kHandSize);
  rules->set_num_cards(catalogue_->num_cards());
  rules->set_asset_list_source(catalogue_->source);
  rules->set_asset_list_fingerprint(catalogue_->fingerprint);
}

std::unique_ptr<State> QuabbleGame::NewInitialState(uint64_t seed) const {
  std::unique_ptr<QuabbleState> state(new QuabbleState(*this, seed));
  std::vector<uint8_t> order(num_cards());
  for (int c = 0; c < num_cards(); ++c) order[c] = static_cast<uint8_t>(c);
  state->rng_.Shuffle(order);
  state->LogSetup();
  state->Deal(order);
  return state;
}

// ---------------------------------------------------------------------------
// State: set-up

QuabbleState::QuabbleState(const QuabbleGame& game, uint64_t seed)
    : catalogue_(game.catalogue_), num_seats_(game.num_seats_), rng_(seed) {
  for (auto& h : hands_) h.reserve(kHandSize + 1);
  for (auto& t : treasury_) t.reserve(32);
  shared_.reserve(32);
  king_.reserve(32);
  deck_.reserve(catalogue_->num_cards());
  offer_.fill(-1);
  claimed_.fill(-1);
  acting_.reserve(kMaxSeats);
  legal_card_.reserve(kMaxCards);
  legal_seat_.reserve(kMaxCards);
  last_claims_.reserve(kMaxSeats);
}

void QuabbleState::LogSetup() {
  LoggedEvent& e = Log(true, 0);
  auto* s = e.event.mutable_quabble()->mutable_setup();
  s->set_num_seats(num_seats_);
  s->set_hand_size(kHandSize);
  s->set_num_cards(catalogue_->num_cards());
  s->set_asset_list_fingerprint(catalogue_->fingerprint);
}

void QuabbleState::Deal(const std::vector<uint8_t>& order) {
  const int n = num_seats_;
  const int dealt = n * kHandSize;
  for (int i = 0; i < dealt; ++i) hands_[i % n].push_back(order[i]);
  for (int s = 0; s < n; ++s) std::sort(hands_[s].begin(), hands_[s].end());
  deck_.assign(order.begin() + dealt, order.end());
  deck_pos_ = 0;
  {  // Every hand and the deck: the record only.
    LoggedEvent& e = Log(false, 0);
    auto* deal = e.event.mutable_quabble()->mutable_deal();
    for (int s = 0; s < n; ++s) {
      auto* hand = deal->add_hands();
      hand->set_seat(s);
      for (uint8_t c : hands_[s]) hand->add_cards(c);
    }
    for (uint8_t c : deck_) deal->add_deck(c);
  }
  for (int s = 0; s < n; ++s) {  // Each seat's own hand.
    LoggedEvent& e = Log(false, uint64_t{1} << s);
    auto* hand = e.event.mutable_quabble()->mutable_deal()->add_hands();
    hand->set_seat(s);
    for (uint8_t c : hands_[s]) hand->add_cards(c);
  }
  round_ = 1;
  active_ = 0;
  dir_ = 1;
  StartRound(true);
}

absl::StatusOr<std::unique_ptr<QuabbleState>>
QuabbleState::FromDeckOrderForTest(const QuabbleGame& game,
                                   const std::vector<int>& deck,
                                   uint64_t seed) {
  absl::StatusOr<std::vector<uint8_t>> order =
      CheckDeckOrder(deck, game.num_cards());
  if (!order.ok()) return order.status();
  std::unique_ptr<QuabbleState> state(new QuabbleState(game, seed));
  state->LogSetup();
  state->Deal(*order);
  return state;
}

absl::StatusOr<std::unique_ptr<QuabbleState>> QuabbleState::FromPositionForTest(
    const QuabbleGame& game, const Position& p, uint64_t seed) {
  const int seats = game.num_seats();
  PositionCards cards(game.num_cards());
  auto seat_ok = [&](int s) { return s >= 0 && s < seats; };
  if (static_cast<int>(p.hands.size()) != seats ||
      static_cast<int>(p.treasuries.size()) != seats) {
    return absl::InvalidArgumentError(
        "position: one hand and one treasury per seat");
  }
  if (!seat_ok(p.active_seat) || p.round < 1) {
    return absl::InvalidArgumentError("position: bad active seat or round");
  }
  std::unique_ptr<QuabbleState> state(new QuabbleState(game, seed));
  for (int s = 0; s < seats; ++s) {
    if (p.hands[s].size() != p.hands[0].size() ||
        p.hands[s].size() > kHandSize + 1) {
      return absl::InvalidArgumentError(
          "position: hands must all be the same size (at most 6)");
    }
    if (absl::Status st = cards.TakeInto(p.hands[s], &state->hands_[s]);
        !st.ok()) {
      return st;
    }
    std::sort(state->hands_[s].begin(), state->hands_[s].end());
    if (absl::Status st = cards.TakeInto(p.treasuries[s], &state->treasury_[s]);
        !st.ok()) {
      return st;
    }
  }
  for (const Shared& sh : p.shared) {
    if (absl::Status st = cards.Take(sh.card); !st.ok()) return st;
    if (!seat_ok(sh.seat_a) || !seat_ok(sh.seat_b) || sh.seat_a == sh.seat_b) {
      return absl::InvalidArgumentError("position: bad seats of a shared card");
    }
    state->shared_.push_back(sh);
  }
  if (absl::Status st = cards.TakeInto(p.king, &state->king_); !st.ok()) {
    return st;
  }
  if (absl::Status st = cards.TakeInto(p.deck, &state->deck_); !st.ok()) {
    return st;
  }
  state->round_ = p.round;
  state->active_ = p.active_seat;
  state->dir_ = p.direction_right ? -1 : 1;
  state->LogSetup();
  if (state->hands_[0].empty()) {
    state->phase_ = kGameOver;
    state->acting_.clear();
    LoggedEvent& e = state->Log(true, 0);
    auto* over = e.event.mutable_quabble()->mutable_game_over();
    over->set_rounds(state->round_);
    over->set_unreleased_left(state->deck_size());
  } else {
    state->StartRound(true);
  }
  return state;
}

// ---------------------------------------------------------------------------
// State: rules

int QuabbleState::Neighbours(int seat, std::array<int, 2>* out) const {
  (*out)[0] = Next(seat, 1);
  if (num_seats_ == 2) return 1;
  (*out)[1] = Next(seat, -1);
  return 2;
}

bool QuabbleState::TreasuryHas(int seat, int card) const {
  const auto& t = treasury_[seat];
  return std::find(t.begin(), t.end(), card) != t.end();
}

void QuabbleState::RemoveFromTreasury(int seat, int card) {
  auto& t = treasury_[seat];
  t.erase(std::find(t.begin(), t.end(), card));
}

void QuabbleState::StartRound(bool first) {
  bool reversed = false;
  if (!first) {
    ++round_;
    active_ = Next(active_, 1);  // always left, whatever the direction
    if (reverse_pending_) {
      dir_ = -dir_;
      reversed = true;
    }
  }
  reverse_pending_ = false;
  offer_.fill(-1);
  claimed_.fill(-1);
  offers_made_ = 0;
  offer_seat_ = active_;
  {
    LoggedEvent& e = Log(true, 0);
    auto* r = e.event.mutable_quabble()->mutable_round_start();
    r->set_round(round_);
    r->set_active_seat(active_);
    r->set_direction(dir_ > 0 ? v1::QUABBLE_DIRECTION_LEFT
                              : v1::QUABBLE_DIRECTION_RIGHT);
    r->set_reversed(reversed);
  }
  NextOffer();
}

void QuabbleState::NextOffer() {
  if (offers_made_ == num_seats_) {
    phase_ = kClaim;
    acting_.clear();
    for (int s = 0; s < num_seats_; ++s) acting_.push_back(s);
    legal_card_.clear();
    legal_seat_.clear();
    return;
  }
  phase_ = kOffer;
  acting_.assign(1, offer_seat_);
  legal_card_.assign(hands_[offer_seat_].begin(), hands_[offer_seat_].end());
  legal_seat_.assign(legal_card_.size(), static_cast<int8_t>(offer_seat_));
}

void QuabbleState::Reveal(absl::Span<const int> claims) {
  const int n = num_seats_;
  LoggedEvent& e = Log(true, 0);
  auto* reveal = e.event.mutable_quabble()->mutable_reveal();
  last_claims_.clear();
  for (int s = 0; s < n; ++s) {
    v1::QuabbleClaim c;
    c.set_seat(s);
    const bool own = claims[s] == 0;
    c.set_card(own ? offer_[s] : offer_[Next(s, -dir_)]);
    c.set_own_offer(own);
    last_claims_.push_back(c);
    *reveal->add_claims() = c;
  }
  for (int i = 0; i < n; ++i) {
    const int from = Next(active_, i * dir_);
    const int to = Next(from, dir_);
    const int card = offer_[from];
    const bool by_from = claims[from] == 0;
    const bool by_to = claims[to] == 1;
    auto* out = reveal->add_outcomes();
    out->set_card(card);
    out->set_from_seat(from);
    out->set_to_seat(to);
    out->set_owner(-1);
    if (by_from && by_to) {
      shared_.push_back({card, from, to});
      out->set_fate(v1::QUABBLE_FATE_SHARED);
    } else if (by_from || by_to) {
      const int owner = by_from ? from : to;
      treasury_[owner].push_back(static_cast<uint8_t>(card));
      claimed_[owner] = card;
      out->set_fate(v1::QUABBLE_FATE_TREASURY);
      out->set_owner(owner);
    } else {
      king_.push_back(static_cast<uint8_t>(card));
      out->set_fate(v1::QUABBLE_FATE_KING);
    }
  }
  immediate_next_ = 0;
  ResolveImmediate();
}

void QuabbleState::SetSnatchOptions(int seat) {
  legal_card_.clear();
  legal_seat_.clear();
  std::array<int, 2> nb;
  const int k = Neighbours(seat, &nb);
  for (int i = 0; i < k; ++i) {
    for (uint8_t c : treasury_[nb[i]]) {
      legal_card_.push_back(c);
      legal_seat_.push_back(static_cast<int8_t>(nb[i]));
    }
  }
  legal_card_.push_back(-1);  // take nothing
  legal_seat_.push_back(-1);
}

void QuabbleState::ResolveImmediate() {
  while (immediate_next_ < num_seats_) {
    const int s = Next(active_, immediate_next_);
    ++immediate_next_;
    const int card = claimed_[s];
    // Nothing entered by a claim, or it was snatched away before acting.
    if (card < 0 || !TreasuryHas(s, card)) continue;
    const auto& asset = catalogue_->assets[catalogue_->card_asset[card]];
    if (asset.power == v1::QUABBLE_POWER_MISDIRECTION) {
      reverse_pending_ = !reverse_pending_;
      LoggedEvent& e = Log(true, 0);
      auto* m = e.event.mutable_quabble()->mutable_misdirected();
      m->set_seat(s);
      m->set_card(card);
      const int next = reverse_pending_ ? -dir_ : dir_;
      m->set_next_direction(next > 0 ? v1::QUABBLE_DIRECTION_LEFT
                                     : v1::QUABBLE_DIRECTION_RIGHT);
    } else if (asset.power == v1::QUABBLE_POWER_SNATCH) {
      SetSnatchOptions(s);
      if (legal_card_.size() == 1) {
        LoggedEvent& e = Log(true, 0);
        auto* sn = e.event.mutable_quabble()->mutable_snatched();
        sn->set_seat(s);
        sn->set_snatcher(card);
        sn->set_card(-1);
        sn->set_from_seat(-1);
        sn->set_nothing_to_take(true);
        continue;
      }
      phase_ = kSnatch;
      snatch_seat_ = s;
      snatch_card_ = card;
      acting_.assign(1, s);
      // At the cap this decision would be a step past it: the sweep (and
      // the draw after it) waits for it, and so never goes on.
      StopAtCap();
      return;
    }
  }
  snatch_seat_ = -1;
  snatch_card_ = -1;
  FinishRound();
}

void QuabbleState::FinishRound() {
  const int n = num_seats_;
  if (deck_size() >= n) {
    for (int i = 0; i < n; ++i) {
      const int s = Next(active_, i);
      const uint8_t c = deck_[deck_pos_++];
      auto& h = hands_[s];
      h.insert(std::upper_bound(h.begin(), h.end(), c), c);
      LoggedEvent& e = Log(false, uint64_t{1} << s);
      auto* drew = e.event.mutable_quabble()->mutable_drew();
      drew->set_seat(s);
      drew->set_count(1);
      e.has_redacted = true;
      e.redacted = e.event;
      drew->add_cards(c);
    }
  }
  if (hands_[0].empty()) {
    phase_ = kGameOver;
    acting_.clear();
    legal_card_.clear();
    legal_seat_.clear();
    LoggedEvent& e = Log(true, 0);
    auto* over = e.event.mutable_quabble()->mutable_game_over();
    over->set_rounds(round_);
    over->set_unreleased_left(deck_size());
    return;
  }
  if (StopAtCap()) return;  // the round is over; the next never starts
  StartRound(false);
}

bool QuabbleState::StopAtCap() {
  if (!AtDecisionCap()) return false;
  acting_.clear();
  legal_card_.clear();
  legal_seat_.clear();
  return true;
}

void QuabbleState::Apply(absl::Span<const int> actions) {
  if (phase_ == kGameOver || actions.size() != acting_.size()) {
    EngineFatal("quabble",
                absl::StrCat("Apply: illegal actions at step ", step_));
  }
  for (size_t i = 0; i < actions.size(); ++i) {
    if (actions[i] < 0 || actions[i] >= NumLegalActions(acting_[i])) {
      EngineFatal("quabble",
                  absl::StrCat("Apply: illegal action ", actions[i],
                               " of seat ", acting_[i], " at step ", step_));
    }
  }
  ++step_;
  switch (phase_) {
    case kOffer: {
      const int seat = offer_seat_;
      const int card = legal_card_[actions[0]];
      auto& h = hands_[seat];
      h.erase(std::find(h.begin(), h.end(), card));
      offer_[seat] = card;
      LoggedEvent& e = Log(true, 0);
      auto* o = e.event.mutable_quabble()->mutable_offered();
      o->set_seat(seat);
      o->set_to_seat(Next(seat, dir_));
      o->set_card(card);
      ++offers_made_;
      offer_seat_ = Next(seat, dir_);
      if (StopAtCap()) return;  // the next offer (or the claims) never comes
      NextOffer();
      return;
    }
    case kClaim:
      Reveal(actions);
      return;
    case kSnatch: {
      const int seat = snatch_seat_;
      const int card = legal_card_[actions[0]];
      const int from = legal_seat_[actions[0]];
      LoggedEvent& e = Log(true, 0);
      auto* sn = e.event.mutable_quabble()->mutable_snatched();
      sn->set_seat(seat);
      sn->set_snatcher(snatch_card_);
      sn->set_card(card);
      sn->set_from_seat(from);
      if (card < 0) {
        sn->set_took_nothing(true);
      } else {
        RemoveFromTreasury(from, card);
        treasury_[seat].push_back(static_cast<uint8_t>(card));
      }
      ResolveImmediate();
      return;
    }
    case kGameOver:
      break;
  }
}

// ---------------------------------------------------------------------------
// Scoring

std::vector<int> QuabbleState::ScoresHalfPoints(
    std::vector<ScoreItem>* items) const {
  const int n = num_seats_;
  const auto& assets = catalogue_->assets;
  const int k = static_cast<int>(assets.size());
  std::array<std::array<int, kMaxAssets>, kMaxSeats> cnt{};
  std::array<std::array<int, kMaxAssets>, kMaxSeats> worth{};  // per card
  for (int s = 0; s < n; ++s) {
    for (uint8_t c : treasury_[s]) ++cnt[s][catalogue_->card_asset[c]];
  }
  std::vector<int> score(n, 0);
  auto add = [&](int seat, auto&& make_item, int hp) {
    score[seat] += hp;
    if (items != nullptr) items->push_back({seat, make_item(), hp});
  };
  // A power line that changes nothing (a set of one, no hoppers beside, no
  // hopper to double) is left out of the explanation.
  auto add_power = [&](int seat, auto&& make_item, int hp) {
    if (hp != 0) add(seat, make_item, hp);
  };
  // Shared cards: half their value to each of the two seats.
  for (int s = 0; s < n; ++s) {
    std::array<int, kMaxAssets> shared_count{};
    for (const Shared& sh : shared_) {
      if (sh.seat_a == s || sh.seat_b == s) {
        ++shared_count[catalogue_->card_asset[sh.card]];
      }
    }
    for (int a = 0; a < k; ++a) {
      const int c = shared_count[a];
      if (c == 0) continue;
      add(s, [&] {
        return absl::StrCat(assets[a].name, " x", c, " shared: half value");
      }, c * assets[a].value);
    }
  }
  std::array<int, 2> nb;
  for (int a = 0; a < k; ++a) {
    const Catalogue::Asset& as = assets[a];
    const int v2 = 2 * as.value;
    for (int s = 0; s < n; ++s) {
      const int c = cnt[s][a];
      worth[s][a] = v2;
      if (c == 0) continue;
      add(s, [&] { return absl::StrCat(as.name, " x", c, ": value"); },
          c * v2);
      switch (as.power) {
        case v1::QUABBLE_POWER_SET_SQUARE:
          // The set replaces the values: amount*c*c in all.
          worth[s][a] = 2 * as.amount * c;
          add_power(s, [&] {
            return absl::StrCat(as.name, ": set of ", c, ", ",
                                as.amount * c * c, " in all");
          }, 2 * as.amount * c * c - c * v2);
          break;
        case v1::QUABBLE_POWER_NEIGHBOUR_BONUS: {
          int beside = 0;
          const int m = Neighbours(s, &nb);
          for (int i = 0; i < m; ++i) beside += cnt[nb[i]][a];
          worth[s][a] = v2 + 2 * as.amount * beside;
          add_power(s, [&] {
            return absl::StrCat(as.name, ": +", as.amount, " each for ",
                                beside, " in neighbours' treasuries");
          }, c * 2 * as.amount * beside);
          break;
        }
        case v1::QUABBLE_POWER_DOUBLE_TARGET: {
          const int t = as.target;
          const int doubled = std::min(c, cnt[s][t]);
          add_power(s, [&] {
            return absl::StrCat(as.name, ": doubles ", doubled, " ",
                                assets[t].name);
          }, doubled * worth[s][t]);
          break;
        }
        case v1::QUABBLE_POWER_NEIGHBOUR_PENALTY: {
          const int m = Neighbours(s, &nb);
          for (int i = 0; i < m; ++i) {
            add(nb[i], [&] {
              return absl::StrCat(as.name, " x", c, " of seat ", s, ": -",
                                  as.amount, " each");
            }, -2 * as.amount * c);
          }
          break;
        }
        case v1::QUABBLE_POWER_SINGLETON:
          worth[s][a] = c == 1 ? 2 * as.amount : 0;
          add(s, [&] {
            return c == 1 ? absl::StrCat(as.name, ": exactly one, worth ",
                                         as.amount)
                          : absl::StrCat(as.name, ": ", c,
                                         " held (not exactly one), worth 0");
          }, c * worth[s][a] - c * v2);
          break;
        case v1::QUABBLE_POWER_SLAY_TARGET: {
          const int t = as.target;
          const int slain = std::min(c, cnt[s][t]);
          if (slain > 0) {
            add(s, [&] {
              return absl::StrCat(as.name, ": slay ", slain, " ",
                                  assets[t].name, " (they score 0)");
            }, -slain * worth[s][t]);
            add(s, [&] {
              return absl::StrCat(as.name, ": +", as.amount, " per slaying");
            }, slain * 2 * as.amount);
          }
          break;
        }
        case v1::QUABBLE_POWER_CURSE:
          if (c >= as.threshold) {
            worth[s][a] = 2 * as.amount;
            add(s, [&] {
              return absl::StrCat(as.name, ": ", c, " held (", as.threshold,
                                  " or more), each scores ", as.amount);
            }, c * (2 * as.amount - v2));
          }
          break;
        default:
          break;
      }
    }
    if (as.power == v1::QUABBLE_POWER_MAJORITY) {
      int most = 0, holders = 0;
      for (int s = 0; s < n; ++s) most = std::max(most, cnt[s][a]);
      for (int s = 0; s < n; ++s) holders += most > 0 && cnt[s][a] == most;
      if (most > 0) {
        const int share = (2 * as.amount) / holders;  // half points, rounded down
        for (int s = 0; s < n; ++s) {
          if (cnt[s][a] != most) continue;
          add(s, [&] {
            return absl::StrCat(as.name, ": most (", most, "), ", as.amount,
                                holders > 1 ? absl::StrCat(" split ", holders,
                                                           " ways")
                                            : std::string());
          }, share);
        }
      }
    }
  }
  return score;
}

// ---------------------------------------------------------------------------
// State: what seats see

v1::QuabblePhase QuabbleState::phase() const {
  switch (phase_) {
    case kOffer: return v1::QUABBLE_PHASE_OFFER;
    case kClaim: return v1::QUABBLE_PHASE_CLAIM;
    case kSnatch: return v1::QUABBLE_PHASE_SNATCH;
    case kGameOver: return v1::QUABBLE_PHASE_GAME_OVER;
  }
  return v1::QUABBLE_PHASE_UNSPECIFIED;
}

int QuabbleState::NumLegalActions(int seat) const {
  if (acting_.empty()) return 0;  // over, or stopped at the decision cap
  switch (phase_) {
    case kOffer:
      return seat == offer_seat_ ? static_cast<int>(legal_card_.size()) : 0;
    case kClaim:
      return seat >= 0 && seat < num_seats_ ? 2 : 0;
    case kSnatch:
      return seat == snatch_seat_ ? static_cast<int>(legal_card_.size()) : 0;
    case kGameOver:
      break;
  }
  return 0;
}

void QuabbleState::FillLegalActions(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>* out) const {
  out->Clear();
  const int num = NumLegalActions(seat);
  out->Reserve(num);
  if (phase_ == kClaim && num > 0) {
    const int giver = Next(seat, -dir_);
    v1::QuabbleAction* own = out->Add()->mutable_quabble();
    own->set_kind(v1::QUABBLE_ACTION_KIND_CLAIM);
    own->set_card(offer_[seat]);
    own->set_seat(seat);
    own->set_own_offer(true);
    v1::QuabbleAction* given = out->Add()->mutable_quabble();
    given->set_kind(v1::QUABBLE_ACTION_KIND_CLAIM);
    given->set_card(offer_[giver]);
    given->set_seat(giver);
    return;
  }
  for (int i = 0; i < num; ++i) {
    v1::QuabbleAction* q = out->Add()->mutable_quabble();
    if (phase_ == kOffer) {
      q->set_kind(v1::QUABBLE_ACTION_KIND_OFFER);
      q->set_card(legal_card_[i]);
      q->set_seat(seat);
    } else if (legal_card_[i] < 0) {
      q->set_kind(v1::QUABBLE_ACTION_KIND_SNATCH_NOTHING);
      q->set_card(-1);
      q->set_seat(-1);
    } else {
      q->set_kind(v1::QUABBLE_ACTION_KIND_SNATCH);
      q->set_card(legal_card_[i]);
      q->set_seat(legal_seat_[i]);
    }
  }
}

std::string QuabbleState::ActionLabel(int seat, int action) const {
  if (action < 0 || action >= NumLegalActions(seat)) {
    return absl::StrCat("illegal action ", action);
  }
  const Catalogue& cat = *catalogue_;
  switch (phase_) {
    case kOffer:
      return absl::StrCat("offer ", CardName(cat, legal_card_[action]),
                          " to seat ", Next(seat, dir_));
    case kClaim:
      if (action == 0) {
        return absl::StrCat("claim ", CardName(cat, offer_[seat]),
                            " (own offer)");
      } else {
        const int giver = Next(seat, -dir_);
        return absl::StrCat("claim ", CardName(cat, offer_[giver]),
                            " (offered by seat ", giver, ")");
      }
    case kSnatch:
      if (legal_card_[action] < 0) return "take nothing";
      return absl::StrCat("snatch ", CardName(cat, legal_card_[action]),
                          " from seat ", static_cast<int>(legal_seat_[action]));
    case kGameOver:
      break;
  }
  return "?";
}

std::string QuabbleState::ActionLabelFromRequest(int seat, const v1::View& view,
                                                 const v1::Action& action) const {
  const Catalogue& cat = *catalogue_;
  const v1::QuabbleAction& a = action.quabble();
  const bool known = a.card() >= 0 && a.card() < static_cast<int>(cat.card_asset.size());
  switch (a.kind()) {
    case v1::QUABBLE_ACTION_KIND_OFFER:
      if (!known) return "";
      return absl::StrCat(
          "offer ", CardName(cat, a.card()), " to seat ",
          Next(seat, view.quabble().direction() == v1::QUABBLE_DIRECTION_RIGHT ? -1 : 1));
    case v1::QUABBLE_ACTION_KIND_CLAIM:
      if (!known) return "";
      if (a.own_offer()) return absl::StrCat("claim ", CardName(cat, a.card()), " (own offer)");
      return absl::StrCat("claim ", CardName(cat, a.card()), " (offered by seat ", a.seat(), ")");
    case v1::QUABBLE_ACTION_KIND_SNATCH:
      if (!known) return "";
      return absl::StrCat("snatch ", CardName(cat, a.card()), " from seat ", a.seat());
    case v1::QUABBLE_ACTION_KIND_SNATCH_NOTHING:
      return "take nothing";
    default:
      return "";
  }
}

void QuabbleState::FillView(int seat, v1::View* view) const {
  v1::QuabbleView* q = view->mutable_quabble();
  q->Clear();
  const int n = num_seats_;
  for (uint8_t c : hands_[seat]) q->add_hand(c);
  q->set_phase(phase());
  q->set_round(round_);
  q->set_active_seat(active_);
  q->set_direction(dir_ > 0 ? v1::QUABBLE_DIRECTION_LEFT
                            : v1::QUABBLE_DIRECTION_RIGHT);
  q->set_reversal_pending(reverse_pending_);
  q->set_deck_size(deck_size());
  for (int s = 0; s < n; ++s) {
    q->add_hand_sizes(static_cast<int32_t>(hands_[s].size()));
  }
  if (phase_ == kOffer || phase_ == kClaim) {
    for (int i = 0; i < offers_made_; ++i) {
      const int from = Next(active_, i * dir_);
      v1::QuabbleOffer* o = q->add_offers();
      o->set_from_seat(from);
      o->set_to_seat(Next(from, dir_));
      o->set_card(offer_[from]);
    }
  }
  for (int s = 0; s < n; ++s) {
    v1::QuabbleTreasury* t = q->add_treasuries();
    t->set_seat(s);
    for (uint8_t c : treasury_[s]) t->add_cards(c);
  }
  for (const Shared& sh : shared_) {
    v1::QuabbleSharedCard* out = q->add_shared();
    out->set_card(sh.card);
    out->set_seat_a(sh.seat_a);
    out->set_seat_b(sh.seat_b);
  }
  q->mutable_king_treasury()->set_seat(-1);
  for (uint8_t c : king_) q->mutable_king_treasury()->add_cards(c);
  for (const auto& c : last_claims_) *q->add_last_claims() = c;
  q->set_snatch_seat(phase_ == kSnatch ? snatch_seat_ : -1);
  q->set_snatch_card(phase_ == kSnatch ? snatch_card_ : -1);
}

void QuabbleState::FillRules(v1::Rules* rules) const {
  v1::QuabbleRules* r = rules->mutable_quabble();
  r->Clear();
  *r->mutable_assets() = catalogue_->list.assets();
  r->mutable_card_assets()->Reserve(catalogue_->num_cards());
  for (uint8_t a : catalogue_->card_asset) r->add_card_assets(a);
  r->set_hand_size(kHandSize);
  r->set_num_cards(catalogue_->num_cards());
  r->set_asset_list_source(catalogue_->source);
  r->set_asset_list_fingerprint(catalogue_->fingerprint);
}

v1::MatchResult QuabbleState::Result() const {
  v1::MatchResult result;
  std::vector<ScoreItem> items;
  const std::vector<int> hp = ScoresHalfPoints(&items);
  std::vector<double> scores(hp.size());
  for (size_t s = 0; s < hp.size(); ++s) scores[s] = hp[s] / 2.0;
  for (double x : scores) result.add_scores(x);
  for (int p : PlacementsFromScores(scores, true)) result.add_placements(p);
  result.set_higher_score_wins(true);
  result.set_forfeit_seat(-1);
  result.set_decisions(step_);
  if (phase_ == kGameOver) result.set_end_reason(v1::END_REASON_NORMAL);
  for (const ScoreItem& it : items) {
    v1::ScoreLine* line = result.add_score_lines();
    line->set_seat(it.seat);
    line->set_item(it.item);
    line->set_points(it.half_points / 2.0);
  }
  std::string why =
      phase_ == kGameOver
          ? absl::StrCat("the hands are empty after round ", round_)
          : absl::StrCat("unfinished (round ", round_,
                         "); ranked by the score of what is held so far");
  absl::StrAppend(&why, "; scores by seat: ", absl::StrJoin(scores, ", "));
  result.set_detail(why);
  return result;
}

// ---------------------------------------------------------------------------
// Inspection

std::vector<int> QuabbleState::Hand(int seat) const {
  return std::vector<int>(hands_[seat].begin(), hands_[seat].end());
}

std::vector<QuabbleState::Shared> QuabbleState::SharedCards() const {
  return shared_;
}

std::vector<v1::ReplayCard> QuabbleState::CardCatalogue() const {
  v1::Rules rules;
  FillRules(&rules);
  const auto& q = rules.quabble();
  std::vector<v1::ReplayCard> out;
  for (int id = 0; id < q.card_assets_size(); ++id) {
    v1::ReplayCard& rc = out.emplace_back();
    rc.set_id(id);
    const int a = q.card_assets(id);
    if (a < 0 || a >= q.assets_size()) {
      rc.set_name(absl::StrCat("card #", id));
      continue;
    }
    const v1::QuabbleAsset& asset = q.assets(a);
    rc.set_name(asset.name());
    rc.set_detail(absl::StrCat("value ", asset.value(),
                               asset.text().empty() ? "" : "; ", asset.text()));
  }
  return out;
}

}  // namespace quabble
}  // namespace arena
