#include "referee/games/quasenbo/quasenbo.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/game_api/card_checks.h"
#include "referee/game_api/card_set.h"
#include "referee/game_api/deal_log.h"
#include "referee/game_api/options.h"

namespace arena {
namespace quasenbo {
namespace {

// Suit bits: bit (s - 1) for QuasenboSuit s.
constexpr uint8_t kMo = 1 << 0;
constexpr uint8_t kSu = 1 << 1;
constexpr uint8_t kWa = 1 << 2;
constexpr uint8_t kLe = 1 << 3;
constexpr uint8_t kWy = 1 << 4;
constexpr uint8_t kKn = 1 << 5;

constexpr int kRankPawn = v1::QUASENBO_RANK_PAWN;
constexpr int kRankCourt = v1::QUASENBO_RANK_COURT;
constexpr int kRankCrown = v1::QUASENBO_RANK_CROWN;

constexpr int kBasicDeckSize = 36;

struct CardDef {
  const char* name;
  int rank;
  uint8_t suits;
};

// The basic deck in id order: Aces, 2..9 (the rulings' listing), Crowns.
constexpr CardDef kBasic[kBasicDeckSize] = {
    {"Ace of Moons", 1, kMo},      {"Ace of Suns", 1, kSu},
    {"Ace of Waves", 1, kWa},      {"Ace of Leaves", 1, kLe},
    {"Ace of Wyrms", 1, kWy},      {"Ace of Knots", 1, kKn},
    {"Author", 2, kMo | kKn},      {"Desert", 2, kSu | kWy},
    {"Origin", 2, kWa | kLe},      {"Journey", 3, kMo | kWa},
    {"Painter", 3, kSu | kKn},     {"Savage", 3, kLe | kWy},
    {"Mountain", 4, kMo | kSu},    {"Sailor", 4, kWa | kLe},
    {"Battle", 4, kWy | kKn},      {"Forest", 5, kMo | kLe},
    {"Discovery", 5, kSu | kWa},   {"Soldier", 5, kWy | kKn},
    {"Lunatic", 6, kMo | kWa},     {"Penitent", 6, kSu | kWy},
    {"Market", 6, kLe | kKn},      {"Chance Meeting", 7, kMo | kLe},
    {"Castle", 7, kSu | kKn},      {"Cave", 7, kWa | kWy},
    {"Diplomat", 8, kMo | kSu},    {"Mill", 8, kWa | kLe},
    {"Betrayal", 8, kWy | kKn},    {"Pact", 9, kMo | kSu},
    {"Darkness", 9, kWa | kWy},    {"Merchant", 9, kLe | kKn},
    {"Huntress", kRankCrown, kMo}, {"Bard", kRankCrown, kSu},
    {"Sea", kRankCrown, kWa},      {"End", kRankCrown, kLe},
    {"Calamity", kRankCrown, kWy}, {"Windfall", kRankCrown, kKn},
};
constexpr CardDef kPawns[4] = {
    {"Harvest", kRankPawn, kMo | kSu | kLe},
    {"Watchman", kRankPawn, kMo | kWy | kKn},
    {"Light Keeper", kRankPawn, kSu | kWa | kKn},
    {"Borderland", kRankPawn, kWa | kLe | kWy},
};
constexpr CardDef kCourts[4] = {
    {"Consul", kRankCourt, kMo | kWa | kKn},
    {"Rite", kRankCourt, kMo | kLe | kWy},
    {"Island", kRankCourt, kSu | kWa | kWy},
    {"Window", kRankCourt, kSu | kLe | kKn},
};

const char* SuitName(int suit) {
  static const char* const kNames[] = {"?",      "Moons", "Suns", "Waves",
                                       "Leaves", "Wyrms", "Knots"};
  return suit >= 1 && suit <= kNumSuits ? kNames[suit] : "?";
}

inline uint64_t Bit(int card) { return uint64_t{1} << card; }

int DeckSize(const QuasenboConfig& c) {
  return kBasicDeckSize + (c.pawns ? 4 : 0) + (c.courts ? 4 : 0) +
         (c.excuse ? 1 : 0);
}

std::shared_ptr<const Catalogue> MakeCatalogue(const QuasenboConfig& config) {
  auto cat = std::make_shared<Catalogue>();
  auto add = [&](const CardDef& d) {
    cat->cards.push_back({d.name, d.rank, d.suits, false});
  };
  for (const CardDef& d : kBasic) add(d);
  if (config.pawns) {
    for (const CardDef& d : kPawns) add(d);
  }
  if (config.courts) {
    for (const CardDef& d : kCourts) add(d);
  }
  if (config.excuse) {
    cat->excuse_id = static_cast<int>(cat->cards.size());
    cat->excuse_mask = Bit(cat->excuse_id);
    cat->cards.push_back({"Excuse", 0, 0, true});
  }
  const int n = static_cast<int>(cat->cards.size());
  std::array<uint64_t, kNumSuits + 1> by_suit{};
  std::array<uint64_t, kRankCrown + 1> by_rank{};
  for (int c = 0; c < n; ++c) {
    const Catalogue::Card& card = cat->cards[c];
    if (card.excuse) continue;
    for (int s = 1; s <= kNumSuits; ++s) {
      if (card.suits & (1 << (s - 1))) by_suit[s] |= Bit(c);
    }
    by_rank[card.rank] |= Bit(c);
  }
  cat->playable_on.assign(n, 0);
  for (int c = 0; c < n; ++c) {
    const Catalogue::Card& card = cat->cards[c];
    if (card.excuse) continue;
    uint64_t m = by_rank[card.rank] | cat->excuse_mask;
    for (int s = 1; s <= kNumSuits; ++s) {
      if (card.suits & (1 << (s - 1))) m |= by_suit[s];
    }
    cat->playable_on[c] = m & ~Bit(c);
  }
  for (int s = 1; s <= kNumSuits; ++s) {
    cat->playable_on_decree[s] = by_suit[s];  // the Excuse is the top itself
  }
  return cat;
}

void FillRulesFrom(const Catalogue& catalogue, const QuasenboConfig& config,
                   v1::QuasenboRules* rules) {
  rules->Clear();
  for (size_t c = 0; c < catalogue.cards.size(); ++c) {
    const Catalogue::Card& card = catalogue.cards[c];
    v1::QuasenboCard* out = rules->add_cards();
    out->set_id(static_cast<int32_t>(c));
    out->set_name(card.name);
    out->set_rank(static_cast<v1::QuasenboRank>(card.rank));
    for (int s = 1; s <= kNumSuits; ++s) {
      if (card.suits & (1 << (s - 1))) {
        out->add_suits(static_cast<v1::QuasenboSuit>(s));
      }
    }
    out->set_excuse(card.excuse);
  }
  rules->set_hand_size(config.hand_size);
  rules->set_double_quasenbo(config.double_quasenbo);
}

}  // namespace

// ---------------------------------------------------------------------------
// Game

const GameInfo& QuasenboInfo() {
  static const GameInfo* info = [] {
    auto* i = new GameInfo;
    i->name = "quasenbo";
    i->min_seats = 2;
    i->max_seats = kMaxSeats;
    i->default_seats = 2;
    i->default_decision_cap = 5000;
    i->higher_score_wins = false;
    i->options = {
        {"excuse", "true/false (default false): add the Excuse"},
        {"pawns", "true/false (default false): add the 4 Pawns"},
        {"courts", "true/false (default false): add the 4 Courts"},
        {"double_quasenbo",
         "true/false (default false): penalty = same-suit run length - 2"},
        {"hand_size", "1..20 (default 7): cards dealt to each seat"},
    };
    i->proto_files = {v1::QuasenboView::descriptor()->file()};
    return i;
  }();
  return *info;
}

absl::StatusOr<std::unique_ptr<QuasenboGame>> QuasenboGame::Create(
    const Options& options, int num_seats) {
  const GameInfo& info = QuasenboInfo();
  if (absl::Status s = CheckSeatCount(info, num_seats); !s.ok()) return s;
  OptionReader reader(options, info);
  QuasenboConfig config;
  config.num_seats = num_seats;
  config.excuse = reader.Bool("excuse", false);
  config.pawns = reader.Bool("pawns", false);
  config.courts = reader.Bool("courts", false);
  config.double_quasenbo = reader.Bool("double_quasenbo", false);
  config.hand_size = reader.Int("hand_size", 7, 1, 20);
  if (absl::Status s = reader.Finish(); !s.ok()) return s;

  const int deck = DeckSize(config);
  const int dealt = num_seats * config.hand_size;
  // The Excuse cannot start the pile, so with it one more card must be left.
  const int needed = dealt + 1 + (config.excuse ? 1 : 0);
  if (needed > deck) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quasenbo: the deal does not fit the deck: ", num_seats, " seats x ",
        config.hand_size, " cards + 1 start card",
        config.excuse ? " + 1 spare card (the Excuse cannot start the pile)"
                      : "",
        " = ", needed, " cards, but the deck has ", deck,
        "; lower hand_size or the number of seats, or add cards"));
  }
  return std::unique_ptr<QuasenboGame>(
      new QuasenboGame(config, MakeCatalogue(config)));
}

absl::StatusOr<std::unique_ptr<Game>> CreateQuasenbo(const Options& options,
                                                     int num_seats) {
  absl::StatusOr<std::unique_ptr<QuasenboGame>> game =
      QuasenboGame::Create(options, num_seats);
  if (!game.ok()) return game.status();
  return std::unique_ptr<Game>(std::move(*game));
}

int QuasenboGame::CardId(absl::string_view name) const {
  for (size_t c = 0; c < catalogue_->cards.size(); ++c) {
    if (catalogue_->cards[c].name == name) return static_cast<int>(c);
  }
  return -1;
}

void QuasenboGame::FillRules(v1::QuasenboRules* rules) const {
  FillRulesFrom(*catalogue_, config_, rules);
}

std::unique_ptr<State> QuasenboGame::NewInitialState(uint64_t seed) const {
  std::unique_ptr<QuasenboState> state(new QuasenboState(*this, seed));
  std::vector<uint8_t> order(num_cards());
  for (int c = 0; c < num_cards(); ++c) order[c] = static_cast<uint8_t>(c);
  state->rng_.Shuffle(order);
  state->Deal(order);
  return state;
}

// ---------------------------------------------------------------------------
// State: set-up

QuasenboState::QuasenboState(const QuasenboGame& game, uint64_t seed)
    : catalogue_(game.catalogue_),
      config_(game.config_),
      num_seats_(game.config_.num_seats),
      rng_(seed) {
  deck_.reserve(kMaxCards);
  pile_.reserve(kMaxCards);
  decree_.reserve(kMaxCards);
  legal_.reserve(kMaxCards + kNumSuits);
  acting_.reserve(1);
  scratch_.reserve(kMaxCards);
}

void QuasenboState::Deal(const std::vector<uint8_t>& order) {
  const int n = num_seats_;
  const int dealt = n * config_.hand_size;
  for (int i = 0; i < dealt; ++i) hands_[i % n] |= Bit(order[i]);
  deck_.assign(order.begin() + dealt, order.end());
  deck_pos_ = 0;
  cards_in_play_ = static_cast<int>(order.size());

  // Every hand and the deck for the record; each seat its own hand.
  LogDeal(n, hands_.data(), deck_, [&](uint64_t seats) {
    return Log(false, seats).event.mutable_quasenbo()->mutable_deal();
  });

  int returned = 0;
  int start = deck_[deck_pos_++];
  while (start == catalogue_->excuse_id) {
    // The Excuse goes back, the rest of the deck is reshuffled, turn again.
    // (The config check leaves at least one other card in the deck.)
    std::vector<uint8_t> rest(deck_.begin() + deck_pos_, deck_.end());
    rest.push_back(static_cast<uint8_t>(start));
    rng_.Shuffle(rest);
    deck_ = std::move(rest);
    deck_pos_ = 0;
    ++returned;
    start = deck_[deck_pos_++];
  }
  pile_.push_back(static_cast<uint8_t>(start));
  decree_.push_back(0);
  {
    LoggedEvent& e = Log(false, 0);
    auto* full = e.event.mutable_quasenbo()->mutable_start_card();
    full->set_card(start);
    full->set_excuses_returned(returned);
    e.has_redacted = true;
    e.redacted = e.event;  // before the deck is added: public version
    for (int i = deck_pos_; i < static_cast<int>(deck_.size()); ++i) {
      full->add_deck(deck_[i]);
    }
  }
  StartTurn(0);
}

absl::StatusOr<std::unique_ptr<QuasenboState>>
QuasenboState::FromDeckOrderForTest(const QuasenboGame& game,
                                    const std::vector<int>& deck,
                                    uint64_t seed) {
  absl::StatusOr<std::vector<uint8_t>> order =
      CheckDeckOrder(deck, game.num_cards());
  if (!order.ok()) return order.status();
  std::unique_ptr<QuasenboState> state(new QuasenboState(game, seed));
  state->Deal(*order);
  return state;
}

absl::StatusOr<std::unique_ptr<QuasenboState>>
QuasenboState::FromPositionForTest(const QuasenboGame& game,
                                   const Position& position, uint64_t seed) {
  const int seats = game.num_seats();
  const int excuse = game.catalogue().excuse_id;
  if (position.pile.empty()) {
    return absl::InvalidArgumentError("position: the pile is empty");
  }
  if (position.current_seat < 0 || position.current_seat >= seats ||
      position.passes_in_row < 0 || position.passes_in_row >= seats) {
    return absl::InvalidArgumentError("position: bad seat or passes");
  }
  std::unique_ptr<QuasenboState> state(new QuasenboState(game, seed));
  PositionCards cards(game.num_cards());
  if (absl::Status st =
          cards.TakeHands(position.hands, seats, state->hands_.data());
      !st.ok()) {
    return st;
  }
  const int pile_size = static_cast<int>(position.pile.size());
  for (int i = 0; i < pile_size; ++i) {
    const PileCard& p = position.pile[i];
    if (absl::Status st = cards.Take(p.card); !st.ok()) return st;
    const bool top_three = i >= pile_size - kTopVisible;
    int decree = 0;
    if (p.card == excuse && top_three) {
      if (p.decree < 1 || p.decree > kNumSuits) {
        return absl::InvalidArgumentError(
            "position: an Excuse in the top three needs a decree");
      }
      decree = p.decree;
    }
    state->pile_.push_back(static_cast<uint8_t>(p.card));
    state->decree_.push_back(static_cast<uint8_t>(decree));
  }
  if (absl::Status st = cards.TakeInto(position.deck, &state->deck_);
      !st.ok()) {
    return st;
  }
  state->cards_in_play_ = cards.count();
  state->passes_ = position.passes_in_row;
  state->StartTurn(position.current_seat);
  return state;
}

// ---------------------------------------------------------------------------
// State: rules

uint8_t QuasenboState::EffectiveSuits(int depth) const {
  const int i = static_cast<int>(pile_.size()) - 1 - depth;
  const int c = pile_[i];
  if (c == catalogue_->excuse_id) {
    return depth < kTopVisible ? static_cast<uint8_t>(1 << (decree_[i] - 1))
                               : 0;
  }
  return catalogue_->cards[c].suits;
}

uint64_t QuasenboState::PlayableMask() const {
  const int top = pile_.back();
  if (top == catalogue_->excuse_id) {
    return catalogue_->playable_on_decree[decree_.back()];
  }
  return catalogue_->playable_on[top];
}

int QuasenboState::PenaltyFor() const {
  const int size = static_cast<int>(pile_.size());
  if (size < 3) return 0;
  const uint8_t top = EffectiveSuits(0);
  if ((top & EffectiveSuits(1) & EffectiveSuits(2)) == 0) return 0;
  if (!config_.double_quasenbo) return 1;
  int longest = 0;
  for (int s = 0; s < kNumSuits; ++s) {
    if (!(top & (1 << s))) continue;
    int run = 1;
    while (run < size && (EffectiveSuits(run) & (1 << s))) ++run;
    longest = std::max(longest, run);
  }
  return longest - 2;
}

void QuasenboState::SetLegalFromMask(uint64_t mask) {
  legal_.clear();
  while (mask) {
    const int c = Lowest(mask);
    mask &= mask - 1;
    if (c == catalogue_->excuse_id) {
      for (int s = 1; s <= kNumSuits; ++s) {
        legal_.push_back(static_cast<uint16_t>(c | (s << 8)));
      }
    } else {
      legal_.push_back(static_cast<uint16_t>(c));
    }
  }
}

bool QuasenboState::Reshuffle() {
  const int keep = 2;
  const int size = static_cast<int>(pile_.size());
  if (size <= keep) return false;
  // Bottom of the pile first, then the Rng shuffles; Excuses lose decrees.
  deck_.assign(pile_.begin(), pile_.end() - keep);
  deck_pos_ = 0;
  pile_.erase(pile_.begin(), pile_.end() - keep);
  decree_.erase(decree_.begin(), decree_.end() - keep);
  rng_.Shuffle(deck_);
  LoggedEvent& e = Log(false, 0);
  auto* full = e.event.mutable_quasenbo()->mutable_reshuffled();
  full->set_count(static_cast<int32_t>(deck_.size()));
  e.has_redacted = true;
  e.redacted = e.event;
  full->mutable_deck()->Reserve(static_cast<int>(deck_.size()));
  for (uint8_t c : deck_) full->add_deck(c);
  return true;
}

void QuasenboState::LogDrew(int seat, const std::vector<int>& cards,
                            bool penalty) {
  if (cards.empty()) return;
  LoggedEvent& e = Log(false, uint64_t{1} << seat);
  auto* full = e.event.mutable_quasenbo()->mutable_drew();
  full->set_seat(seat);
  full->set_count(static_cast<int32_t>(cards.size()));
  full->set_penalty(penalty);
  e.has_redacted = true;
  e.redacted = e.event;
  for (int c : cards) full->add_cards(c);
}

int QuasenboState::DrawPenalty(int seat, int count) {
  scratch_.clear();
  int drawn = 0;
  while (drawn < count) {
    if (deck_pos_ == static_cast<int>(deck_.size())) {
      LogDrew(seat, scratch_, true);
      scratch_.clear();
      if (!Reshuffle()) break;
    }
    const int c = deck_[deck_pos_++];
    hands_[seat] |= Bit(c);
    scratch_.push_back(c);
    ++drawn;
  }
  LogDrew(seat, scratch_, true);
  return drawn;
}

int QuasenboState::DrawUntilPlayable(int seat) {
  const uint64_t playable = PlayableMask();  // reshuffles keep the top
  scratch_.clear();
  for (;;) {
    if (deck_pos_ == static_cast<int>(deck_.size())) {
      LogDrew(seat, scratch_, false);
      scratch_.clear();
      if (!Reshuffle()) return -1;
    }
    const int c = deck_[deck_pos_++];
    hands_[seat] |= Bit(c);
    scratch_.push_back(c);
    if (playable & Bit(c)) {
      LogDrew(seat, scratch_, false);
      return c;
    }
  }
}

void QuasenboState::StartTurn(int seat) {
  for (;;) {
    current_ = seat;
    const uint64_t playable = hands_[seat] & PlayableMask();
    if (playable) {
      SetLegalFromMask(playable);
      acting_.assign(1, seat);
      return;
    }
    const int drawn = DrawUntilPlayable(seat);
    if (drawn >= 0) {
      SetLegalFromMask(Bit(drawn));
      acting_.assign(1, seat);
      return;
    }
    LoggedEvent& e = Log(true, 0);
    e.event.mutable_quasenbo()->mutable_passed()->set_seat(seat);
    if (++passes_ >= num_seats_) {
      terminal_ = true;
      current_ = -1;
      acting_.clear();
      legal_.clear();
      return;
    }
    seat = seat + 1 == num_seats_ ? 0 : seat + 1;
  }
}

void QuasenboState::Apply(absl::Span<const int> actions) {
  if (terminal_ || actions.size() != 1 || actions[0] < 0 ||
      actions[0] >= static_cast<int>(legal_.size())) {
    EngineFatal("quasenbo",
                absl::StrCat("Apply: illegal actions at step ", step_));
  }
  ++step_;
  const int seat = current_;
  const int card = legal_[actions[0]] & 0xff;
  const int decree = legal_[actions[0]] >> 8;
  hands_[seat] &= ~Bit(card);
  pile_.push_back(static_cast<uint8_t>(card));
  decree_.push_back(static_cast<uint8_t>(decree));
  passes_ = 0;
  const int penalty = PenaltyFor();
  {
    LoggedEvent& e = Log(true, 0);
    auto* played = e.event.mutable_quasenbo()->mutable_played();
    played->set_seat(seat);
    played->set_card(card);
    if (decree != 0) played->set_decree(static_cast<v1::QuasenboSuit>(decree));
    if (penalty != 0) played->set_penalty(penalty);
  }
  if (penalty > 0) DrawPenalty(seat, penalty);
  if (hands_[seat] == 0) {
    winner_ = seat;
    terminal_ = true;
    current_ = -1;
    acting_.clear();
    legal_.clear();
    return;
  }
  if (AtDecisionCap()) {  // the penalty stands; the next turn never starts
    current_ = -1;
    acting_.clear();
    legal_.clear();
    return;
  }
  StartTurn(seat + 1 == num_seats_ ? 0 : seat + 1);
}

// ---------------------------------------------------------------------------
// State: what seats see

int QuasenboState::NumLegalActions(int seat) const {
  return seat == current_ ? static_cast<int>(legal_.size()) : 0;
}

void QuasenboState::FillLegalActions(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>* out) const {
  out->Clear();
  if (seat != current_) return;
  out->Reserve(static_cast<int>(legal_.size()));
  for (uint16_t a : legal_) {
    v1::QuasenboAction* q = out->Add()->mutable_quasenbo();
    q->set_card(a & 0xff);
    if (a >> 8) q->set_decree(static_cast<v1::QuasenboSuit>(a >> 8));
  }
}

std::string QuasenboState::ActionLabel(int seat, int action) const {
  if (seat != current_ || action < 0 ||
      action >= static_cast<int>(legal_.size())) {
    return absl::StrCat("illegal action ", action);
  }
  return PlayLabel(legal_[action] & 0xff, legal_[action] >> 8);
}

std::string QuasenboState::ActionLabelFromRequest(int, const v1::View&,
                                                  const v1::Action& action) const {
  if (!action.has_quasenbo() || action.quasenbo().card() < 0 ||
      action.quasenbo().card() >= static_cast<int>(catalogue_->cards.size())) {
    return "";
  }
  return PlayLabel(action.quasenbo().card(), action.quasenbo().decree());
}

std::string QuasenboState::PlayLabel(int card, int decree) const {
  std::string label = absl::StrCat("play ", catalogue_->cards[card].name);
  if (decree != 0) absl::StrAppend(&label, ", decree ", SuitName(decree));
  return label;
}

std::string QuasenboState::DescribeEvent(const v1::Event& event) const {
  if (!event.has_quasenbo()) return "";
  const v1::QuasenboEvent& e = event.quasenbo();
  auto names = [&](const google::protobuf::RepeatedField<int32_t>& ids) {
    std::string out;
    for (int id : ids) {
      absl::StrAppend(&out, out.empty() ? "" : ", ",
                      id >= 0 && id < static_cast<int>(catalogue_->cards.size())
                          ? catalogue_->cards[id].name
                          : absl::StrCat("#", id));
    }
    return out;
  };
  auto name = [&](int id) {
    return id >= 0 && id < static_cast<int>(catalogue_->cards.size())
               ? catalogue_->cards[id].name
               : absl::StrCat("#", id);
  };
  switch (e.kind_case()) {
    case v1::QuasenboEvent::kDeal: {
      std::string out = "deal:";
      for (const auto& h : e.deal().hands()) {
        absl::StrAppend(&out, " seat ", h.seat(), " [", names(h.cards()), "]");
      }
      if (e.deal().deck_size() > 0) {
        absl::StrAppend(&out, " deck [", names(e.deal().deck()), "]");
      }
      return out;
    }
    case v1::QuasenboEvent::kStartCard: {
      std::string out = absl::StrCat("start card ", name(e.start_card().card()));
      if (e.start_card().excuses_returned() > 0) {
        absl::StrAppend(&out, " (the Excuse was turned up first and shuffled back)");
      }
      if (e.start_card().deck_size() > 0) {
        absl::StrAppend(&out, "; deck [", names(e.start_card().deck()), "]");
      }
      return out;
    }
    case v1::QuasenboEvent::kPlayed: {
      std::string out = absl::StrCat("seat ", e.played().seat(), " played ",
                                     name(e.played().card()));
      if (e.played().decree() != 0) {
        absl::StrAppend(&out, ", decreeing ", SuitName(e.played().decree()));
      }
      if (e.played().penalty() > 0) {
        absl::StrAppend(&out, ": quäsenbö, penalty ", e.played().penalty());
      }
      return out;
    }
    case v1::QuasenboEvent::kDrew: {
      std::string out = absl::StrCat("seat ", e.drew().seat(), " drew ",
                                     e.drew().count(),
                                     e.drew().count() == 1 ? " card" : " cards");
      if (e.drew().cards_size() > 0) {
        absl::StrAppend(&out, " [", names(e.drew().cards()), "]");
      }
      if (e.drew().penalty()) absl::StrAppend(&out, " as a penalty");
      return out;
    }
    case v1::QuasenboEvent::kReshuffled: {
      std::string out = absl::StrCat("pile reshuffled into a deck of ",
                                     e.reshuffled().count());
      if (e.reshuffled().deck_size() > 0) {
        absl::StrAppend(&out, " [", names(e.reshuffled().deck()), "]");
      }
      return out;
    }
    case v1::QuasenboEvent::kPassed:
      return absl::StrCat("seat ", e.passed().seat(), " cannot play and passes");
    default:
      return "";
  }
}

void QuasenboState::FillView(int seat, v1::View* view) const {
  v1::QuasenboView* q = view->mutable_quasenbo();
  q->Clear();
  AddCards(hands_[seat], q->mutable_hand());
  const int size = static_cast<int>(pile_.size());
  for (int d = 0; d < kTopVisible && d < size; ++d) {
    const int i = size - 1 - d;
    v1::QuasenboPileCard* p = q->add_top();
    p->set_card(pile_[i]);
    if (pile_[i] == catalogue_->excuse_id) {
      p->set_decree(static_cast<v1::QuasenboSuit>(decree_[i]));
    }
  }
  auto* sizes = q->mutable_hand_sizes();
  sizes->Reserve(num_seats_);
  for (int s = 0; s < num_seats_; ++s) {
    sizes->AddAlreadyReserved(Popcount(hands_[s]));
  }
  q->set_deck_size(deck_size());
  q->set_pile_size(size);
  q->set_current_seat(current_);
  q->set_passes_in_row(passes_);
}

void QuasenboState::FillRules(v1::Rules* rules) const {
  FillRulesFrom(*catalogue_, config_, rules->mutable_quasenbo());
}

v1::MatchResult QuasenboState::Result() const {
  v1::MatchResult result;
  std::vector<double> scores(num_seats_);
  for (int s = 0; s < num_seats_; ++s) scores[s] = HandSize(s);
  for (double x : scores) result.add_scores(x);
  for (int p : PlacementsFromScores(scores, false)) result.add_placements(p);
  result.set_higher_score_wins(false);
  result.set_forfeit_seat(-1);
  result.set_decisions(step_);
  std::string why;
  if (winner_ >= 0) {
    why = absl::StrCat("seat ", winner_, " ended a turn with no cards");
  } else if (terminal_) {
    why = absl::StrCat("all ", num_seats_,
                       " seats passed in a row (nothing left to draw); "
                       "ranked by cards left");
  } else {
    why = "unfinished; ranked by cards left (fewer is better)";
  }
  if (terminal_) result.set_end_reason(v1::END_REASON_NORMAL);
  std::vector<int> left(scores.begin(), scores.end());
  absl::StrAppend(&why, "; cards left by seat: ", absl::StrJoin(left, ", "));
  result.set_detail(why);
  return result;
}

// ---------------------------------------------------------------------------
// State: inspection

std::vector<int> QuasenboState::Hand(int seat) const {
  return CardsOf(hands_[seat]);
}

int QuasenboState::HandSize(int seat) const { return Popcount(hands_[seat]); }

std::vector<QuasenboState::PileCard> QuasenboState::Pile() const {
  std::vector<PileCard> out;
  for (size_t i = 0; i < pile_.size(); ++i) {
    const bool excuse = pile_[i] == catalogue_->excuse_id;
    const bool top_three = i + kTopVisible >= pile_.size();
    out.push_back({pile_[i], excuse && top_three ? decree_[i] : 0});
  }
  return out;
}

std::vector<int> QuasenboState::Deck() const {
  return std::vector<int>(deck_.begin() + deck_pos_, deck_.end());
}

std::vector<v1::ReplayCard> QuasenboState::CardCatalogue() const {
  v1::Rules rules;
  FillRules(&rules);
  std::vector<v1::ReplayCard> out;
  for (const auto& c : rules.quasenbo().cards()) {
    v1::ReplayCard& rc = out.emplace_back();
    rc.set_id(c.id());
    rc.set_name(c.name());
    for (int s : c.suits()) {
      rc.add_suits(EnumWords(v1::QuasenboSuit_descriptor()->FindValueByNumber(s)));
    }
    if (c.rank() != 0) {
      rc.set_rank(EnumWords(v1::QuasenboRank_descriptor()->FindValueByNumber(c.rank())));
    }
    if (c.excuse()) rc.set_detail("the Excuse: decrees a suit");
  }
  return out;
}

}  // namespace quasenbo
}  // namespace arena
