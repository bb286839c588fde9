#include "referee/games/pesten/pesten.h"

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
namespace pesten {
namespace {

inline uint64_t Bit(int card) { return uint64_t{1} << card; }

// Masks over card ids (Jokers: all four possible ids; absent ones are never
// in a hand).
struct Masks {
  std::array<uint64_t, kNumSuits + 1> suit{};
  std::array<uint64_t, kJoker + 1> rank{};
  uint64_t special = 0;
  Masks() {
    for (int c = 0; c < kMaxCards; ++c) {
      suit[SuitOf(c)] |= Bit(c);
      rank[RankOf(c)] |= Bit(c);
      if (IsSpecial(c)) special |= Bit(c);
    }
  }
};
const Masks& M() {
  static const Masks* masks = new Masks;
  return *masks;
}

// Encoded legal move: kind | card << 3 | wish << 9 | announce << 12.
inline uint16_t Encode(int kind, int card, int wish, bool announce) {
  return static_cast<uint16_t>(kind | (card < 0 ? 0 : card) << 3 | wish << 9 |
                               (announce ? 1 : 0) << 12);
}
inline PestenState::Move Decode(uint16_t a) {
  PestenState::Move m;
  m.kind = a & 7;
  m.card = (a >> 3) & 63;
  m.wish = (a >> 9) & 7;
  m.announce = (a >> 12) & 1;
  if (m.kind != v1::PESTEN_ACTION_KIND_PLAY &&
      m.kind != v1::PESTEN_ACTION_KIND_PASS_CARD) {
    m.card = -1;
  }
  return m;
}

const char* RankName(int rank) {
  static const char* const kNames[] = {
      "?", "?", "2", "3", "4", "5", "6", "7", "8", "9", "10",
      "Jack", "Queen", "King", "Ace", "Joker"};
  return rank >= 2 && rank <= kJoker ? kNames[rank] : "?";
}

void FillRulesFrom(const PestenConfig& config, v1::PestenRules* rules) {
  rules->Clear();
  for (int c = 0; c < kFrenchCards + config.jokers; ++c) {
    v1::PestenCard* card = rules->add_catalogue();
    card->set_id(c);
    card->set_name(CardName(c));
    card->set_rank(static_cast<v1::PestenRank>(RankOf(c)));
    card->set_suit(static_cast<v1::PestenSuit>(SuitOf(c)));
    card->set_special(IsSpecial(c));
  }
  rules->set_hand_size(kHandSize);
  rules->set_jokers(config.jokers);
  rules->set_winning_points(config.winning_points);
  rules->set_two_draw(kTwoDraw);
  rules->set_joker_draw(kJokerDraw);
  rules->set_announcement_penalty(kAnnouncementPenalty);
}

}  // namespace

std::string CardName(int card) {
  if (card < 0 || card >= kMaxCards) return absl::StrCat("card ", card);
  if (IsJoker(card)) return absl::StrCat("Joker ", card - kFrenchCards + 1);
  return absl::StrCat(RankName(RankOf(card)), " of ", SuitName(SuitOf(card)));
}

const char* SuitName(int suit) {
  static const char* const kNames[] = {"?", "Clubs", "Diamonds", "Hearts",
                                       "Spades"};
  return suit >= 1 && suit <= kNumSuits ? kNames[suit] : "?";
}

// ---------------------------------------------------------------------------
// Game

const GameInfo& PestenInfo() {
  static const GameInfo* info = [] {
    auto* i = new GameInfo;
    i->name = "pesten";
    i->min_seats = kMinSeats;
    i->max_seats = kMaxSeats;
    i->default_seats = 4;
    // Random bots need about 3,000 decisions a round (median 7,000-8,000 a
    // match of 2 winning points; the longest of 1,000 measured: 39,172).
    i->default_decision_cap = 100000;
    i->higher_score_wins = true;
    i->options = {
        {"jokers", "0..4 (default 2): Jokers added to the 52 cards"},
        {"winning_points",
         "1..100 (default 2): round wins that end the match"},
    };
    i->simultaneous_steps = true;
    i->proto_files = {v1::PestenView::descriptor()->file()};
    return i;
  }();
  return *info;
}

absl::StatusOr<std::unique_ptr<PestenGame>> PestenGame::Create(
    const Options& options, int num_seats) {
  const GameInfo& info = PestenInfo();
  if (absl::Status s = CheckSeatCount(info, num_seats); !s.ok()) return s;
  OptionReader reader(options, info);
  PestenConfig config;
  config.num_seats = num_seats;
  config.jokers = reader.Int("jokers", 2, 0, kMaxJokers);
  config.winning_points = reader.Int("winning_points", 2, 1, 100);
  if (absl::Status s = reader.Finish(); !s.ok()) return s;
  return std::unique_ptr<PestenGame>(new PestenGame(config));
}

absl::StatusOr<std::unique_ptr<Game>> CreatePesten(const Options& options,
                                                   int num_seats) {
  absl::StatusOr<std::unique_ptr<PestenGame>> game =
      PestenGame::Create(options, num_seats);
  if (!game.ok()) return game.status();
  return std::unique_ptr<Game>(std::move(*game));
}

void PestenGame::FillRules(v1::PestenRules* rules) const {
  FillRulesFrom(config_, rules);
}

std::unique_ptr<State> PestenGame::NewInitialState(uint64_t seed) const {
  std::unique_ptr<PestenState> state(new PestenState(*this, seed));
  state->StartRound();
  return state;
}

// ---------------------------------------------------------------------------
// State: set-up

PestenState::PestenState(const PestenGame& game, uint64_t seed)
    : config_(game.config()), num_seats_(game.num_seats()), rng_(seed) {
  deck_.reserve(kMaxCards);
  pile_.reserve(kMaxCards);
  legal_.reserve(4 * kMaxCards);
  acting_.reserve(kMaxSeats);
  scratch_.reserve(kMaxCards);
}

void PestenState::StartRound() {
  const int n = kFrenchCards + config_.jokers;
  std::vector<uint8_t> order(n);
  for (int c = 0; c < n; ++c) order[c] = static_cast<uint8_t>(c);
  rng_.Shuffle(order);
  Deal(order);
}

void PestenState::Deal(const std::vector<uint8_t>& order) {
  const int n = num_seats_;
  const int dealer = round_ % n;
  hands_.fill(0);
  pile_.clear();
  direction_ = 1;
  wish_ = 0;
  obligation_ = 0;
  const int dealt = n * kHandSize;
  for (int i = 0; i < dealt; ++i) hands_[(dealer + 1 + i) % n] |= Bit(order[i]);
  deck_.assign(order.begin() + dealt, order.end());
  deck_pos_ = 0;
  // Every hand and the deck for the record; each seat its own hand.
  LogDeal(n, hands_.data(), deck_, [&](uint64_t seats) {
    auto* deal = Log(false, seats).event.mutable_pesten()->mutable_deal();
    deal->set_round(round_);
    deal->set_dealer(dealer);
    return deal;
  });
  const int start = deck_[deck_pos_++];
  pile_.push_back(static_cast<uint8_t>(start));
  {
    LoggedEvent& e = Log(false, 0);
    auto* full = e.event.mutable_pesten()->mutable_start_card();
    full->set_card(start);
    full->set_dealer(dealer);
    e.has_redacted = true;
    e.redacted = e.event;  // the public version: no deck order
    for (int i = deck_pos_; i < static_cast<int>(deck_.size()); ++i) {
      full->add_deck(deck_[i]);
    }
  }
  if (RankOf(start) == kJack) {  // the dealer wishes before play starts
    phase_ = v1::PESTEN_PHASE_WISH;
    current_ = dealer;
    legal_.clear();
    for (int s = 1; s <= kNumSuits; ++s) {
      legal_.push_back(Encode(v1::PESTEN_ACTION_KIND_WISH, -1, s, false));
    }
    acting_.assign(1, dealer);
    return;
  }
  Effect(dealer, start);
}

absl::StatusOr<std::unique_ptr<PestenState>> PestenState::FromDeckOrderForTest(
    const PestenGame& game, const std::vector<int>& deck, uint64_t seed) {
  absl::StatusOr<std::vector<uint8_t>> order =
      CheckDeckOrder(deck, game.num_cards());
  if (!order.ok()) return order.status();
  std::unique_ptr<PestenState> state(new PestenState(game, seed));
  state->Deal(*order);
  return state;
}

absl::StatusOr<std::unique_ptr<PestenState>> PestenState::FromPositionForTest(
    const PestenGame& game, const Position& p, uint64_t seed) {
  const int seats = game.num_seats();
  if (p.pile.empty()) {
    return absl::InvalidArgumentError("position: the pile is empty");
  }
  if (p.current_seat < 0 || p.current_seat >= seats ||
      (p.direction != 1 && p.direction != -1) || p.wish < 0 ||
      p.wish > kNumSuits || p.obligation < 0 || p.round < 0 ||
      (!p.winning_points.empty() &&
       static_cast<int>(p.winning_points.size()) != seats)) {
    return absl::InvalidArgumentError(
        "position: bad seat, direction, wish, obligation, round or points");
  }
  if (p.wish != 0 && RankOf(p.pile.back()) != kJack) {
    return absl::InvalidArgumentError("position: a wish needs a Jack on top");
  }
  std::unique_ptr<PestenState> state(new PestenState(game, seed));
  PositionCards cards(game.num_cards());
  if (absl::Status st = cards.TakeHands(p.hands, seats, state->hands_.data());
      !st.ok()) {
    return st;
  }
  for (int s = 0; s < static_cast<int>(p.winning_points.size()); ++s) {
    state->points_[s] = p.winning_points[s];
  }
  if (absl::Status st = cards.TakeInto(p.pile, &state->pile_); !st.ok()) {
    return st;
  }
  if (absl::Status st = cards.TakeInto(p.deck, &state->deck_); !st.ok()) {
    return st;
  }
  state->direction_ = p.direction;
  state->wish_ = p.wish;
  state->obligation_ = p.obligation;
  state->round_ = p.round;
  state->BeginTurn(p.current_seat, p.follow_up);
  return state;
}

// ---------------------------------------------------------------------------
// State: rules

uint64_t PestenState::PlayableMask() const {
  const Masks& m = M();
  const uint64_t wild = m.rank[kJack] | m.rank[kJoker];
  if (obligation_ > 0) return m.rank[kTwo] | m.rank[kJoker];
  const int top = pile_.back();
  if (IsJoker(top)) return ~uint64_t{0};
  if (wish_ != 0) return m.suit[wish_] | wild;
  return m.suit[SuitOf(top)] | m.rank[RankOf(top)] | wild;
}

void PestenState::ComputeLegal() {
  legal_.clear();
  const uint64_t hand = hands_[current_];
  const int size = Popcount(hand);
  uint64_t mask = hand & PlayableMask();
  if (size == 1) mask &= ~M().special;  // no special last card
  const bool leaves_one = size == 2;
  while (mask) {
    const int c = Lowest(mask);
    mask &= mask - 1;
    const int wishes_from = RankOf(c) == kJack ? 1 : 0;
    const int wishes_to = RankOf(c) == kJack ? kNumSuits : 0;
    for (int w = wishes_from; w <= wishes_to; ++w) {
      legal_.push_back(Encode(v1::PESTEN_ACTION_KIND_PLAY, c, w, false));
      if (leaves_one) {
        legal_.push_back(Encode(v1::PESTEN_ACTION_KIND_PLAY, c, w, true));
      }
    }
  }
  legal_.push_back(obligation_ > 0
                       ? Encode(v1::PESTEN_ACTION_KIND_TAKE_OBLIGATION, -1, 0,
                                false)
                       : Encode(v1::PESTEN_ACTION_KIND_DRAW, -1, 0, false));
}

void PestenState::BeginTurn(int seat, bool follow_up) {
  phase_ = follow_up ? v1::PESTEN_PHASE_FOLLOW_UP : v1::PESTEN_PHASE_PLAY;
  current_ = seat;
  acting_.assign(1, seat);
  ComputeLegal();
}

void PestenState::BeginPass(int next_seat) {
  phase_ = v1::PESTEN_PHASE_PASS;
  current_ = -1;
  pass_next_ = next_seat;
  legal_.clear();
  acting_.clear();
  for (int s = 0; s < num_seats_; ++s) {
    if (hands_[s] != 0) acting_.push_back(s);
  }
  if (acting_.empty()) BeginTurn(next_seat, false);  // cannot happen in play
}

void PestenState::Effect(int seat, int card) {
  switch (RankOf(card)) {
    case kTwo:
      obligation_ += kTwoDraw;
      BeginTurn(Next(seat), false);
      return;
    case kJoker:
      obligation_ += kJokerDraw;
      BeginTurn(Next(seat), false);
      return;
    case kEight: {
      const int skipped = Next(seat);
      LoggedEvent& e = Log(true, 0);
      e.event.mutable_pesten()->mutable_skipped()->set_seat(skipped);
      BeginTurn(Next(skipped), false);
      return;
    }
    case kSeven:
    case kKing:
      BeginTurn(seat, true);
      return;
    case kTen:
      BeginPass(Next(seat));
      return;
    case kAce:
      direction_ = -direction_;
      BeginTurn(Next(seat), false);
      return;
    default:  // Jack (the wish is set by the play), plain cards
      BeginTurn(Next(seat), false);
      return;
  }
}

bool PestenState::Reshuffle() {
  const int size = static_cast<int>(pile_.size());
  if (size <= 1) return false;
  deck_.assign(pile_.begin(), pile_.end() - 1);  // bottom first, then shuffled
  deck_pos_ = 0;
  pile_.erase(pile_.begin(), pile_.end() - 1);
  rng_.Shuffle(deck_);
  LoggedEvent& e = Log(false, 0);
  auto* full = e.event.mutable_pesten()->mutable_reshuffled();
  full->set_count(static_cast<int32_t>(deck_.size()));
  e.has_redacted = true;
  e.redacted = e.event;
  for (uint8_t c : deck_) full->add_deck(c);
  return true;
}

void PestenState::LogDrew(int seat, v1::PestenDrawReason reason) {
  LoggedEvent& e = Log(false, uint64_t{1} << seat);
  auto* full = e.event.mutable_pesten()->mutable_drew();
  full->set_seat(seat);
  full->set_count(static_cast<int32_t>(scratch_.size()));
  full->set_reason(reason);
  e.has_redacted = true;
  e.redacted = e.event;
  for (int c : scratch_) full->add_cards(c);
}

void PestenState::DrawCards(int seat, int count, v1::PestenDrawReason reason) {
  scratch_.clear();
  int drawn = 0;
  bool logged = false;
  while (drawn < count) {
    if (deck_pos_ == static_cast<int>(deck_.size())) {
      if (!scratch_.empty()) {
        LogDrew(seat, reason);
        logged = true;
        scratch_.clear();
      }
      if (!Reshuffle()) break;
    }
    const int c = deck_[deck_pos_++];
    hands_[seat] |= Bit(c);
    scratch_.push_back(c);
    ++drawn;
  }
  // An empty batch is logged only when nothing at all could be drawn.
  if (!scratch_.empty() || !logged) LogDrew(seat, reason);
  scratch_.clear();
}

void PestenState::WinRound(int seat) {
  ++points_[seat];
  round_winners_.push_back(seat);
  {
    LoggedEvent& e = Log(true, 0);
    auto* won = e.event.mutable_pesten()->mutable_round_won();
    won->set_round(round_);
    won->set_seat(seat);
    for (int s = 0; s < num_seats_; ++s) won->add_winning_points(points_[s]);
  }
  if (points_[seat] >= config_.winning_points) {
    winner_ = seat;
    terminal_ = true;
    phase_ = v1::PESTEN_PHASE_OVER;
    current_ = -1;
    acting_.clear();
    legal_.clear();
    return;
  }
  if (StopAtCap()) return;  // the point stands; no new deal
  ++round_;
  StartRound();
}

bool PestenState::StopAtCap() {
  if (!AtDecisionCap()) return false;
  current_ = -1;
  acting_.clear();
  legal_.clear();
  return true;
}

void PestenState::Apply(absl::Span<const int> actions) {
  if (terminal_ || actions.size() != acting_.size()) {
    EngineFatal("pesten",
                absl::StrCat("Apply: wrong number of actions at step ", step_));
  }
  for (size_t i = 0; i < actions.size(); ++i) {
    if (actions[i] < 0 || actions[i] >= NumLegalActions(acting_[i])) {
      EngineFatal("pesten",
                  absl::StrCat("Apply: illegal action ", actions[i],
                               " for seat ", acting_[i], " at step ", step_));
    }
  }
  ++step_;
  if (phase_ == v1::PESTEN_PHASE_PASS) {
    // Every choice first, then every card moves left at once.
    std::array<int, kMaxSeats> given;
    given.fill(-1);
    for (size_t i = 0; i < actions.size(); ++i) {
      given[acting_[i]] = LegalMove(acting_[i], actions[i]).card;
    }
    for (int s = 0; s < num_seats_; ++s) {
      if (given[s] >= 0) hands_[s] &= ~Bit(given[s]);
    }
    for (int s = 0; s < num_seats_; ++s) {
      if (given[s] < 0) continue;
      const int to = (s + 1) % num_seats_;
      hands_[to] |= Bit(given[s]);
      LoggedEvent& e = Log(false, (uint64_t{1} << s) | (uint64_t{1} << to));
      auto* passed = e.event.mutable_pesten()->mutable_card_passed();
      passed->set_from_seat(s);
      passed->set_to_seat(to);
      e.has_redacted = true;
      e.redacted = e.event;
      passed->set_card(given[s]);
    }
    if (StopAtCap()) return;
    BeginTurn(pass_next_, false);
    return;
  }
  const int seat = current_;
  const Move m = Decode(legal_[actions[0]]);
  switch (m.kind) {
    case v1::PESTEN_ACTION_KIND_WISH: {
      wish_ = m.wish;
      LoggedEvent& e = Log(true, 0);
      auto* wished = e.event.mutable_pesten()->mutable_wished();
      wished->set_seat(seat);
      wished->set_suit(static_cast<v1::PestenSuit>(m.wish));
      if (StopAtCap()) return;
      BeginTurn(Next(seat), false);
      return;
    }
    case v1::PESTEN_ACTION_KIND_DRAW:
      DrawCards(seat, 1, v1::PESTEN_DRAW_REASON_DRAW);
      if (StopAtCap()) return;
      BeginTurn(Next(seat), false);
      return;
    case v1::PESTEN_ACTION_KIND_TAKE_OBLIGATION: {
      const int sum = obligation_;
      obligation_ = 0;
      DrawCards(seat, sum, v1::PESTEN_DRAW_REASON_OBLIGATION);
      if (StopAtCap()) return;
      BeginTurn(Next(seat), false);
      return;
    }
    case v1::PESTEN_ACTION_KIND_PLAY:
      break;
    default:
      EngineFatal("pesten", "Apply: unknown action kind");
  }
  hands_[seat] &= ~Bit(m.card);
  pile_.push_back(static_cast<uint8_t>(m.card));
  wish_ = RankOf(m.card) == kJack ? m.wish : 0;
  const int left = Popcount(hands_[seat]);
  {
    LoggedEvent& e = Log(true, 0);
    auto* played = e.event.mutable_pesten()->mutable_played();
    played->set_seat(seat);
    played->set_card(m.card);
    if (m.wish != 0) played->set_wish(static_cast<v1::PestenSuit>(m.wish));
    played->set_announced(m.announce && left == 1);
  }
  if (left == 0) {  // a legal last card is plain: no effect
    WinRound(seat);
    return;
  }
  if (left == 1 && !m.announce) {
    DrawCards(seat, kAnnouncementPenalty,
              v1::PESTEN_DRAW_REASON_MISSED_ANNOUNCEMENT);
  }
  // At the cap the card's effect on the next turn (an obligation, a skip, a
  // reversal, another turn, the pass) never comes into play.
  if (StopAtCap()) return;
  Effect(seat, m.card);
}

// ---------------------------------------------------------------------------
// State: what seats see

PestenState::Move PestenState::LegalMove(int seat, int action) const {
  if (phase_ == v1::PESTEN_PHASE_PASS) {
    uint64_t hand = hands_[seat];
    for (int i = 0; i < action && hand; ++i) hand &= hand - 1;
    Move m;
    m.kind = v1::PESTEN_ACTION_KIND_PASS_CARD;
    m.card = hand ? Lowest(hand) : -1;
    return m;
  }
  if (seat != current_ || action < 0 ||
      action >= static_cast<int>(legal_.size())) {
    return Move{};
  }
  return Decode(legal_[action]);
}

int PestenState::FindMove(int seat, const Move& m) const {
  const int n = NumLegalActions(seat);
  for (int a = 0; a < n; ++a) {
    const Move x = LegalMove(seat, a);
    if (x.kind == m.kind && x.card == m.card && x.wish == m.wish &&
        x.announce == m.announce) {
      return a;
    }
  }
  return -1;
}

int PestenState::NumLegalActions(int seat) const {
  if (terminal_ || seat < 0 || seat >= num_seats_) return 0;
  if (phase_ == v1::PESTEN_PHASE_PASS) {
    return std::find(acting_.begin(), acting_.end(), seat) != acting_.end()
               ? Popcount(hands_[seat])
               : 0;
  }
  return seat == current_ ? static_cast<int>(legal_.size()) : 0;
}

void PestenState::FillLegalActions(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>* out) const {
  out->Clear();
  const int n = NumLegalActions(seat);
  out->Reserve(n);
  for (int a = 0; a < n; ++a) {
    const Move m = LegalMove(seat, a);
    v1::PestenAction* p = out->Add()->mutable_pesten();
    p->set_kind(static_cast<v1::PestenActionKind>(m.kind));
    if (m.card >= 0) p->set_card(m.card);
    if (m.wish != 0) p->set_wish(static_cast<v1::PestenSuit>(m.wish));
    if (m.announce) p->set_announce(true);
  }
}

std::string PestenState::ActionLabel(int seat, int action) const {
  if (action < 0 || action >= NumLegalActions(seat)) {
    return absl::StrCat("illegal action ", action);
  }
  return MoveLabel(LegalMove(seat, action), obligation_);
}

std::string PestenState::ActionLabelFromRequest(int, const v1::View& view,
                                                const v1::Action& action) const {
  if (!action.has_pesten()) return "";
  const v1::PestenAction& a = action.pesten();
  Move m;
  m.kind = a.kind();
  m.card = a.card();
  m.wish = a.wish();
  m.announce = a.announce();
  if (m.kind == v1::PESTEN_ACTION_KIND_UNSPECIFIED) return "";
  return MoveLabel(m, view.pesten().draw_obligation());
}

std::string PestenState::MoveLabel(const Move& m, int obligation) {
  switch (m.kind) {
    case v1::PESTEN_ACTION_KIND_PLAY: {
      std::string label = absl::StrCat("play ", CardName(m.card));
      if (m.wish != 0) absl::StrAppend(&label, ", wish ", SuitName(m.wish));
      if (m.announce) absl::StrAppend(&label, ", \"Pesten!\"");
      return label;
    }
    case v1::PESTEN_ACTION_KIND_DRAW:
      return "draw a card";
    case v1::PESTEN_ACTION_KIND_TAKE_OBLIGATION:
      return absl::StrCat("take the obligation (", obligation, " cards)");
    case v1::PESTEN_ACTION_KIND_WISH:
      return absl::StrCat("wish ", SuitName(m.wish));
    case v1::PESTEN_ACTION_KIND_PASS_CARD:
      return absl::StrCat("pass ", CardName(m.card), " left");
    default:
      return "";
  }
}

std::string PestenState::DescribeEvent(const v1::Event& event) const {
  if (!event.has_pesten()) return "";
  const v1::PestenEvent& e = event.pesten();
  auto names = [](const google::protobuf::RepeatedField<int32_t>& ids) {
    std::string out;
    for (int id : ids) absl::StrAppend(&out, out.empty() ? "" : ", ", CardName(id));
    return out;
  };
  switch (e.kind_case()) {
    case v1::PestenEvent::kDeal: {
      std::string out = absl::StrCat("round ", e.deal().round(), ", dealer seat ",
                                     e.deal().dealer(), ", deal:");
      for (const auto& h : e.deal().hands()) {
        absl::StrAppend(&out, " seat ", h.seat(), " [", names(h.cards()), "]");
      }
      if (e.deal().deck_size() > 0) {
        absl::StrAppend(&out, " deck [", names(e.deal().deck()), "]");
      }
      return out;
    }
    case v1::PestenEvent::kStartCard: {
      std::string out = absl::StrCat("start card ", CardName(e.start_card().card()));
      if (e.start_card().deck_size() > 0) {
        absl::StrAppend(&out, "; deck [", names(e.start_card().deck()), "]");
      }
      return out;
    }
    case v1::PestenEvent::kPlayed: {
      std::string out = absl::StrCat("seat ", e.played().seat(), " played ",
                                     CardName(e.played().card()));
      if (e.played().wish() != 0) {
        absl::StrAppend(&out, ", wishing ", SuitName(e.played().wish()));
      }
      if (e.played().announced()) absl::StrAppend(&out, ": \"Pesten!\"");
      return out;
    }
    case v1::PestenEvent::kDrew: {
      const auto& d = e.drew();
      std::string out = absl::StrCat("seat ", d.seat(), " drew ", d.count(),
                                     d.count() == 1 ? " card" : " cards");
      if (d.cards_size() > 0) absl::StrAppend(&out, " [", names(d.cards()), "]");
      if (d.reason() == v1::PESTEN_DRAW_REASON_OBLIGATION) {
        absl::StrAppend(&out, " (the obligation)");
      } else if (d.reason() == v1::PESTEN_DRAW_REASON_MISSED_ANNOUNCEMENT) {
        absl::StrAppend(&out, " (penalty: no \"Pesten\")");
      }
      return out;
    }
    case v1::PestenEvent::kReshuffled: {
      std::string out = absl::StrCat("pile reshuffled into a deck of ",
                                     e.reshuffled().count());
      if (e.reshuffled().deck_size() > 0) {
        absl::StrAppend(&out, " [", names(e.reshuffled().deck()), "]");
      }
      return out;
    }
    case v1::PestenEvent::kWished:
      return absl::StrCat("seat ", e.wished().seat(), " wishes ",
                          SuitName(e.wished().suit()));
    case v1::PestenEvent::kSkipped:
      return absl::StrCat("seat ", e.skipped().seat(), " is skipped");
    case v1::PestenEvent::kCardPassed: {
      const auto& p = e.card_passed();
      return absl::StrCat("seat ", p.from_seat(), " passed ",
                          p.has_card() ? CardName(p.card()) : "a card",
                          " to seat ", p.to_seat());
    }
    case v1::PestenEvent::kRoundWon: {
      std::vector<int> pts(e.round_won().winning_points().begin(),
                           e.round_won().winning_points().end());
      return absl::StrCat("seat ", e.round_won().seat(), " won round ",
                          e.round_won().round(), "; winning points ",
                          absl::StrJoin(pts, ", "));
    }
    default:
      return "";
  }
}

void PestenState::FillView(int seat, v1::View* view) const {
  v1::PestenView* q = view->mutable_pesten();
  q->Clear();
  AddCards(hands_[seat], q->mutable_hand());
  q->set_top_card(pile_.back());
  q->set_wished_suit(static_cast<v1::PestenSuit>(wish_));
  q->set_draw_obligation(obligation_);
  q->set_direction(direction_ > 0 ? v1::PESTEN_DIRECTION_CLOCKWISE
                                  : v1::PESTEN_DIRECTION_COUNTERCLOCKWISE);
  auto* sizes = q->mutable_hand_sizes();
  auto* points = q->mutable_winning_points();
  sizes->Reserve(num_seats_);
  points->Reserve(num_seats_);
  for (int s = 0; s < num_seats_; ++s) {
    sizes->AddAlreadyReserved(Popcount(hands_[s]));
    points->AddAlreadyReserved(points_[s]);
  }
  q->set_current_seat(current_);
  q->set_phase(phase_);
  q->set_deck_size(deck_size());
  q->set_pile_size(static_cast<int32_t>(pile_.size()));
  q->set_round(round_);
  q->set_dealer(dealer());
}

void PestenState::FillRules(v1::Rules* rules) const {
  FillRulesFrom(config_, rules->mutable_pesten());
}

v1::MatchResult PestenState::Result() const {
  v1::MatchResult result;
  const int n = num_seats_;
  // Most winning points first, then fewest cards in hand.
  std::vector<int> placements(n, 1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const bool better =
          points_[j] > points_[i] ||
          (points_[j] == points_[i] && HandSize(j) < HandSize(i));
      if (better) ++placements[i];
    }
  }
  for (int s = 0; s < n; ++s) result.add_scores(points_[s]);
  for (int p : placements) result.add_placements(p);
  result.set_higher_score_wins(true);
  result.set_forfeit_seat(-1);
  result.set_decisions(step_);
  for (size_t r = 0; r < round_winners_.size(); ++r) {
    v1::ScoreLine* line = result.add_score_lines();
    line->set_seat(round_winners_[r]);
    line->set_item(absl::StrCat("round ", r, " won"));
    line->set_points(1);
  }
  std::vector<int> cards(n), pts(n);
  for (int s = 0; s < n; ++s) {
    cards[s] = HandSize(s);
    pts[s] = points_[s];
  }
  std::string why;
  if (winner_ >= 0) {
    why = absl::StrCat("seat ", winner_, " reached ", points_[winner_],
                       " winning points");
  } else {
    why = "unfinished; ranked by winning points, then fewest cards";
  }
  if (terminal_) result.set_end_reason(v1::END_REASON_NORMAL);
  absl::StrAppend(&why, "; winning points by seat: ", absl::StrJoin(pts, ", "),
                  "; cards in hand by seat: ", absl::StrJoin(cards, ", "));
  result.set_detail(why);
  return result;
}

// ---------------------------------------------------------------------------
// State: inspection

std::vector<int> PestenState::Hand(int seat) const {
  return CardsOf(hands_[seat]);
}

int PestenState::HandSize(int seat) const { return Popcount(hands_[seat]); }

std::vector<int> PestenState::Pile() const {
  return std::vector<int>(pile_.begin(), pile_.end());
}

std::vector<int> PestenState::Deck() const {
  return std::vector<int>(deck_.begin() + deck_pos_, deck_.end());
}

std::vector<v1::ReplayCard> PestenState::CardCatalogue() const {
  v1::Rules rules;
  FillRules(&rules);
  std::vector<v1::ReplayCard> out;
  for (const auto& c : rules.pesten().catalogue()) {
    v1::ReplayCard& rc = out.emplace_back();
    rc.set_id(c.id());
    rc.set_name(c.name());
    if (c.suit() != 0) {
      rc.add_suits(EnumWords(v1::PestenSuit_descriptor()->FindValueByNumber(c.suit())));
    }
    rc.set_rank(EnumWords(v1::PestenRank_descriptor()->FindValueByNumber(c.rank())));
    if (c.special()) rc.set_detail("special card");
  }
  return out;
}

}  // namespace pesten
}  // namespace arena
