#include "toy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/game_api/options.h"

namespace toy {

using arena::v1::Action;
using arena::v1::Event;

namespace {

std::string CardList(const google::protobuf::RepeatedField<int32_t>& cards) {
  std::vector<std::string> names;
  for (int c : cards) names.push_back(CardName(c));
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::string CardName(int card) { return absl::StrCat(card + 1); }

const arena::GameInfo& ToyInfo() {
  static const arena::GameInfo* info = [] {
    auto* i = new arena::GameInfo;
    i->name = "toy";
    i->min_seats = 2;
    i->max_seats = 3;
    i->default_seats = 2;
    i->default_decision_cap = 100;
    i->higher_score_wins = true;
    i->options = {{"hand_size", "2..4 (default 3): cards dealt to each seat"}};
    // Every round is a decision of all seats at once.
    i->simultaneous_steps = true;
    // toy.proto: its enums get words in replays and the HTML site.
    i->proto_files = {ToyView::descriptor()->file()};
    return i;
  }();
  return *info;
}

absl::StatusOr<std::unique_ptr<arena::Game>> CreateToy(const arena::Options& options,
                                                        int num_seats) {
  const arena::GameInfo& info = ToyInfo();
  if (absl::Status s = arena::CheckSeatCount(info, num_seats); !s.ok()) return s;
  arena::OptionReader reader(options, info);
  const int hand_size = reader.Int("hand_size", 3, 2, 4);
  if (absl::Status s = reader.Finish(); !s.ok()) return s;
  if (num_seats * hand_size > kDeckSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "toy: ", num_seats, " seats x ", hand_size, " cards = ", num_seats * hand_size,
        " cards, but the deck has ", kDeckSize, "; lower hand_size or the seats"));
  }
  return std::unique_ptr<arena::Game>(new ToyGame(num_seats, hand_size));
}

std::unique_ptr<arena::State> ToyGame::NewInitialState(uint64_t seed) const {
  return std::make_unique<ToyState>(*this, seed);
}

// ---------------------------------------------------------------------------

ToyState::ToyState(const ToyGame& game, uint64_t seed, std::vector<int> deck)
    : num_seats_(game.num_seats()),
      hand_size_(game.hand_size()),
      rng_(seed),
      hands_(num_seats_),
      scores_(num_seats_, 0) {
  if (deck.empty()) {
    for (int c = 0; c < kDeckSize; ++c) deck.push_back(c);
    rng_.Shuffle(deck);  // chance only from the seeded generator
  }
  for (int s = 0; s < num_seats_; ++s) {
    ToyEvent full, redacted;
    Dealt* d = full.mutable_dealt();
    d->set_seat(s);
    d->set_count(hand_size_);
    for (int k = 0; k < hand_size_; ++k) {
      const int card = deck[s * hand_size_ + k];
      d->add_cards(card);
      hands_[s].push_back(card);
    }
    std::sort(hands_[s].begin(), hands_[s].end());
    *redacted.mutable_dealt() = *d;
    redacted.mutable_dealt()->clear_cards();
    LogToy(full, /*is_public=*/false, uint64_t{1} << s, &redacted);
  }
  SetActing();
}

void ToyState::LogToy(const ToyEvent& e, bool is_public, uint64_t seats_mask,
                      const ToyEvent* redacted) {
  arena::LoggedEvent& logged = Log(is_public, seats_mask);
  logged.event.mutable_other()->PackFrom(e);
  if (redacted != nullptr) {
    logged.has_redacted = true;
    logged.redacted = logged.event;  // the same step
    logged.redacted.mutable_other()->PackFrom(*redacted);
  }
}

void ToyState::SetActing() {
  acting_.clear();
  if (IsTerminal() || AtDecisionCap()) return;
  for (int s = 0; s < num_seats_; ++s) acting_.push_back(s);  // all at once
}

int ToyState::NumLegalActions(int seat) const {
  return static_cast<int>(hands_[seat].size());
}

void ToyState::FillLegalActions(int seat,
                                google::protobuf::RepeatedPtrField<Action>* out) const {
  for (int card : hands_[seat]) {
    ToyAction a;
    a.set_card(card);
    out->Add()->mutable_other()->PackFrom(a);
  }
}

std::string ToyState::ActionLabel(int seat, int action) const {
  return absl::StrCat("play ", CardName(hands_[seat][action]));
}

std::string ToyState::ActionLabelFromRequest(int, const arena::v1::View&,
                                             const arena::v1::Action& action) const {
  ToyAction a;
  if (!action.other().UnpackTo(&a)) return "";
  return absl::StrCat("play ", CardName(a.card()));
}

void ToyState::FillView(int seat, arena::v1::View* view) const {
  ToyView v;
  v.set_round(round_);
  for (int c : hands_[seat]) v.add_hand(c);
  for (int c : played_) v.add_played_cards(c);
  for (int x : scores_) v.add_scores(x);
  v.set_phase(IsTerminal() ? v1::TOY_PHASE_FINISHED : v1::TOY_PHASE_PLAYING);
  view->mutable_other()->PackFrom(v);
}

void ToyState::Apply(absl::Span<const int> actions) {
  if (acting_.empty() || actions.size() != acting_.size()) {
    arena::EngineFatal("toy", absl::StrCat("Apply: ", actions.size(), " actions for ", acting_.size(),
                       " acting seats at step ", step_));
  }
  for (size_t i = 0; i < actions.size(); ++i) {
    if (actions[i] < 0 || actions[i] >= NumLegalActions(acting_[i])) {
      arena::EngineFatal("toy", absl::StrCat("Apply: illegal action ", actions[i], " at step ", step_));
    }
  }
  ++step_;
  ToyEvent revealed;
  revealed.mutable_revealed()->set_round(round_);
  int high = -1, winner = -1;
  for (size_t i = 0; i < actions.size(); ++i) {
    const int seat = acting_[i];
    const int card = hands_[seat][actions[i]];
    hands_[seat].erase(hands_[seat].begin() + actions[i]);
    played_.push_back(card);
    revealed.mutable_revealed()->add_played_cards(card);
    if (card > high) {  // cards are all different: no ties
      high = card;
      winner = seat;
    }
  }
  LogToy(revealed, /*is_public=*/true, 0);
  ++scores_[winner];
  ToyEvent won;
  won.mutable_round_won()->set_round(round_);
  won.mutable_round_won()->set_winner(winner);
  won.mutable_round_won()->set_high_card(high);
  LogToy(won, /*is_public=*/true, 0);
  ++round_;
  SetActing();  // nobody acts once the game is over or at the decision cap
}

arena::v1::MatchResult ToyState::Result() const {
  arena::v1::MatchResult result;
  std::vector<double> scores(scores_.begin(), scores_.end());
  for (double x : scores) result.add_scores(x);
  for (int p : arena::PlacementsFromScores(scores, true)) result.add_placements(p);
  result.set_higher_score_wins(true);
  result.set_forfeit_seat(-1);
  result.set_decisions(step_);
  if (IsTerminal()) result.set_end_reason(arena::v1::END_REASON_NORMAL);
  result.set_detail(absl::StrCat(IsTerminal() ? "" : "unfinished; ", "rounds won by seat: ",
                                 absl::StrJoin(scores_, ", ")));
  return result;
}

void ToyState::FillRules(arena::v1::Rules* rules) const {
  ToyRules r;
  r.set_deck_size(kDeckSize);
  r.set_hand_size(hand_size_);
  rules->mutable_other()->PackFrom(r);
}

std::string ToyState::DescribeEvent(const Event& event) const {
  ToyEvent e;
  if (!event.has_other() || !event.other().UnpackTo(&e)) return "";
  switch (e.kind_case()) {
    case ToyEvent::kDealt:
      return absl::StrCat("seat ", e.dealt().seat(), " is dealt ", e.dealt().count(), " cards",
                          e.dealt().cards().empty() ? "" : ": ", CardList(e.dealt().cards()));
    case ToyEvent::kRevealed:
      return absl::StrCat("round ", e.revealed().round() + 1,
                          ": cards played, by seat: ", CardList(e.revealed().played_cards()));
    case ToyEvent::kRoundWon:
      return absl::StrCat("round ", e.round_won().round() + 1, ": seat ", e.round_won().winner(),
                          " takes it with ", CardName(e.round_won().high_card()));
    default:
      return "";
  }
}

std::vector<arena::v1::ReplayCard> ToyState::CardCatalogue() const {
  std::vector<arena::v1::ReplayCard> out;
  for (int c = 0; c < kDeckSize; ++c) {
    arena::v1::ReplayCard& rc = out.emplace_back();
    rc.set_id(c);
    rc.set_name(CardName(c));
    rc.set_rank(CardName(c));
  }
  return out;
}

}  // namespace toy
