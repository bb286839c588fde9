#include "referee/games/quodlibet/quodlibet.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/game_api/card_checks.h"
#include "referee/game_api/card_set.h"
#include "referee/game_api/options.h"

namespace arena {
namespace quodlibet {
namespace {

using v1::QuodlibetEvent;

constexpr int kMinus = v1::QUODLIBET_CONTRACT_MINUS;
constexpr int kAlarich = v1::QUODLIBET_CONTRACT_ALARICH;
constexpr int kNoReds = v1::QUODLIBET_CONTRACT_NO_REDS;
constexpr int kFirstThreeAndLast = v1::QUODLIBET_CONTRACT_FIRST_THREE_AND_LAST;
constexpr int kOberUnter = v1::QUODLIBET_CONTRACT_OBER_UNTER;
constexpr int kPlus = v1::QUODLIBET_CONTRACT_PLUS;
constexpr int kAllOrNothing = v1::QUODLIBET_CONTRACT_ALL_OR_NOTHING;
constexpr int kBribe = v1::QUODLIBET_CONTRACT_BRIBE;
constexpr int kGoodHunting = v1::QUODLIBET_CONTRACT_GOOD_HUNTING;
constexpr int kBadNeighbour = v1::QUODLIBET_CONTRACT_BAD_NEIGHBOUR;
constexpr int kOpenTrousers = v1::QUODLIBET_CONTRACT_OPEN_TROUSERS;
constexpr int kQuadrature = v1::QUODLIBET_CONTRACT_QUADRATURE;
constexpr int kSnack = v1::QUODLIBET_CONTRACT_SNACK;

constexpr int kSnackHand = 4;
constexpr int kPacketCards = 16;  // five packets of 3 and a single card
constexpr uint32_t kUnterMask = (1u << CardId(0, kUnter)) |
                                (1u << CardId(1, kUnter)) |
                                (1u << CardId(2, kUnter)) |
                                (1u << CardId(3, kUnter));
constexpr uint32_t kAllSeats = (1u << kNumSeats) - 1;

inline uint32_t Bit(int card) { return uint32_t{1} << card; }
inline uint32_t SuitMask(int suit) { return uint32_t{0xff} << (8 * suit); }

const char* const kSuitNames[4] = {"Hearts", "Bells", "Leaves", "Acorns"};
const char* const kRankNames[8] = {"7",     "8",    "9",    "10",
                                   "Unter", "Ober", "King", "Ace"};

bool IsTrickContract(int c) { return c != kQuadrature && c != kSnack; }

}  // namespace

std::string CardName(int card) {
  if (card < 0 || card >= kNumCards) return absl::StrCat("card ", card);
  return absl::StrCat(kSuitNames[SuitOf(card)], " ", kRankNames[RankOf(card)]);
}

const std::vector<Contract>& ContractsOf(Ruleset ruleset) {
  static const auto* badenia = new std::vector<Contract>{
      v1::QUODLIBET_CONTRACT_MINUS,
      v1::QUODLIBET_CONTRACT_ALARICH,
      v1::QUODLIBET_CONTRACT_NO_REDS,
      v1::QUODLIBET_CONTRACT_FIRST_THREE_AND_LAST,
      v1::QUODLIBET_CONTRACT_OBER_UNTER,
      v1::QUODLIBET_CONTRACT_PLUS,
      v1::QUODLIBET_CONTRACT_ALL_OR_NOTHING,
      v1::QUODLIBET_CONTRACT_GOOD_HUNTING,
      v1::QUODLIBET_CONTRACT_BAD_NEIGHBOUR,
      v1::QUODLIBET_CONTRACT_OPEN_TROUSERS,
      v1::QUODLIBET_CONTRACT_QUADRATURE,
      v1::QUODLIBET_CONTRACT_SNACK};
  // Wheel by wheel.
  static const auto* encyclopedia = new std::vector<Contract>{
      v1::QUODLIBET_CONTRACT_PLUS,
      v1::QUODLIBET_CONTRACT_MINUS,
      v1::QUODLIBET_CONTRACT_BAD_NEIGHBOUR,
      v1::QUODLIBET_CONTRACT_ALARICH,
      v1::QUODLIBET_CONTRACT_FIRST_THREE_AND_LAST,
      v1::QUODLIBET_CONTRACT_NO_REDS,
      v1::QUODLIBET_CONTRACT_OBER_UNTER,
      v1::QUODLIBET_CONTRACT_BRIBE,
      v1::QUODLIBET_CONTRACT_OPEN_TROUSERS,
      v1::QUODLIBET_CONTRACT_GOOD_HUNTING,
      v1::QUODLIBET_CONTRACT_QUADRATURE,
      v1::QUODLIBET_CONTRACT_SNACK};
  return ruleset == v1::QUODLIBET_RULESET_ENCYCLOPEDIA ? *encyclopedia
                                                       : *badenia;
}

int WheelOf(Contract contract) {
  switch (static_cast<int>(contract)) {
    case kPlus:
    case kMinus:
    case kBadNeighbour:
    case kAlarich:
      return 1;
    case kFirstThreeAndLast:
    case kNoReds:
    case kOberUnter:
    case kBribe:
      return 2;
    case kOpenTrousers:
    case kGoodHunting:
    case kQuadrature:
    case kSnack:
      return 3;
    default:
      return 0;
  }
}

std::string ContractOptionName(Contract contract) {
  switch (static_cast<int>(contract)) {
    case kMinus: return "minus";
    case kAlarich: return "alarich";
    case kNoReds: return "no_reds";
    case kFirstThreeAndLast: return "first_three_and_last";
    case kOberUnter: return "ober_unter";
    case kPlus: return "plus";
    case kAllOrNothing: return "all_or_nothing";
    case kBribe: return "bribe";
    case kGoodHunting: return "good_hunting";
    case kBadNeighbour: return "bad_neighbour";
    case kOpenTrousers: return "open_trousers";
    case kQuadrature: return "quadrature";
    case kSnack: return "snack";
    default: return "none";
  }
}

std::string ContractDisplayName(Contract contract) {
  switch (static_cast<int>(contract)) {
    case kMinus: return "Minus";
    case kAlarich: return "Alarich";
    case kNoReds: return "No Reds";
    case kFirstThreeAndLast: return "First-Three-and-Last";
    case kOberUnter: return "Ober/Unter";
    case kPlus: return "Plus";
    case kAllOrNothing: return "All-or-Nothing";
    case kBribe: return "Bribe";
    case kGoodHunting: return "Good Hunting";
    case kBadNeighbour: return "Bad Neighbour";
    case kOpenTrousers: return "Open Trousers";
    case kQuadrature: return "Quadrature";
    case kSnack: return "Snack";
    default: return "?";
  }
}

// ---------------------------------------------------------------------------
// Game

const GameInfo& QuodlibetInfo() {
  static const GameInfo* info = [] {
    auto* i = new GameInfo;
    i->name = "quodlibet";
    i->min_seats = kNumSeats;
    i->max_seats = kNumSeats;
    i->default_seats = kNumSeats;
    // A whole partie is 48 deals of at most about 60 decisions each.
    i->default_decision_cap = 20000;
    i->higher_score_wins = false;
    i->options = {
        {"ruleset",
         "badenia|encyclopedia (default badenia): which twelve contracts and "
         "scoring"},
        {"kingdoms", "1..4 (default 4): kingdoms of 12 deals; seat k is beer "
                     "king of kingdom k"},
        {"contract",
         "a contract name (e.g. minus, snack): every kingdom is one deal of "
         "it, nobody chooses"},
    };
    i->proto_files = {v1::QuodlibetView::descriptor()->file()};
    return i;
  }();
  return *info;
}

absl::StatusOr<std::unique_ptr<QuodlibetGame>> QuodlibetGame::Create(
    const Options& options, int num_seats) {
  const GameInfo& info = QuodlibetInfo();
  if (absl::Status s = CheckSeatCount(info, num_seats); !s.ok()) return s;
  OptionReader reader(options, info);
  QuodlibetConfig config;
  const std::string ruleset =
      reader.Choice("ruleset", "badenia", {"badenia", "encyclopedia"});
  config.ruleset = ruleset == "encyclopedia"
                       ? v1::QUODLIBET_RULESET_ENCYCLOPEDIA
                       : v1::QUODLIBET_RULESET_BADENIA;
  config.kingdoms = reader.Int("kingdoms", 4, 1, 4);
  const std::string contract = reader.String("contract", "");
  if (absl::Status s = reader.Finish(); !s.ok()) return s;
  if (!contract.empty()) {
    std::vector<std::string> names;
    for (Contract c : ContractsOf(config.ruleset)) {
      names.push_back(ContractOptionName(c));
      if (ContractOptionName(c) == contract) config.fixed_contract = c;
    }
    if (config.fixed_contract == v1::QUODLIBET_CONTRACT_UNSPECIFIED) {
      return absl::InvalidArgumentError(absl::StrCat(
          "quodlibet: option contract=", contract,
          " is not a contract of ruleset ", ruleset, " (one of ",
          absl::StrJoin(names, ", "), ")"));
    }
  }
  return std::unique_ptr<QuodlibetGame>(new QuodlibetGame(config));
}

absl::StatusOr<std::unique_ptr<Game>> CreateQuodlibet(const Options& options,
                                                      int num_seats) {
  auto game = QuodlibetGame::Create(options, num_seats);
  if (!game.ok()) return game.status();
  return std::unique_ptr<Game>(std::move(*game));
}

namespace {
void FillRulesFrom(const QuodlibetConfig& config, v1::QuodlibetRules* rules) {
  rules->Clear();
  for (int c = 0; c < kNumCards; ++c) {
    v1::QuodlibetCard* card = rules->add_cards();
    card->set_id(c);
    card->set_name(CardName(c));
    card->set_suit(static_cast<v1::QuodlibetSuit>(SuitOf(c) + 1));
    card->set_rank(static_cast<v1::QuodlibetRank>(RankOf(c) + 1));
  }
  rules->set_ruleset(config.ruleset);
  rules->set_kingdoms(config.kingdoms);
  rules->set_deals_per_kingdom(config.deals_per_kingdom());
  rules->set_fixed_contract(config.fixed_contract);
  for (Contract c : ContractsOf(config.ruleset)) rules->add_contracts(c);
  if (config.ruleset == v1::QUODLIBET_RULESET_ENCYCLOPEDIA) {
    for (int w = 1; w <= 3; ++w) {
      v1::QuodlibetWheel* wheel = rules->add_wheels();
      for (Contract c : ContractsOf(config.ruleset)) {
        if (WheelOf(c) == w) wheel->add_contracts(c);
      }
    }
  }
}
}  // namespace

void QuodlibetGame::FillRules(v1::QuodlibetRules* rules) const {
  FillRulesFrom(config_, rules);
}

std::unique_ptr<State> QuodlibetGame::NewInitialState(uint64_t seed) const {
  std::unique_ptr<QuodlibetState> state(new QuodlibetState(*this, seed));
  state->StartDeal();
  return state;
}

// ---------------------------------------------------------------------------
// State: the partie

QuodlibetState::QuodlibetState(const QuodlibetGame& game, uint64_t seed)
    : config_(game.config()), rng_(seed) {
  acting_.reserve(1);
  legal_.reserve(kNumCards + 2);
  played_order_.reserve(kNumCards);
  tricks_.reserve(8);
  packets_.reserve(kPacketCards);
  history_.reserve(config_.kingdoms * config_.deals_per_kingdom());
  for (auto& s : slots_) s.reserve(8);
}

absl::StatusOr<std::unique_ptr<QuodlibetState>>
QuodlibetState::FromDeckOrdersForTest(
    const QuodlibetGame& game, const std::vector<std::vector<int>>& decks,
    uint64_t seed) {
  for (const auto& deck : decks) {
    if (absl::Status s = CheckDeckOrder(deck, kNumCards).status(); !s.ok()) {
      return s;
    }
  }
  std::unique_ptr<QuodlibetState> state(new QuodlibetState(game, seed));
  state->test_decks_ = decks;
  state->StartDeal();
  return state;
}

uint32_t QuodlibetState::ContractsLeftMask() const {
  const uint32_t played = played_contracts_[kingdom_];
  uint32_t mask = 0;
  const bool encyclopedia =
      config_.ruleset == v1::QUODLIBET_RULESET_ENCYCLOPEDIA;
  const int wheel = deal_ / 4 + 1;
  for (Contract c : ContractsOf(config_.ruleset)) {
    if (c == kSnack || (played & Bit(c))) continue;
    if (encyclopedia && WheelOf(c) != wheel) continue;
    mask |= Bit(c);
  }
  if (mask == 0) mask = Bit(kSnack);  // Snack is always the last
  return mask;
}

void QuodlibetState::StartDeal() {
  ++deal_serial_;
  contract_ = 0;
  dealt_ = false;
  hands_ = {};
  for (auto& s : slots_) s.clear();
  played_ = 0;
  played_order_.clear();
  leader_ = kingdom_;
  trick_number_ = 1;
  trick_size_ = 0;
  tricks_taken_ = {};
  tricks_.clear();
  censuses_ = 0;
  census_pen_ = {};
  packets_.clear();
  packet_pos_ = 0;
  row_low_.fill(-1);
  row_high_.fill(-1);
  laid_this_turn_ = false;
  turn_fresh_ = false;
  passes_in_row_ = 0;
  hand_known_ = {};
  {
    LoggedEvent& e = Log(true, 0);
    auto* d = e.event.mutable_quodlibet()->mutable_deal_started();
    d->set_kingdom(kingdom_);
    d->set_deal(deal_);
    d->set_beer_king(kingdom_);
  }
  if (config_.fixed_contract != v1::QUODLIBET_CONTRACT_UNSPECIFIED) {
    ChooseContract(config_.fixed_contract, true);
    return;
  }
  const uint32_t left = ContractsLeftMask();
  if (Popcount(left) == 1) {
    ChooseContract(Lowest(left), true);
    return;
  }
  const bool before_deal =
      config_.ruleset == v1::QUODLIBET_RULESET_ENCYCLOPEDIA && deal_ >= 8;
  if (!before_deal) {
    // The beer king deals and looks at his hand before he chooses.
    DealCards();
    const int king = kingdom_;
    LoggedEvent& e = Log(false, Bit(king));
    auto* h = e.event.mutable_quodlibet()->mutable_hand_shown();
    h->set_seat(king);
    h->set_count(Popcount(hands_[king]));
    AddCards(hands_[king], h->mutable_cards());
    hand_known_[king] = true;
  }
  SetChoice();
}

void QuodlibetState::SetChoice() {
  phase_ = kPhaseChoose;
  legal_.clear();
  for (uint32_t m = ContractsLeftMask(); m; m &= m - 1) {
    legal_.push_back(static_cast<int16_t>(kActContract + Lowest(m)));
  }
  SetActing(kingdom_);
}

void QuodlibetState::ChooseContract(int contract, bool forced) {
  contract_ = contract;
  played_contracts_[kingdom_] |= Bit(contract);
  {
    LoggedEvent& e = Log(true, 0);
    auto* c = e.event.mutable_quodlibet()->mutable_contract_chosen();
    c->set_beer_king(kingdom_);
    c->set_contract(static_cast<Contract>(contract));
    c->set_forced(forced);
    c->set_before_deal(!dealt_);
  }
  if (StopAtCap()) return;  // the choice stands; play never starts
  if (!dealt_) DealCards();
  ShowHands();
  BeginPlay();
}

void QuodlibetState::DealCards() {
  std::vector<int> order;
  const size_t index =
      static_cast<size_t>(kingdom_ * config_.deals_per_kingdom() + deal_);
  if (index < test_decks_.size()) {
    order = test_decks_[index];
  } else {
    order.resize(kNumCards);
    for (int c = 0; c < kNumCards; ++c) order[c] = c;
    rng_.Shuffle(order);
  }
  // The contract is known here whenever it changes the deal (Snack is never
  // chosen after the deal: it is always forced, before it).
  const int per_hand = contract_ == kSnack ? kSnackHand : 8;
  for (int s = 0; s < kNumSeats; ++s) {
    for (int i = 0; i < per_hand; ++i) hands_[s] |= Bit(order[s * per_hand + i]);
  }
  packets_.clear();
  for (int i = kNumSeats * per_hand; i < kNumCards; ++i) {
    packets_.push_back(static_cast<uint8_t>(order[i]));
  }
  packet_pos_ = 0;
  dealt_ = true;
  LoggedEvent& e = Log(false, 0);  // the record only
  auto* d = e.event.mutable_quodlibet()->mutable_dealt();
  for (int s = 0; s < kNumSeats; ++s) {
    auto* h = d->add_hands();
    h->set_seat(s);
    h->set_count(Popcount(hands_[s]));
    AddCards(hands_[s], h->mutable_cards());
  }
  for (uint8_t c : packets_) d->add_packet_cards(c);
}

void QuodlibetState::ShowHands() {
  for (int s = 0; s < kNumSeats; ++s) {
    const int count = Popcount(hands_[s]);
    if (contract_ == kGoodHunting) {
      LoggedEvent& e = Log(true, 0);
      auto* h = e.event.mutable_quodlibet()->mutable_hand_shown();
      h->set_seat(s);
      h->set_count(count);
      AddCards(hands_[s], h->mutable_cards());
      hand_known_[s] = true;
    } else if (contract_ == kOpenTrousers) {
      slots_[s] = std::vector<uint8_t>();
      for (int c : CardsOf(hands_[s]))
        slots_[s].push_back(static_cast<uint8_t>(c));
      rng_.Shuffle(slots_[s]);
      LoggedEvent& e = Log(false, kAllSeats & ~Bit(s));
      auto* h = e.event.mutable_quodlibet()->mutable_hand_shown();
      h->set_seat(s);
      h->set_count(count);
      h->set_face_down(true);
      e.has_redacted = true;
      e.redacted = e.event;  // the owner: a count of face-down cards
      for (uint8_t c : slots_[s]) h->add_cards(c);
    } else {
      if (hand_known_[s]) continue;  // the beer king saw it before choosing
      LoggedEvent& e = Log(false, Bit(s));
      auto* h = e.event.mutable_quodlibet()->mutable_hand_shown();
      h->set_seat(s);
      h->set_count(count);
      e.has_redacted = true;
      e.redacted = e.event;  // the others: the count only
      AddCards(hands_[s], h->mutable_cards());
      hand_known_[s] = true;
    }
  }
}

void QuodlibetState::BeginPlay() {
  leader_ = kingdom_;
  if (contract_ == kQuadrature) {
    phase_ = kPhaseQuadrature;
    SetActing(kingdom_);
    SetQuadratureLegal();
  } else if (contract_ == kSnack) {
    phase_ = kPhaseSnack;
    current_ = kingdom_;
    turn_fresh_ = true;
    SnackRun();
  } else {
    phase_ = kPhaseTricks;
    SetActing(kingdom_);
    SetTrickLegal();
  }
}

void QuodlibetState::EndDeal() {
  std::array<int, kNumSeats> pen{};
  if (IsTrickContract(contract_)) {
    ScoreTricks(&pen);
  } else {
    pen = census_pen_;
  }
  for (int s = 0; s < kNumSeats; ++s) totals_[s] += pen[s];
  census_pen_ = {};  // now in the totals
  last_penalties_ = pen;
  history_.push_back({kingdom_, deal_, contract_, pen});
  {
    LoggedEvent& e = Log(true, 0);
    auto* d = e.event.mutable_quodlibet()->mutable_deal_scored();
    d->set_kingdom(kingdom_);
    d->set_deal(deal_);
    d->set_contract(static_cast<Contract>(contract_));
    for (int s = 0; s < kNumSeats; ++s) {
      d->add_penalties(pen[s]);
      d->add_totals(totals_[s]);
    }
  }
  ++deal_serial_;
  if (++deal_ == config_.deals_per_kingdom()) {
    deal_ = 0;
    if (++kingdom_ == config_.kingdoms) {
      phase_ = kPhaseOver;
      current_ = -1;
      acting_.clear();
      legal_.clear();
      return;
    }
  }
  if (StopAtCap()) return;  // no new deal
  StartDeal();
}

bool QuodlibetState::StopAtCap() {
  if (!AtDecisionCap()) return false;
  current_ = -1;
  acting_.clear();
  legal_.clear();
  return true;
}

// ---------------------------------------------------------------------------
// State: trick contracts

void QuodlibetState::SetTrickLegal() {
  legal_.clear();
  const int seat = current_;
  if (contract_ == kOpenTrousers) {
    for (size_t i = 0; i < slots_[seat].size(); ++i) {
      legal_.push_back(static_cast<int16_t>(kActSlot + i));
    }
    return;
  }
  uint32_t mask = hands_[seat];
  if (trick_size_ > 0) {
    const uint32_t follow = mask & SuitMask(SuitOf(trick_cards_[0]));
    if (follow) mask = follow;
  }
  for (; mask; mask &= mask - 1) {
    legal_.push_back(static_cast<int16_t>(kActCard + Lowest(mask)));
  }
}

void QuodlibetState::PlayToTrick(int seat, int card, int slot) {
  hands_[seat] &= ~Bit(card);
  if (slot >= 0) slots_[seat].erase(slots_[seat].begin() + slot);
  played_ |= Bit(card);
  played_order_.push_back(static_cast<uint8_t>(card));
  {
    LoggedEvent& e = Log(true, 0);
    auto* p = e.event.mutable_quodlibet()->mutable_played();
    p->set_seat(seat);
    p->set_card(card);
    p->set_slot(slot);
  }
  trick_cards_[trick_size_++] = static_cast<uint8_t>(card);
  if (trick_size_ < kNumSeats) {
    if (StopAtCap()) return;
    SetActing(NextSeat(seat));
    SetTrickLegal();
    return;
  }
  const int suit = SuitOf(trick_cards_[0]);
  int best = 0;
  for (int i = 1; i < kNumSeats; ++i) {
    if (SuitOf(trick_cards_[i]) == suit &&
        RankOf(trick_cards_[i]) > RankOf(trick_cards_[best])) {
      best = i;
    }
  }
  const int winner = (leader_ + best) & 3;
  {
    LoggedEvent& e = Log(true, 0);
    auto* t = e.event.mutable_quodlibet()->mutable_trick_taken();
    t->set_trick_number(trick_number_);
    t->set_winner(winner);
    for (uint8_t c : trick_cards_) t->add_cards(c);
  }
  tricks_.push_back({trick_cards_, leader_, winner});
  ++tricks_taken_[winner];
  trick_size_ = 0;
  ++trick_number_;
  leader_ = winner;
  if (tricks_.size() == 8) {
    EndDeal();
    return;
  }
  // At the cap the trick is taken but trick points of an unfinished deal
  // are not scored.
  if (StopAtCap()) return;
  SetActing(winner);
  SetTrickLegal();
}

void QuodlibetState::ScoreTricks(std::array<int, kNumSeats>* pen) const {
  const bool encyclopedia =
      config_.ruleset == v1::QUODLIBET_RULESET_ENCYCLOPEDIA;
  auto minus = [&] {
    for (int s = 0; s < kNumSeats; ++s) {
      (*pen)[s] += tricks_taken_[s] == 8 ? 100 : 10 * tricks_taken_[s];
    }
  };
  auto alarich = [&] {
    const int king = CardId(kHearts, kKing), ober = CardId(kBells, kOber);
    for (const TrickDone& t : tricks_) {
      bool has_king = false, has_ober = false;
      for (uint8_t c : t.cards) {
        has_king |= c == king;
        has_ober |= c == ober;
      }
      if (has_king && has_ober) {
        (*pen)[t.winner] += 100;
      } else {
        (*pen)[t.winner] += (has_king ? 50 : 0) + (has_ober ? 30 : 0);
      }
    }
  };
  auto no_reds = [&](bool all_eight_flat) {
    std::array<int, kNumSeats> hearts{}, cost{};
    for (const TrickDone& t : tricks_) {
      for (uint8_t c : t.cards) {
        if (SuitOf(c) != kHearts) continue;
        ++hearts[t.winner];
        cost[t.winner] += RankOf(c) <= kTen ? 20 : 10;
      }
    }
    for (int s = 0; s < kNumSeats; ++s) {
      (*pen)[s] += all_eight_flat && hearts[s] == 8 ? 100 : cost[s];
    }
  };
  auto first_three_and_last = [&](int last) {
    static constexpr int kCost[8] = {10, 20, 30, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < tricks_.size(); ++i) {
      (*pen)[tricks_[i].winner] += i == 7 ? last : kCost[i];
    }
  };
  auto ober_unter = [&] {
    for (const TrickDone& t : tricks_) {
      int obers = 0, unters = 0;
      for (uint8_t c : t.cards) {
        obers += RankOf(c) == kOber;
        unters += RankOf(c) == kUnter;
      }
      (*pen)[t.winner] += obers && unters ? 100 : 30 * obers + 20 * unters;
    }
  };
  switch (contract_) {
    case kMinus:
    case kGoodHunting:
    case kOpenTrousers:
      minus();
      break;
    case kAlarich:
      alarich();
      break;
    case kNoReds:
      no_reds(encyclopedia);
      break;
    case kFirstThreeAndLast:
      first_three_and_last(encyclopedia ? 50 : 80);
      break;
    case kOberUnter:
      ober_unter();
      break;
    case kPlus:
      for (int s = 0; s < kNumSeats; ++s) {
        (*pen)[s] += tricks_taken_[s] == 0 ? 100 : 10 * (8 - tricks_taken_[s]);
      }
      break;
    case kAllOrNothing:
      minus();
      alarich();
      no_reds(encyclopedia);
      first_three_and_last(encyclopedia ? 50 : 80);
      ober_unter();
      break;
    case kBribe:
      for (const TrickDone& t : tricks_) {
        int low = 0;
        for (int i = 1; i < kNumSeats; ++i) {
          if (RankOf(t.cards[i]) < RankOf(t.cards[low])) low = i;
        }
        const int low_seat = (t.leader + low) & 3;
        if (low_seat == t.winner) {
          (*pen)[t.winner] += 100;
        } else {
          (*pen)[t.winner] += 30;
          (*pen)[low_seat] += 20;
        }
      }
      break;
    case kBadNeighbour: {
      auto neighbour = [&](int s) { return encyclopedia ? (s + 1) & 3 : (s + 3) & 3; };
      for (int s = 0; s < kNumSeats; ++s) {
        (*pen)[neighbour(s)] +=
            tricks_taken_[s] == 8 ? 100 : 10 * tricks_taken_[s];
      }
      break;
    }
    default:
      EngineFatal("quodlibet",
                  absl::StrCat("no trick scoring for contract ", contract_));
  }
}

// ---------------------------------------------------------------------------
// State: censuses, Quadrature

bool QuodlibetState::Census(int went_out) {
  const int number = ++censuses_;
  std::array<int, kNumSeats> cost{};
  for (int s = 0; s < kNumSeats; ++s) {
    cost[s] = 10 * number * Popcount(hands_[s]);
  }
  int packet_cards = 0;
  if (number == 3 && contract_ == kSnack) {
    packet_cards = static_cast<int>(packets_.size()) - packet_pos_;
    for (int s = 0; s < kNumSeats; ++s) {
      if (hands_[s]) cost[s] += 30 * packet_cards;
    }
  }
  {
    LoggedEvent& e = Log(true, 0);
    auto* c = e.event.mutable_quodlibet()->mutable_census();
    c->set_number(number);
    c->set_went_out(went_out);
    for (int s = 0; s < kNumSeats; ++s) {
      c->add_costs(cost[s]);
      census_pen_[s] += cost[s];
    }
    c->set_packet_cards_charged(packet_cards);
  }
  if (number == 3) {
    EndDeal();
    return true;
  }
  return false;
}

void QuodlibetState::SetQuadratureLegal() {
  legal_.clear();
  for (uint32_t m = hands_[current_]; m; m &= m - 1) {
    legal_.push_back(static_cast<int16_t>(kActCard + Lowest(m)));
  }
}

void QuodlibetState::QuadratureLead(int card) {
  int seat = current_;
  int last = seat;
  int went_out = -1;
  int c = card;
  bool forced = false;
  for (int laid = 0;;) {
    hands_[seat] &= ~Bit(c);
    played_ |= Bit(c);
    played_order_.push_back(static_cast<uint8_t>(c));
    {
      LoggedEvent& e = Log(true, 0);
      auto* p = e.event.mutable_quodlibet()->mutable_played();
      p->set_seat(seat);
      p->set_card(c);
      p->set_slot(-1);
      p->set_forced(forced);
    }
    ++laid;
    last = seat;
    if (hands_[seat] == 0) {
      went_out = seat;
      if (Census(seat)) return;  // the third census ends the deal at once
    }
    if (laid == 4 || RankOf(c) == kAce) break;
    const int next = c + 1;
    seat = -1;
    for (int s = 0; s < kNumSeats; ++s) {
      if (hands_[s] & Bit(next)) seat = s;
    }
    if (seat < 0) break;  // already played
    c = next;
    forced = true;
  }
  if (StopAtCap()) return;  // the censuses paid stand
  int leader = last;
  if (went_out >= 0) {
    leader = NextSeat(went_out);
    while (hands_[leader] == 0) leader = NextSeat(leader);
  }
  SetActing(leader);
  SetQuadratureLegal();
}

// ---------------------------------------------------------------------------
// State: Snack

int QuodlibetState::packets_left() const {
  const int left = static_cast<int>(packets_.size()) - packet_pos_;
  return (left + 2) / 3;
}

uint32_t QuodlibetState::SnackLayable(int seat) const {
  uint32_t out = 0;
  for (int suit = 0; suit < 4; ++suit) {
    if (row_low_[suit] < 0) {
      out |= Bit(CardId(suit, kUnter));
      continue;
    }
    if (row_low_[suit] > 0) out |= Bit(CardId(suit, row_low_[suit] - 1));
    if (row_high_[suit] < kAce) out |= Bit(CardId(suit, row_high_[suit] + 1));
  }
  return out & hands_[seat];
}

bool QuodlibetState::SnackLay(int seat, int card, bool forced) {
  hands_[seat] &= ~Bit(card);
  played_ |= Bit(card);
  played_order_.push_back(static_cast<uint8_t>(card));
  const int suit = SuitOf(card), rank = RankOf(card);
  if (row_low_[suit] < 0) {
    row_low_[suit] = row_high_[suit] = static_cast<int8_t>(rank);
  } else if (rank < row_low_[suit]) {
    row_low_[suit] = static_cast<int8_t>(rank);
  } else {
    row_high_[suit] = static_cast<int8_t>(rank);
  }
  {
    LoggedEvent& e = Log(true, 0);
    auto* p = e.event.mutable_quodlibet()->mutable_played();
    p->set_seat(seat);
    p->set_card(card);
    p->set_slot(-1);
    p->set_forced(forced);
  }
  laid_this_turn_ = true;
  passes_in_row_ = 0;
  if (hands_[seat] != 0) return false;
  if (!Census(seat)) EndSnackTurn();
  return true;
}

void QuodlibetState::SnackPickUp(int seat, bool forced) {
  const int left = static_cast<int>(packets_.size()) - packet_pos_;
  const int count = std::min(3, left);
  LoggedEvent& e = Log(false, Bit(seat));
  auto* p = e.event.mutable_quodlibet()->mutable_picked_up();
  p->set_seat(seat);
  p->set_count(count);
  p->set_forced(forced);
  e.has_redacted = true;
  e.redacted = e.event;
  for (int i = 0; i < count; ++i) {
    const int c = packets_[packet_pos_++];
    hands_[seat] |= Bit(c);
    p->add_cards(c);
  }
  passes_in_row_ = 0;
}

void QuodlibetState::EndSnackTurn() {
  current_ = NextSeat(current_);
  turn_fresh_ = true;
}

void QuodlibetState::SnackRun() {
  const int serial = deal_serial_;
  for (;;) {
    if (deal_serial_ != serial || phase_ != kPhaseSnack) return;
    const int seat = current_;
    if (turn_fresh_) {
      if (hands_[seat] == 0) {  // out of cards: skipped
        current_ = NextSeat(seat);
        continue;
      }
      turn_fresh_ = false;
      laid_this_turn_ = false;
      // Every Unter held must be laid out this turn.
      bool out = false;
      for (uint32_t u = hands_[seat] & kUnterMask; u && !out; u &= u - 1) {
        out = SnackLay(seat, Lowest(u), true);
      }
      if (out) continue;
    }
    const uint32_t lay = SnackLayable(seat);
    const bool can_pick =
        !laid_this_turn_ && packet_pos_ < static_cast<int>(packets_.size());
    const bool can_end = laid_this_turn_;
    const int options = Popcount(lay) + can_pick + can_end;
    if (options == 0) {
      LoggedEvent& e = Log(true, 0);
      e.event.mutable_quodlibet()->mutable_passed()->set_seat(seat);
      if (++passes_in_row_ > 2 * kNumSeats) {
        EngineFatal("quodlibet",
                    "Snack: every seat passes (cannot happen by the rules)");
      }
      EndSnackTurn();
      continue;
    }
    if (options == 1) {
      if (lay) {
        SnackLay(seat, Lowest(lay), true);
      } else if (can_pick) {
        SnackPickUp(seat, true);
        EndSnackTurn();
      } else {
        EndSnackTurn();
      }
      continue;
    }
    legal_.clear();
    for (uint32_t m = lay; m; m &= m - 1) {
      legal_.push_back(static_cast<int16_t>(kActCard + Lowest(m)));
    }
    if (can_pick) legal_.push_back(kActPickUp);
    if (can_end) legal_.push_back(kActEndTurn);
    SetActing(seat);
    return;
  }
}

// ---------------------------------------------------------------------------
// State: decisions

void QuodlibetState::Apply(absl::Span<const int> actions) {
  if (phase_ == kPhaseOver || actions.size() != 1 || actions[0] < 0 ||
      actions[0] >= static_cast<int>(legal_.size())) {
    EngineFatal("quodlibet",
                absl::StrCat("Apply: illegal actions at step ", step_));
  }
  ++step_;
  const int a = legal_[actions[0]];
  const int seat = current_;
  switch (phase_) {
    case kPhaseChoose:
      ChooseContract(a - kActContract, false);
      break;
    case kPhaseTricks:
      if (a >= kActSlot) {
        const int slot = a - kActSlot;
        PlayToTrick(seat, slots_[seat][slot], slot);
      } else {
        PlayToTrick(seat, a - kActCard, -1);
      }
      break;
    case kPhaseQuadrature:
      QuadratureLead(a - kActCard);
      break;
    case kPhaseSnack:
      if (a == kActPickUp) {
        SnackPickUp(seat, false);
        EndSnackTurn();
      } else if (a == kActEndTurn) {
        EndSnackTurn();
      } else {
        SnackLay(seat, a - kActCard, false);
      }
      if (!StopAtCap()) SnackRun();
      break;
    case kPhaseOver:
      break;
  }
}

int QuodlibetState::NumLegalActions(int seat) const {
  return seat == current_ ? static_cast<int>(legal_.size()) : 0;
}

void QuodlibetState::FillLegalActions(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>* out) const {
  out->Clear();
  if (seat != current_) return;
  out->Reserve(static_cast<int>(legal_.size()));
  for (int16_t a : legal_) {
    v1::QuodlibetAction* q = out->Add()->mutable_quodlibet();
    if (a == kActPickUp) {
      q->set_pick_up(true);
    } else if (a == kActEndTurn) {
      q->set_end_turn(true);
    } else if (a >= kActContract) {
      q->set_contract(static_cast<Contract>(a - kActContract));
    } else if (a >= kActSlot) {
      q->set_slot(a - kActSlot);
    } else {
      q->set_card(a - kActCard);
    }
  }
}

std::string QuodlibetState::ActionLabel(int seat, int action) const {
  if (seat != current_ || action < 0 ||
      action >= static_cast<int>(legal_.size())) {
    return absl::StrCat("illegal action ", action);
  }
  return LegalLabel(legal_[action], phase_);
}

std::string QuodlibetState::ActionLabelFromRequest(int, const v1::View& view,
                                                   const v1::Action& action) const {
  const v1::QuodlibetAction& q = action.quodlibet();
  int phase = kPhaseTricks;
  if (view.quodlibet().phase() == v1::QUODLIBET_PHASE_QUADRATURE) phase = kPhaseQuadrature;
  if (view.quodlibet().phase() == v1::QUODLIBET_PHASE_SNACK) phase = kPhaseSnack;
  switch (q.kind_case()) {
    case v1::QuodlibetAction::kContract: return LegalLabel(kActContract + q.contract(), phase);
    case v1::QuodlibetAction::kCard:
      return q.card() >= 0 && q.card() < kNumCards ? LegalLabel(kActCard + q.card(), phase) : "";
    case v1::QuodlibetAction::kSlot:
      return q.slot() >= 0 && q.slot() < kNumCards ? LegalLabel(kActSlot + q.slot(), phase) : "";
    case v1::QuodlibetAction::kPickUp: return LegalLabel(kActPickUp, phase);
    case v1::QuodlibetAction::kEndTurn: return LegalLabel(kActEndTurn, phase);
    default: return "";
  }
}

std::string QuodlibetState::LegalLabel(int a, int phase) {
  if (a == kActPickUp) return "pick up a packet";
  if (a == kActEndTurn) return "end turn";
  if (a >= kActContract) {
    return absl::StrCat("choose ",
                        ContractDisplayName(static_cast<Contract>(a - kActContract)));
  }
  if (a >= kActSlot) return absl::StrCat("play slot ", a - kActSlot);
  switch (phase) {
    case kPhaseQuadrature: return absl::StrCat("lead ", CardName(a));
    case kPhaseSnack: return absl::StrCat("lay out ", CardName(a));
    default: return absl::StrCat("play ", CardName(a));
  }
}

void QuodlibetState::FillView(int seat, v1::View* view) const {
  v1::QuodlibetView* q = view->mutable_quodlibet();
  q->Clear();
  q->set_ruleset(config_.ruleset);
  q->set_kingdom(std::min(kingdom_, config_.kingdoms - 1));
  q->set_deal(deal_);
  q->set_beer_king(std::min(kingdom_, config_.kingdoms - 1));
  q->set_contract(static_cast<Contract>(contract_));
  static constexpr v1::QuodlibetPhase kPhases[] = {
      v1::QUODLIBET_PHASE_CHOOSE_CONTRACT, v1::QUODLIBET_PHASE_TRICKS,
      v1::QUODLIBET_PHASE_QUADRATURE, v1::QUODLIBET_PHASE_SNACK,
      v1::QUODLIBET_PHASE_OVER};
  q->set_phase(kPhases[phase_]);
  q->set_current_seat(current_);
  if (contract_ == kOpenTrousers) {
    q->set_hidden_slots(static_cast<int>(slots_[seat].size()));
    for (int s = 0; s < kNumSeats; ++s) {
      if (s == seat) continue;
      auto* h = q->add_open_hands();
      h->set_seat(s);
      h->set_count(static_cast<int>(slots_[s].size()));
      for (uint8_t c : slots_[s]) h->add_cards(c);
    }
  } else if (hand_known_[seat]) {
    AddCards(hands_[seat], q->mutable_hand());
    if (contract_ == kGoodHunting) {
      for (int s = 0; s < kNumSeats; ++s) {
        auto* h = q->add_open_hands();
        h->set_seat(s);
        h->set_count(Popcount(hands_[s]));
        AddCards(hands_[s], h->mutable_cards());
      }
    }
  }
  for (int s = 0; s < kNumSeats; ++s) {
    q->add_hand_sizes(dealt_ ? Popcount(hands_[s]) : 0);
    q->add_tricks_taken(tricks_taken_[s]);
    q->add_census_penalties(census_pen_[s]);
    q->add_totals(totals_[s]);
  }
  q->set_leader(leader_);
  for (int i = 0; i < trick_size_; ++i) {
    auto* t = q->add_trick();
    t->set_seat((leader_ + i) & 3);
    t->set_card(trick_cards_[i]);
  }
  q->set_trick_number(trick_number_);
  if (phase_ != kPhaseOver &&
      config_.fixed_contract == v1::QUODLIBET_CONTRACT_UNSPECIFIED) {
    const uint32_t played = played_contracts_[kingdom_];
    for (Contract c : ContractsOf(config_.ruleset)) {
      if (!(played & Bit(c))) q->add_contracts_left(c);
    }
  }
  for (uint8_t c : played_order_) q->add_played_cards(c);
  if (contract_ == kSnack) {
    for (int suit = 0; suit < 4; ++suit) {
      if (row_low_[suit] < 0) continue;
      auto* r = q->add_rows();
      r->set_suit(static_cast<v1::QuodlibetSuit>(suit + 1));
      r->set_low_card(CardId(suit, row_low_[suit]));
      r->set_high_card(CardId(suit, row_high_[suit]));
    }
    q->set_packets_left(packets_left());
    q->set_packet_cards_left(static_cast<int>(packets_.size()) - packet_pos_);
    q->set_laid_out_this_turn(laid_this_turn_);
  }
  q->set_censuses(censuses_);
  if (phase_ == kPhaseChoose) {
    for (int16_t a : legal_) {
      q->add_legal_contracts(static_cast<Contract>(a - kActContract));
    }
  }
}

void QuodlibetState::FillRules(v1::Rules* rules) const {
  FillRulesFrom(config_, rules->mutable_quodlibet());
}

v1::MatchResult QuodlibetState::Result() const {
  v1::MatchResult result;
  // Census penalties of an unfinished Quadrature or Snack deal are paid at
  // once ("sofort") and stand; trick points of an unfinished deal do not.
  std::array<int, kNumSeats> totals = totals_;
  bool census_paid = false;
  for (int s = 0; s < kNumSeats; ++s) {
    totals[s] += census_pen_[s];
    census_paid |= census_pen_[s] != 0;
  }
  std::vector<double> scores(totals.begin(), totals.end());
  for (double x : scores) result.add_scores(x);
  for (int p : PlacementsFromScores(scores, false)) result.add_placements(p);
  result.set_higher_score_wins(false);
  result.set_forfeit_seat(-1);
  result.set_decisions(step_);
  if (phase_ == kPhaseOver) result.set_end_reason(v1::END_REASON_NORMAL);
  for (const DealLine& d : history_) {
    for (int s = 0; s < kNumSeats; ++s) {
      v1::ScoreLine* line = result.add_score_lines();
      line->set_seat(s);
      line->set_item(absl::StrCat(
          "kingdom ", d.kingdom + 1, " deal ", d.deal + 1, ": ",
          ContractDisplayName(static_cast<Contract>(d.contract))));
      line->set_points(d.penalties[s]);
    }
  }
  if (census_paid) {
    for (int s = 0; s < kNumSeats; ++s) {
      v1::ScoreLine* line = result.add_score_lines();
      line->set_seat(s);
      line->set_item(absl::StrCat(
          "kingdom ", kingdom_ + 1, " deal ", deal_ + 1, ": ",
          ContractDisplayName(static_cast<Contract>(contract_)),
          " (unfinished): censuses paid"));
      line->set_points(census_pen_[s]);
    }
  }
  result.set_detail(absl::StrCat(
      phase_ == kPhaseOver ? "the partie is over after "
                      : "unfinished; ranked by the totals of the ",
      history_.size(), " deals played",
      census_paid ? " and the censuses paid in the unfinished deal" : "",
      "; lowest total wins; totals by seat: ", absl::StrJoin(totals, ", ")));
  return result;
}

std::vector<int> QuodlibetState::Hand(int seat) const {
  return CardsOf(hands_[seat]);
}

std::vector<int> QuodlibetState::Slots(int seat) const {
  return std::vector<int>(slots_[seat].begin(), slots_[seat].end());
}

std::vector<v1::ReplayCard> QuodlibetState::CardCatalogue() const {
  v1::Rules rules;
  FillRules(&rules);
  std::vector<v1::ReplayCard> out;
  for (const auto& c : rules.quodlibet().cards()) {
    v1::ReplayCard& rc = out.emplace_back();
    rc.set_id(c.id());
    rc.set_name(c.name());
    rc.add_suits(EnumWords(v1::QuodlibetSuit_descriptor()->FindValueByNumber(c.suit())));
    rc.set_rank(EnumWords(v1::QuodlibetRank_descriptor()->FindValueByNumber(c.rank())));
  }
  return out;
}

}  // namespace quodlibet
}  // namespace arena
