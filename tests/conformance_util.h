// Helpers of the conformance suite (tests/conformance_test.cc): the grid of
// games, options and seat counts derived from the registry, the game-agnostic
// no-leak checker, and test-only games that plant faults the suite must catch.
#ifndef ARENA_TESTS_CONFORMANCE_UTIL_H_
#define ARENA_TESTS_CONFORMANCE_UTIL_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <ostream>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "referee/game_api/game.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"
#include "referee/games/registry.h"
#include "tests/test_util.h"

namespace arena::conformance {

// ---------------------------------------------------------------------------
// The grid.

// What an option's one-line help (GameInfo::options) declares, in the form
// the games write it: "true/false (default false): ...", "1..20 (default
// 7): ...", "badenia|encyclopedia (default badenia): ...". Anything else
// (a path, a free name) declares no values: only its default is tried.
struct OptionDomain {
  std::string default_value;      // empty: not declared
  std::vector<std::string> values;  // declared values worth trying, default excluded
};

inline OptionDomain ParseOptionHelp(const std::string& help) {
  OptionDomain d;
  const size_t open = help.find("(default ");
  if (open != std::string::npos) {
    const size_t close = help.find(')', open);
    if (close != std::string::npos) {
      d.default_value = help.substr(open + 9, close - open - 9);
    }
  }
  // The domain is the first word, before " (default" or ":".
  std::string head = help.substr(0, std::min(help.find(' '), help.find(':')));
  std::vector<std::string> values;
  if (head == "true/false") {
    values = {"true", "false"};
  } else if (absl::StrContains(head, "..")) {
    std::vector<std::string> ends = absl::StrSplit(head, "..");
    int lo, hi;
    if (ends.size() == 2 && absl::SimpleAtoi(ends[0], &lo) &&
        absl::SimpleAtoi(ends[1], &hi) && lo <= hi) {
      values = {std::to_string(lo), std::to_string(hi)};  // both ends
    }
  } else if (absl::StrContains(head, "|")) {
    values = absl::StrSplit(head, '|');
  }
  if (d.default_value.empty()) return {};  // no default: cannot vary alone
  for (const std::string& v : values) {
    if (v != d.default_value &&
        std::find(d.values.begin(), d.values.end(), v) == d.values.end()) {
      d.values.push_back(v);
    }
  }
  return d;
}

struct GridPoint {
  std::string game;
  int seats = 2;
  Options options;    // only the varied option; the rest default
  std::string label;  // "defaults" or "<option>_<value>"
};

inline std::string ParamName(const GridPoint& p) {
  std::string name = absl::StrCat(p.game, "_", p.seats, "seats_", p.label);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

inline void PrintTo(const GridPoint& p, std::ostream* os) { *os << ParamName(p); }

// Every registered game: all defaults at its minimum, default and maximum
// seat counts; then each option with declared values, one at a time, at
// every value it declares other than its default (both ends of a range), at
// the default seat count. Points the game refuses (e.g. more cards dealt
// than the deck holds) are left out and listed in `refused`.
inline std::vector<GridPoint> MakeGrid(std::vector<std::string>* refused = nullptr) {
  std::vector<GridPoint> grid;
  for (const std::string& name : GameNames()) {
    const GameInfo* info = FindGameInfo(name);
    std::set<int> seats = {info->min_seats, info->default_seats, info->max_seats};
    std::vector<GridPoint> points;
    for (int s : seats) points.push_back({name, s, {}, "defaults"});
    for (const auto& [option, help] : info->options) {
      for (const std::string& v : ParseOptionHelp(help).values) {
        points.push_back({name, info->default_seats, {{option, v}},
                          absl::StrCat(option, "_", v)});
      }
    }
    for (GridPoint& p : points) {
      auto game = CreateGame(p.game, p.options, p.seats);
      if (game.ok()) {
        grid.push_back(std::move(p));
      } else if (refused != nullptr) {
        refused->push_back(absl::StrCat(ParamName(p), ": ", game.status().message()));
      }
    }
  }
  return grid;
}

// ---------------------------------------------------------------------------
// A game outside the bundled ones sends its messages packed in
// google.protobuf.Any (the `other` slots): the checks look inside.

// The message packed in `m` if `m` is an Any whose type this program knows
// (the game's, linked in through the registry); else nullptr.
inline std::unique_ptr<google::protobuf::Message> Unpacked(
    const google::protobuf::Message& m) {
  const auto* any = dynamic_cast<const google::protobuf::Any*>(&m);
  if (any == nullptr || any->type_url().empty()) return nullptr;
  const std::string& url = any->type_url();
  const auto* type = google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
      url.substr(url.rfind('/') + 1));
  if (type == nullptr) return nullptr;
  std::unique_ptr<google::protobuf::Message> inner(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
  if (!any->UnpackTo(inner.get())) return nullptr;
  return inner;
}

// ---------------------------------------------------------------------------
// Card values in messages.

// The fields that hold card ids, by the naming the games' protos share:
// card, cards, hand, deck, and any name ending in _card or _cards
// (top_card, played_cards, ...). Negative values mean "none".
inline bool IsCardField(const std::string& name) {
  return name == "card" || name == "cards" || name == "hand" || name == "deck" ||
         absl::EndsWith(name, "_card") || absl::EndsWith(name, "_cards");
}

// `with_zero`: also a singular proto3 card field holding 0, which cannot be
// told from "no card" (used for what a seat is shown, where counting too
// much only weakens the check; never for what is checked).
inline void CardValues(const google::protobuf::Message& m, std::vector<int>* out,
                       bool with_zero = false) {
  using google::protobuf::FieldDescriptor;
  if (auto inner = Unpacked(m)) {
    CardValues(*inner, out, with_zero);
    return;
  }
  const auto* refl = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int k = 0; k < refl->FieldSize(m, f); ++k) {
          CardValues(refl->GetRepeatedMessage(m, f, k), out, with_zero);
        }
      } else {
        CardValues(refl->GetMessage(m, f), out, with_zero);
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 && IsCardField(f->name())) {
      if (f->is_repeated()) {
        for (int k = 0; k < refl->FieldSize(m, f); ++k) {
          const int v = refl->GetRepeatedInt32(m, f, k);
          if (v >= 0) out->push_back(v);
        }
      } else {
        const int v = refl->GetInt32(m, f);
        if (v >= 0) out->push_back(v);
      }
    }
  }
  if (!with_zero) return;
  const auto* desc = m.GetDescriptor();
  for (int i = 0; i < desc->field_count(); ++i) {
    const FieldDescriptor* f = desc->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 && !f->is_repeated() &&
        IsCardField(f->name()) && !refl->HasField(m, f)) {
      out->push_back(0);
    }
  }
}

// ---------------------------------------------------------------------------
// Re-playing a record's actions on a game, keeping every logged event (with
// its visibility and redacted version, which the record does not hold).

inline std::vector<LoggedEvent> ReplayEvents(const Game& game,
                                             const std::vector<v1::RecordLine>& lines) {
  std::vector<LoggedEvent> out;
  if (lines.empty() || !lines[0].has_header()) return out;
  const v1::RecordHeader& h = lines[0].header();
  std::unique_ptr<State> st = game.NewInitialState(h.seed());
  st->set_decision_cap(h.decision_cap());
  size_t next = 0;  // event number of the next event to copy
  auto copy = [&] {
    const size_t first = st->events_discarded();
    for (; next < st->events_end(); ++next) out.push_back(st->events()[next - first]);
    st->DiscardEventsBefore(next);
  };
  copy();
  for (const v1::RecordLine& l : lines) {
    if (!l.has_decision()) continue;
    std::vector<int> actions;
    for (const auto& a : l.decision().actions()) actions.push_back(a.action());
    st->Apply(actions);
    copy();
  }
  return out;
}

// ---------------------------------------------------------------------------
// The no-leak checker.

struct LeakStats {
  int64_t requests = 0;
  int64_t card_refs = 0;       // card values checked in views and actions
  int64_t private_events = 0;  // events some seat may not see in full
  int64_t redacted_events = 0;
  std::vector<std::string> problems;  // empty: no leak found
  void Problem(std::string p) {
    if (problems.size() < 5) problems.push_back(std::move(p));
  }
};

struct SentMessage {
  int seat;
  std::unique_ptr<google::protobuf::Message> message;
  size_t events_in_record;  // event lines the record held when it was sent
};

// Plays one match (in process) and keeps every message the seats were sent,
// with how many events the record held at that moment.
inline std::vector<SentMessage> PlayAndListen(const Game& game, const MatchSpec& spec,
                                              LocalSeatLink::Policy policy,
                                              testing::LocalMatch* match) {
  std::vector<SentMessage> sent;
  RecordWriter* writer = nullptr;
  size_t lines_seen = 0, events_seen = 0;
  auto tap = [&](int seat, const google::protobuf::Message& m) {
    const auto& lines = writer->lines();
    for (; lines_seen < lines.size(); ++lines_seen) {
      if (absl::StartsWith(lines[lines_seen], "{\"event\"")) ++events_seen;
    }
    std::unique_ptr<google::protobuf::Message> copy(m.New());
    copy->CopyFrom(m);
    sent.push_back({seat, std::move(copy), events_seen});
  };
  *match = testing::PlayLocal(game, spec, std::move(policy), tap, &writer);
  return sent;
}

// Checks what every seat was sent against what it may know:
// - the events of its requests are exactly, in order, the record's events as
//   that seat may see them (EventForSeat: the full event if public or its
//   seat is listed, the redacted version if any, else nothing), up to the
//   events the record held when the request was sent: nothing hidden from
//   it, nothing withheld, never the full version of a redacted event;
// - every card in its view and legal actions is a card it has been shown in
//   those events (knowledge is never taken back, so this is a lower bound);
// - a redacted version adds no card of its own to the full event;
// - MatchStart and MatchEnd are the same for every seat but for the seat.
// `reference` is the game whose events define what may be sent (normally
// the game played; another one to show that a difference is caught).
inline void CheckNoLeak(const Game& reference, int num_seats,
                        const std::vector<v1::RecordLine>& lines,
                        const std::vector<SentMessage>& sent, LeakStats* stats) {
  const std::vector<LoggedEvent> events = ReplayEvents(reference, lines);
  size_t recorded = 0;
  for (const auto& l : lines) recorded += l.has_event();
  if (recorded != events.size()) {
    stats->Problem(absl::StrCat("the record holds ", recorded, " events, the game logs ",
                                events.size()));
    return;
  }
  for (const LoggedEvent& e : events) {
    if (e.is_public) continue;
    ++stats->private_events;
    if (!e.has_redacted) continue;
    ++stats->redacted_events;
    std::vector<int> full, red;
    CardValues(e.event, &full, true);
    CardValues(e.redacted, &red);
    std::multiset<int> left(full.begin(), full.end());
    for (int c : red) {
      auto it = left.find(c);
      if (it == left.end()) {
        stats->Problem(absl::StrCat("a redacted event shows card ", c,
                                    " its full version does not: ",
                                    e.redacted.ShortDebugString()));
      } else {
        left.erase(it);
      }
    }
  }
  std::vector<size_t> next(num_seats, 0);
  std::vector<std::unordered_set<int>> known(num_seats);
  std::map<int, std::string> starts, ends;
  for (const SentMessage& m : sent) {
    const int s = m.seat;
    const std::string where = absl::StrCat("seat ", s, " ", m.message->GetDescriptor()->name());
    if (const auto* start = dynamic_cast<const v1::MatchStart*>(m.message.get())) {
      v1::MatchStart c = *start;
      c.clear_seat();
      starts[s] = c.SerializeAsString();
      continue;
    }
    if (const auto* end = dynamic_cast<const v1::MatchEnd*>(m.message.get())) {
      v1::MatchEnd c = *end;
      c.clear_seat();
      ends[s] = c.SerializeAsString();
      continue;
    }
    const auto* req = dynamic_cast<const v1::DecisionRequest*>(m.message.get());
    if (req == nullptr) continue;
    ++stats->requests;
    const std::string at = absl::StrCat(where, " step ", req->step());
    std::vector<const v1::Event*> expected;
    for (size_t i = next[s]; i < m.events_in_record && i < events.size(); ++i) {
      if (const v1::Event* ev = EventForSeat(events[i], s)) expected.push_back(ev);
    }
    next[s] = std::max(next[s], m.events_in_record);
    const auto& got = req->view().events();
    for (int i = 0; i < std::max<int>(got.size(), expected.size()); ++i) {
      if (i >= got.size()) {
        stats->Problem(absl::StrCat(at, ": event withheld: ", expected[i]->ShortDebugString()));
        break;
      }
      if (i >= static_cast<int>(expected.size()) ||
          got[i].SerializeAsString() != expected[i]->SerializeAsString()) {
        stats->Problem(absl::StrCat(at, ": sent event ", got[i].ShortDebugString(),
                                    ", but the seat may see ",
                                    i < static_cast<int>(expected.size())
                                        ? expected[i]->ShortDebugString()
                                        : std::string("nothing more")));
        break;
      }
    }
    for (const v1::Event* ev : expected) {
      std::vector<int> cards;
      CardValues(*ev, &cards, /*with_zero=*/true);
      known[s].insert(cards.begin(), cards.end());
    }
    v1::DecisionRequest rest = *req;
    rest.mutable_view()->clear_events();
    std::vector<int> cards;
    CardValues(rest, &cards);
    stats->card_refs += cards.size();
    for (int c : cards) {
      if (!known[s].count(c)) {
        stats->Problem(absl::StrCat(at, ": card ", c, " was never shown to this seat; ",
                                    rest.ShortDebugString().substr(0, 600)));
        break;
      }
    }
  }
  for (auto* by_seat : {&starts, &ends}) {
    for (const auto& [seat, bytes] : *by_seat) {
      if (bytes != by_seat->begin()->second) {
        stats->Problem(absl::StrCat("seat ", seat, "'s ",
                                    by_seat == &starts ? "MatchStart" : "MatchEnd",
                                    " differs from seat ", by_seat->begin()->first,
                                    "'s in more than the seat"));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Planted faults: a game that wraps a real one and leaks.

enum class Plant {
  kNone,
  kPeek,                // FillView also gives the next seat's view
  kForgetRedaction,     // redacted events carry the full event
};

class PlantedState : public State {
 public:
  PlantedState(std::unique_ptr<State> inner, int seats, Plant plant)
      : inner_(std::move(inner)), seats_(seats), plant_(plant) {
    Sync();
  }
  bool IsTerminal() const override { return inner_->IsTerminal(); }
  const std::vector<int>& ActingSeats() const override { return inner_->ActingSeats(); }
  int NumLegalActions(int seat) const override { return inner_->NumLegalActions(seat); }
  void FillLegalActions(int seat,
                        google::protobuf::RepeatedPtrField<v1::Action>* out) const override {
    inner_->FillLegalActions(seat, out);
  }
  std::string ActionLabel(int seat, int action) const override {
    return inner_->ActionLabel(seat, action);
  }
  void FillView(int seat, v1::View* view) const override {
    inner_->FillView(seat, view);
    if (plant_ == Plant::kPeek) {
      v1::View other;
      inner_->FillView((seat + 1) % seats_, &other);
      view->MergeFrom(other);
    }
  }
  void Apply(absl::Span<const int> actions) override {
    inner_->set_decision_cap(decision_cap());
    inner_->Apply(actions);
    Sync();
  }
  v1::MatchResult Result() const override { return inner_->Result(); }
  void FillRules(v1::Rules* rules) const override { inner_->FillRules(rules); }
  std::string DescribeEvent(const v1::Event& e) const override {
    return inner_->DescribeEvent(e);
  }

 private:
  void Sync() {
    step_ = inner_->step();
    const size_t first = inner_->events_discarded();
    for (; copied_ < inner_->events_end(); ++copied_) {
      const LoggedEvent& src = inner_->events()[copied_ - first];
      LoggedEvent& e = Log(src.is_public, src.seats_mask);
      e = src;
      if (plant_ == Plant::kForgetRedaction && e.has_redacted) e.redacted = e.event;
    }
    inner_->DiscardEventsBefore(copied_);
  }
  std::unique_ptr<State> inner_;
  int seats_;
  Plant plant_;
  size_t copied_ = 0;
};

class PlantedGame : public Game {
 public:
  PlantedGame(std::unique_ptr<Game> inner, Plant plant)
      : inner_(std::move(inner)), plant_(plant) {}
  const GameInfo& info() const override { return inner_->info(); }
  int num_seats() const override { return inner_->num_seats(); }
  std::unique_ptr<State> NewInitialState(uint64_t seed) const override {
    return std::make_unique<PlantedState>(inner_->NewInitialState(seed), num_seats(),
                                          plant_);
  }

 private:
  std::unique_ptr<Game> inner_;
  Plant plant_;
};

}  // namespace arena::conformance

#endif  // ARENA_TESTS_CONFORMANCE_UTIL_H_
