#include "arena/views/replay.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "arena/records/record_tools.h"
#include "arena/views/replay_json.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "referee/game_api/game.h"
#include "referee/games/registry.h"
#include "google/protobuf/util/message_differencer.h"

namespace arena {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// "QUODLIBET_CONTRACT_NO_REDS" -> "no reds": the value name without the
// prefix its enum's _UNSPECIFIED value shows, in lower case words.
std::string Words(const std::string& field_name) {
  return absl::StrReplaceAll(field_name, {{"_", " "}});
}

bool IsCardField(const FieldDescriptor* f) {
  if (f->cpp_type() != FieldDescriptor::CPPTYPE_INT32) return false;
  const auto& names = CardFieldNames();
  return std::find(names.begin(), names.end(), f->name()) != names.end();
}

std::string CardWords(int id, const std::vector<v1::ReplayCard>& cards) {
  if (id < 0) return "none";
  if (id < static_cast<int>(cards.size())) return cards[id].name();
  return absl::StrCat("card #", id);
}

std::string ScalarWords(const Message& m, const FieldDescriptor* f, int index,
                        const std::vector<v1::ReplayCard>& cards) {
  const Reflection* r = m.GetReflection();
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const int v = rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
      return IsCardField(f) ? CardWords(v, cards) : absl::StrCat(v);
    }
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return absl::StrCat(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return absl::StrCat(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "yes" : "no";
    case FieldDescriptor::CPPTYPE_STRING:
      return absl::StrCat("\"", rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f),
                          "\"");
    case FieldDescriptor::CPPTYPE_ENUM:
      return EnumWords(rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f));
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return absl::StrCat(
          "{", DescribeMessage(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f),
                               cards),
          "}");
  }
  return "";
}

// `m`, or for a google.protobuf.Any (a game outside the bundled ones) the
// message it packs, made in `*holder`, when its type is linked in; else `m`.
const Message* Unpacked(const Message& m, std::unique_ptr<Message>* holder) {
  if (m.GetDescriptor()->full_name() != "google.protobuf.Any") return &m;
  google::protobuf::Any any;
  any.CopyFrom(m);
  const std::string type = any.type_url().substr(any.type_url().rfind('/') + 1);
  const Descriptor* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(type);
  if (d == nullptr) return &m;
  const Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(d);
  if (prototype == nullptr) return &m;
  holder->reset(prototype->New());
  if (!any.UnpackTo(holder->get())) return &m;
  return holder->get();
}

// The event's game message and, inside it, the kind that is set (unpacked
// from an Any into `*holder`).
const Message* SetOneofMessage(const Message& m, const FieldDescriptor** field,
                               std::unique_ptr<Message>* holder) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  for (int i = 0; i < d->oneof_decl_count(); ++i) {
    const FieldDescriptor* f = r->GetOneofFieldDescriptor(m, d->oneof_decl(i));
    if (f != nullptr && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      *field = f;
      return Unpacked(r->GetMessage(m, f), holder);
    }
  }
  return nullptr;
}

// "played: seat 2, card Hearts King, slot -1, forced no" for events whose
// game gives no words of its own.
std::string GenericEventWords(const v1::Event& e,
                              const std::vector<v1::ReplayCard>& cards) {
  const FieldDescriptor* game_field = nullptr;
  std::unique_ptr<Message> game_holder, kind_holder;
  const Message* game = SetOneofMessage(e, &game_field, &game_holder);
  if (game == nullptr) return "(empty event)";
  const FieldDescriptor* kind_field = nullptr;
  const Message* kind = SetOneofMessage(*game, &kind_field, &kind_holder);
  if (kind == nullptr) return DescribeMessage(*game, cards);
  // "seat 3 played: card Acorns 8, ..." when the event is about one seat.
  const FieldDescriptor* seat = kind->GetDescriptor()->FindFieldByName("seat");
  if (seat != nullptr && seat->cpp_type() == FieldDescriptor::CPPTYPE_INT32 &&
      !seat->is_repeated()) {
    std::string rest = DescribeMessage(*kind, cards);
    const std::string seat_words = absl::StrCat("seat ", kind->GetReflection()->GetInt32(*kind, seat));
    if (absl::StartsWith(rest, seat_words)) {
      rest = rest.substr(seat_words.size());
      if (absl::StartsWith(rest, ", ")) rest = rest.substr(2);
    }
    return absl::StrCat(seat_words, " ", Words(kind_field->name()),
                        rest.empty() ? "" : ": ", rest);
  }
  return absl::StrCat(Words(kind_field->name()), ": ", DescribeMessage(*kind, cards));
}

std::string EventWords(const State* state, const v1::Event& e,
                       const std::vector<v1::ReplayCard>& cards) {
  std::string text = state != nullptr ? state->DescribeEvent(e) : "";
  return text.empty() ? GenericEventWords(e, cards) : text;
}


}  // namespace

const std::vector<std::string>& CardFieldNames() {
  static const auto* names = new std::vector<std::string>{
      "card",     "cards",       "hand",      "deck",         "top_card",
      "low_card", "high_card",   "snatcher",  "snatch_card",  "packet_cards",
      "played_cards"};
  return *names;
}

std::vector<v1::ReplayCard> CardCatalogue(const State& state) {
  std::vector<v1::ReplayCard> out = state.CardCatalogue();
  // Ids index the catalogue; keep it so even if a game listed them unordered.
  std::sort(out.begin(), out.end(),
            [](const v1::ReplayCard& a, const v1::ReplayCard& b) { return a.id() < b.id(); });
  return out;
}

std::string DescribeMessage(const Message& m, const std::vector<v1::ReplayCard>& cards) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  std::vector<std::string> parts;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    // A oneof member, or an explicitly optional field, that is not set was
    // not said; every other field is shown, defaults included.
    if (f->containing_oneof() != nullptr || f->has_presence()) {
      if (!f->is_repeated() && !r->HasField(m, f)) continue;
    }
    if (f->is_repeated()) {
      std::vector<std::string> items;
      for (int k = 0; k < r->FieldSize(m, f); ++k) {
        items.push_back(ScalarWords(m, f, k, cards));
      }
      parts.push_back(absl::StrCat(Words(f->name()), " [", absl::StrJoin(items, ", "), "]"));
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
               f->containing_oneof() != nullptr) {
      // A oneof's message speaks for itself: "played: {...}".
      parts.push_back(absl::StrCat(Words(f->name()), ": ", ScalarWords(m, f, 0, cards)));
    } else {
      parts.push_back(absl::StrCat(Words(f->name()), " ", ScalarWords(m, f, 0, cards)));
    }
  }
  return absl::StrJoin(parts, ", ");
}

std::string EventText(const State* state, const v1::Event& event,
                      const std::vector<v1::ReplayCard>& cards) {
  return EventWords(state, event, cards);
}

std::string DescribeGamePart(const Message& message,
                             const std::vector<v1::ReplayCard>& cards) {
  const FieldDescriptor* field = nullptr;
  std::unique_ptr<Message> holder;
  const Message* game = SetOneofMessage(message, &field, &holder);
  return game != nullptr ? DescribeMessage(*game, cards) : "";
}

std::unique_ptr<State> ReferenceState(const v1::MatchStart& start) {
  const Options options(start.options().begin(), start.options().end());
  auto game = CreateGame(start.game(), options, start.num_seats());
  if (!game.ok()) return nullptr;
  std::unique_ptr<State> state = (*game)->NewInitialState(0);
  v1::Rules rules;
  state->FillRules(&rules);
  if (!google::protobuf::util::MessageDifferencer::Equals(rules, start.rules())) return nullptr;
  return state;
}

std::string LegalActionText(const State* reference, const v1::DecisionRequest& request,
                            int index, const std::vector<v1::ReplayCard>& cards) {
  const v1::Action& action = request.legal_actions(index);
  if (reference != nullptr) {
    std::string label = reference->ActionLabelFromRequest(request.seat(), request.view(), action);
    if (!label.empty()) return label;
  }
  return DescribeGamePart(action, cards);
}

std::string RequestText(const v1::MatchStart& start, const v1::DecisionRequest& request) {
  const std::unique_ptr<State> reference = ReferenceState(start);
  const std::vector<v1::ReplayCard> cards =
      reference != nullptr ? CardCatalogue(*reference) : std::vector<v1::ReplayCard>();
  std::vector<std::string> legal;
  for (int i = 0; i < request.legal_actions_size(); ++i) {
    legal.push_back(LegalActionText(reference.get(), request, i, cards));
  }
  return absl::StrCat("step ", request.step(), ", decision ", request.decision_id(), ", ",
                      legal.size(), " legal: ", absl::StrJoin(legal, " | "));
}

absl::Status StreamReplay(const std::vector<v1::RecordLine>& lines, const ReplayOptions& o,
                          ReplaySink& sink) {
  if (o.step < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--step ", o.step, ": a step is 0 or more (-1: the whole match)"));
  }
  if (o.seat < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seat ", o.seat, ": a seat is 0 or more (-1: every seat)"));
  }
  if (!lines.empty() && lines[0].has_header() && o.seat >= lines[0].header().num_seats()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seat ", o.seat, ": the match has seats 0 to ",
                     lines[0].header().num_seats() - 1));
  }
  if (o.spectator && o.seat != -1) {
    return absl::InvalidArgumentError("a spectator's replay is not a seat's");
  }
  // The sink's first error; nothing more is handed over after it.
  absl::Status sink_status;
  v1::Replay tail;  // forfeit, result, finished
  const State* live = nullptr;
  int num_seats = 0;
  std::vector<v1::ReplayCard> cards;
  v1::ReplayStep current;
  auto emit = [&] {
    if (sink_status.ok()) sink_status = sink.Step(current);
    current.Clear();
  };
  auto fill_views = [&](const State& s, v1::ReplayStep* step) {
    if (o.spectator) return;
    for (int seat = 0; seat < num_seats; ++seat) {
      if (o.seat >= 0 && seat != o.seat) continue;
      s.FillView(seat, step->add_views());
    }
  };
  ResimVisitor v;
  v.on_start = [&](const v1::RecordHeader& h, const State& s) {
    live = &s;
    num_seats = h.num_seats();
    v1::Replay head;
    head.set_seat(o.spectator ? kSpectatorSeat : o.seat);
    *head.mutable_header() = h;
    if (o.spectator) head.mutable_header()->clear_seed();
    cards = CardCatalogue(s);
    for (const auto& c : cards) *head.add_cards() = c;
    for (const auto& f : CardFieldNames()) head.add_card_fields(f);
    current.set_step(0);
    sink_status = sink.Begin(head);
  };
  v.on_event = [&](const LoggedEvent& e) {
    if (!sink_status.ok()) return;
    v1::ReplayEvent& re = *current.add_events();
    re.mutable_visibility()->set_is_public(e.is_public);
    for (int s = 0; s < num_seats; ++s) {
      if (!e.is_public && ((e.seats_mask >> s) & 1)) re.mutable_visibility()->add_seats(s);
    }
    if (o.spectator) {
      const v1::Event* seen = e.is_public ? &e.event : e.has_redacted ? &e.redacted : nullptr;
      if (seen == nullptr) {  // only some seats were told
        current.mutable_events()->RemoveLast();
        return;
      }
      re.set_text(EventWords(live, *seen, cards));
      *re.mutable_event() = *seen;
    } else if (o.seat >= 0) {
      const v1::Event* seen = EventForSeat(e, o.seat);
      if (seen == nullptr) {  // the seat was told nothing
        current.mutable_events()->RemoveLast();
        return;
      }
      re.set_text(EventWords(live, *seen, cards));
      *re.mutable_event() = *seen;
      v1::SeatEvent* se = re.add_seats();
      se->set_sees(true);
      se->set_redacted(seen != &e.event);
      if (se->redacted()) {
        se->set_text(re.text());
        *se->mutable_event() = *seen;
      }
    } else {
      re.set_text(EventWords(live, e.event, cards));
      *re.mutable_event() = e.event;
      const v1::Event* worded = nullptr;  // the redacted version in words, once
      std::string words;
      for (int s = 0; s < num_seats; ++s) {
        v1::SeatEvent* se = re.add_seats();
        const v1::Event* seen = EventForSeat(e, s);
        if (seen == nullptr) continue;
        se->set_sees(true);
        se->set_redacted(seen != &e.event);
        if (se->redacted()) {
          if (seen != worded) {
            words = EventWords(live, *seen, cards);
            worded = seen;
          }
          se->set_text(words);
          *se->mutable_event() = *seen;
        }
      }
    }
  };
  v.on_decision = [&](const v1::DecisionStep& d, const State& s) {
    if (!sink_status.ok()) return;
    current.set_step(d.step());
    fill_views(s, &current);
    for (const auto& a : d.actions()) {
      if (o.seat >= 0 && a.seat() != o.seat) continue;
      v1::ReplayAction* ra = current.add_actions();
      ra->set_seat(a.seat());
      if (o.spectator) {
        ra->set_source(a.source());
        ra->set_think_us(a.think_us());
        continue;
      }
      ra->set_action(a.action());
      ra->set_label(a.label());
      ra->set_source(a.source());
      ra->set_think_us(a.think_us());
      ra->set_fault_detail(a.fault_detail());
      if (o.notes) {
        ra->set_note(a.note());
        ra->set_note_cut_bytes(a.note_cut_bytes());
      }
      for (int i = 0; i < s.NumLegalActions(a.seat()); ++i) {
        ra->add_legal(s.ActionLabel(a.seat(), i));
      }
    }
    emit();
    current.set_step(d.step() + 1);
  };
  v.on_forfeit = [&](const v1::Forfeit& f) {
    *tail.mutable_forfeit() = f;
    if (o.spectator) tail.mutable_forfeit()->clear_detail();
  };
  v.on_result = [&](const v1::MatchResult& r, const State& s) {
    *tail.mutable_result() = r;
    if (!sink_status.ok()) return;
    current.set_step(static_cast<int32_t>(s.step()));
    fill_views(s, &current);
    emit();
    tail.set_finished(true);
  };
  absl::Status s = Resimulate(lines, o.source, v, o.step);
  if (!s.ok()) return s;
  if (!sink_status.ok()) return sink_status;
  if (!tail.finished() && (current.events_size() > 0)) {
    // Stopped early: the events after the last decision shown.
    emit();
    if (!sink_status.ok()) return sink_status;
  }
  return sink.End(tail);
}

namespace {

// Gathers every part into one Replay (BuildReplay).
// Every step, or (`last` >= 0) the last `last` of them.
class WholeReplaySink : public ReplaySink {
 public:
  WholeReplaySink(v1::Replay* out, int64_t last) : out_(out), last_(last) {}
  absl::Status Begin(const v1::Replay& head) override {
    *out_ = head;
    return absl::OkStatus();
  }
  absl::Status Step(v1::ReplayStep& step) override {
    out_->add_steps()->Swap(&step);
    // Dropped in halves, not one a step: each step is moved once at most.
    if (last_ >= 0 && out_->steps_size() >= 2 * last_ + 1) DropEarly();
    return absl::OkStatus();
  }
  absl::Status End(const v1::Replay& tail) override {
    if (last_ >= 0) DropEarly();
    if (tail.has_forfeit()) *out_->mutable_forfeit() = tail.forfeit();
    if (tail.has_result()) *out_->mutable_result() = tail.result();
    out_->set_finished(tail.finished());
    return absl::OkStatus();
  }

 private:
  void DropEarly() {
    const int extra = out_->steps_size() - static_cast<int>(last_);
    if (extra > 0) out_->mutable_steps()->DeleteSubrange(0, extra);
  }
  v1::Replay* out_;
  int64_t last_;
};

// A Replay's parts without its steps: the head (header, seat, cards,
// card_fields) and the tail (forfeit, result, finished).
v1::Replay HeadOf(const v1::Replay& r) {
  v1::Replay head;
  *head.mutable_header() = r.header();
  head.set_seat(r.seat());
  *head.mutable_cards() = r.cards();
  *head.mutable_card_fields() = r.card_fields();
  return head;
}
v1::Replay TailOf(const v1::Replay& r) {
  v1::Replay tail;
  if (r.has_forfeit()) *tail.mutable_forfeit() = r.forfeit();
  if (r.has_result()) *tail.mutable_result() = r.result();
  tail.set_finished(r.finished());
  return tail;
}

google::protobuf::util::JsonPrintOptions ReplayJsonOptions() {
  google::protobuf::util::JsonPrintOptions po;
  po.always_print_primitive_fields = true;
  po.preserve_proto_field_names = true;
  return po;
}

// In a Replay's JSON (every field printed): the empty steps array's key. An
// unescaped quote occurs in no string's JSON, so this is the key itself.
constexpr char kStepsKey[] = "\"steps\":[]";

}  // namespace

absl::StatusOr<v1::Replay> BuildReplay(const std::vector<v1::RecordLine>& lines,
                                       const ReplayOptions& o) {
  v1::Replay replay;
  WholeReplaySink sink(&replay, o.last_steps);
  if (absl::Status s = StreamReplay(lines, o, sink); !s.ok()) return s;
  return replay;
}

absl::Status ReplayTextSink::Begin(const v1::Replay& head) {
  head_ = head;
  cards_.assign(head_.cards().begin(), head_.cards().end());
  const v1::RecordHeader& h = head_.header();
  out_ << "match " << h.match_id() << ": " << h.game() << ", " << h.num_seats()
       << " seats, seed " << h.seed() << "\n";
  for (const auto& [k, val] : h.options()) out_ << "  option " << k << "=" << val << "\n";
  for (int i = 0; i < h.num_seats(); ++i) {
    out_ << "  seat " << i << ": "
         << (i < h.seat_bots_size() ? h.seat_bots(i) : std::string("?")) << "\n";
  }
  if (head_.seat() >= 0) out_ << "(showing only what seat " << head_.seat() << " saw)\n";
  return absl::OkStatus();
}

absl::Status ReplayTextSink::Step(v1::ReplayStep& step) {
  if (have_pending_) Print(pending_, /*last=*/false, /*finished=*/false);
  pending_.Swap(&step);
  have_pending_ = true;
  return out_.good() ? absl::OkStatus() : absl::UnavailableError("cannot write the replay");
}

void ReplayTextSink::Print(const v1::ReplayStep& step, bool last, bool finished) {
  const v1::RecordHeader& h = head_.header();
  const int seat = head_.seat();
  auto bot = [&](int s) {
    return s >= 0 && s < h.seat_bots_size() ? h.seat_bots(s) : std::string("?");
  };
  if (step.actions_size() > 0 || (seat >= 0 && step.views_size() > 0)) last_shown_ = step.step();
  for (const auto& e : step.events()) {
    std::string who;
    if (e.visibility().is_public()) {
      who = "public";
    } else if (seat >= 0) {
      who = e.seats_size() > 0 && e.seats(0).redacted() ? "redacted for you" : "yours";
    } else if (e.visibility().seats_size() == 0) {
      who = "record only";
    } else {
      who = absl::StrCat("seen by seat ", absl::StrJoin(e.visibility().seats(), ","));
    }
    out_ << "    event [" << who << "] " << e.text() << "\n";
  }
  if (step.actions_size() == 0 && !(last && finished && seat >= 0)) return;
  if (step.actions_size() > 0) out_ << "step " << step.step() << ":\n";
  if (seat >= 0 && step.views_size() > 0) {
    // The view's game part (its events were printed above).
    out_ << (step.actions_size() > 0 ? "  view of seat " : "  at the end, seat ") << seat
         << ": " << DescribeGamePart(step.views(0), cards_) << "\n";
  }
  for (const auto& a : step.actions()) {
    if (seat >= 0) {
      out_ << "  legal:";
      for (int i = 0; i < a.legal_size(); ++i) out_ << " [" << i << "] " << a.legal(i) << ";";
      out_ << "\n";
    }
    const char* how = a.source() == v1::SeatAction::SOURCE_BOT ? "bot"
                      : a.source() == v1::SeatAction::SOURCE_REFEREE_ONLY_MOVE
                          ? "referee: only legal move"
                          : "referee: random move after a fault";
    out_ << "  seat " << a.seat() << " (" << bot(a.seat()) << "): " << a.label() << "  ["
         << how;
    if (a.source() == v1::SeatAction::SOURCE_BOT) out_ << ", " << a.think_us() << " us";
    if (!a.fault_detail().empty()) out_ << ", " << a.fault_detail();
    out_ << "]\n";
    // (Verified: no control character, at most 256 bytes.)
    if (!a.note().empty() || a.note_cut_bytes() > 0) {
      out_ << "    note: " << a.note();
      if (a.note_cut_bytes() > 0) out_ << " [" << a.note_cut_bytes() << " more bytes cut]";
      out_ << "\n";
    }
  }
}

absl::Status ReplayTextSink::End(const v1::Replay& r) {
  if (have_pending_) Print(pending_, /*last=*/true, r.finished());
  have_pending_ = false;
  pending_.Clear();
  const v1::RecordHeader& h = head_.header();
  auto bot = [&](int seat) {
    return seat >= 0 && seat < h.seat_bots_size() ? h.seat_bots(seat) : std::string("?");
  };
  if (r.has_forfeit()) {
    const v1::Forfeit& f = r.forfeit();
    out_ << "FORFEIT at step " << f.step() << ": seat " << f.seat() << " (" << bot(f.seat())
         << "): " << f.detail() << "\n";
  }
  if (r.has_result()) {
    const v1::MatchResult& res = r.result();
    out_ << "result: " << res.detail() << "\n";
    for (int s = 0; s < res.scores_size(); ++s) {
      out_ << "  seat " << s << " (" << bot(s) << "): score " << res.scores(s)
           << ", placement " << (s < res.placements_size() ? res.placements(s) : 0) << "\n";
      for (const auto& line : res.score_lines()) {
        if (line.seat() == s) out_ << "      " << line.points() << "  " << line.item() << "\n";
      }
    }
  }
  if (!r.finished()) {
    out_ << "(stopped after step " << last_shown_ << ", before the end of the match)\n";
  }
  out_.flush();
  return out_.good() ? absl::OkStatus() : absl::UnavailableError("cannot write the replay");
}

void PrintReplayText(const v1::Replay& r, std::ostream& out) {
  ReplayTextSink sink(out);
  (void)sink.Begin(HeadOf(r));
  for (const auto& step : r.steps()) {
    v1::ReplayStep copy = step;
    (void)sink.Step(copy);
  }
  (void)sink.End(TailOf(r));
}

std::string ReplayToJson(const v1::Replay& replay) {
  std::string out;
  // Printing a message we built cannot fail.
  (void)google::protobuf::util::MessageToJsonString(replay, &out, ReplayJsonOptions());
  return out;
}

absl::Status ReplayJsonSink::Begin(const v1::Replay& head) {
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(head, &json, ReplayJsonOptions());
  const size_t at = json.find(kStepsKey);
  if (at == std::string::npos) return absl::InternalError("a replay's JSON without its steps");
  buffer_.append(json, 0, at + sizeof(kStepsKey) - 2);  // up to and with "steps":[
  return absl::OkStatus();
}

absl::Status ReplayJsonSink::Step(v1::ReplayStep& step) {
  if (!first_step_) buffer_ += ',';
  first_step_ = false;
  AppendReplayJson(step, &buffer_);
  if (buffer_.size() >= 64 * 1024) {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }
  return out_.good() ? absl::OkStatus() : absl::UnavailableError("cannot write the replay");
}

absl::Status ReplayJsonSink::End(const v1::Replay& tail) {
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(tail, &json, ReplayJsonOptions());
  const size_t at = json.find(kStepsKey);
  if (at == std::string::npos) return absl::InternalError("a replay's JSON without its steps");
  buffer_ += ']';
  buffer_.append(json, at + sizeof(kStepsKey) - 1, std::string::npos);
  buffer_ += '\n';
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
  out_.flush();
  return out_.good() ? absl::OkStatus() : absl::UnavailableError("cannot write the replay");
}

}  // namespace arena
