#include "arena/records/seat_transcript.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/games/registry.h"
#include "referee/match/match_runner.h"
#include "referee/records/record.h"

namespace arena {
namespace {

// Long enough that no deadline fires while a step's requests are sent.
constexpr int64_t kRerunDecisionMs = 24LL * 3600 * 1000;

// The bot's detail of a recorded fault: the record holds "<fault name>" or
// "<fault name>: <detail>" (match_runner.cc), the link hands the runner the
// detail alone.
std::string BotDetail(v1::FaultKind fault, const std::string& recorded) {
  const std::string name = FaultName(fault);
  if (recorded == name) return "";
  const std::string prefix = absl::StrCat(name, ": ");
  if (absl::StartsWith(recorded, prefix)) return recorded.substr(prefix.size());
  return recorded;  // the re-run will differ, and say where
}

std::string Clipped(const google::protobuf::Message& m) {
  std::string s = m.ShortDebugString();
  if (s.size() > 300) s = absl::StrCat(s.substr(0, 300), "...");
  return s;
}

// A link whose seats answer as the record says, keeping what each is sent.
class RecordedLink : public SeatLink {
 public:
  RecordedLink(int seats, std::map<uint64_t, v1::SeatAction> answers,
               const v1::Forfeit* forfeit)
      : answers_(std::move(answers)), forfeit_(forfeit), out_(seats) {
    for (int s = 0; s < seats; ++s) out_[s].seat = s;
  }

  void Start(int seat, const v1::MatchStart& start) override {
    out_[seat].start = start;
  }

  void Send(int seat, OutMessage message, int) override {
    SeatRequest sr;
    sr.request = message->decision_request();
    const uint64_t id = sr.request.decision_id();
    sr.answer.set_seat(seat);
    sr.answer.set_decision_id(id);
    SeatReply reply;
    auto it = answers_.find(id);
    if (it != answers_.end() && it->second.seat() == seat) {
      const v1::SeatAction& a = it->second;
      sr.answer = a;
      reply.think_us = a.think_us();
      if (a.source() == v1::SeatAction::SOURCE_REFEREE_FAULT) {
        reply.fault = a.fault();
        reply.detail = BotDetail(a.fault(), a.fault_detail());
      } else {
        // SOURCE_BOT; any other source differs in the re-run's record.
        reply.ok = true;
        reply.action = a.action();
        reply.note = a.note();  // as recorded: the re-run's record is the same
        reply.note_cut_bytes = a.note_cut_bytes();
      }
    } else if (forfeit_ != nullptr && forfeit_->seat() == seat &&
               forfeit_->step() == sr.request.step()) {
      sr.answer.set_action(-1);
      sr.answer.set_source(v1::SeatAction::SOURCE_REFEREE_FAULT);
      sr.answer.set_fault(forfeit_->fault());
      sr.answer.set_fault_detail(forfeit_->detail());
      reply.fault = forfeit_->fault();
      reply.detail = BotDetail(forfeit_->fault(), forfeit_->detail());
    } else {
      // Not in the record: another seat forfeited this step, which was
      // never taken. Any legal answer leads to the same record.
      reply.ok = true;
      reply.action = 0;
    }
    out_[seat].requests.push_back(std::move(sr));
    Deliver(seat, id, std::move(reply));
  }

  void End(int seat, const v1::MatchEnd& end) override { out_[seat].end = end; }

  std::vector<SeatTranscript> Take() { return std::move(out_); }

 private:
  const std::map<uint64_t, v1::SeatAction> answers_;
  const v1::Forfeit* const forfeit_;
  std::vector<SeatTranscript> out_;
};

}  // namespace

std::vector<v1::RefereeMessage> SeatTranscript::Messages() const {
  std::vector<v1::RefereeMessage> out;
  out.reserve(requests.size() + 2);
  out.emplace_back();
  *out.back().mutable_match_start() = start;
  for (const SeatRequest& r : requests) {
    out.emplace_back();
    *out.back().mutable_decision_request() = r.request;
  }
  out.emplace_back();
  *out.back().mutable_match_end() = end;
  return out;
}

absl::StatusOr<std::vector<SeatTranscript>> SeatTranscripts(
    const std::vector<v1::RecordLine>& lines, const std::string& source) {
  if (lines.empty() || !lines.front().has_header()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the first line is not a record header"));
  }
  if (!lines.back().has_result()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": the record has no result line (an unfinished match?)"));
  }
  const v1::RecordHeader& h = lines.front().header();
  if (h.format_version() != kRecordFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": record format ", h.format_version(),
                     " is not supported (", kRecordFormatVersion, " is)"));
  }
  const v1::MatchResult& result = lines.back().result();
  MatchSpec spec;
  spec.match_id = h.match_id();
  spec.game_name = h.game();
  spec.options = Options(h.options().begin(), h.options().end());
  spec.seat_bots.assign(h.seat_bots().begin(), h.seat_bots().end());
  spec.seed = h.seed();
  spec.time_control.set_decision_ms(kRerunDecisionMs);
  spec.fault_policy = h.fault_policy();
  spec.auto_moves = h.auto_moves();
  spec.decision_cap = h.decision_cap();
  spec.seed_commitment = h.seed_commitment();
  spec.seed_salt = result.reveal().salt();
  spec.tournament_id = h.tournament_id();
  spec.predictable_seed = h.predictable_seed();
  spec.deal_group = h.deal_group();
  spec.log_faults = false;  // they were logged when they happened
  auto game = CreateGame(h.game(), spec.options, h.num_seats());
  if (!game.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", game.status().message()));
  }
  if (h.seat_bots_size() != (*game)->num_seats()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": the header names ", h.seat_bots_size(), " bots for ",
        (*game)->num_seats(), " seats"));
  }

  std::map<uint64_t, v1::SeatAction> answers;
  const v1::Forfeit* forfeit = nullptr;
  for (const v1::RecordLine& l : lines) {
    if (l.has_forfeit()) forfeit = &l.forfeit();
    if (!l.has_decision()) continue;
    for (const v1::SeatAction& a : l.decision().actions()) {
      if (a.decision_id() != 0) answers[a.decision_id()] = a;
    }
  }
  RecordedLink link((*game)->num_seats(), std::move(answers), forfeit);
  auto writer = RecordWriter::Open("", h.match_id());
  if (!writer.ok()) return writer.status();
  RunMatch(**game, spec, link, **writer);
  auto rerun = ParseRecordLines((*writer)->lines(), "the re-run");
  if (!rerun.ok()) return rerun.status();

  // The re-run's header differs in what is the clock's, the build's or the
  // long decision time's; its result, in the digest of that header.
  v1::RecordHeader* rh = (*rerun)[0].mutable_header();
  rh->set_started_at(h.started_at());
  rh->set_software_version(h.software_version());
  *rh->mutable_time_control() = h.time_control();
  rh->set_default_time_control(h.default_time_control());
  if (rerun->back().has_result()) {
    rerun->back().mutable_result()->set_header_digest(result.header_digest());
  }
  int64_t step = 0;
  for (size_t i = 0; i < lines.size() || i < rerun->size(); ++i) {
    if (i < lines.size() && lines[i].has_decision()) step = lines[i].decision().step();
    if (i < lines.size() && lines[i].has_forfeit()) step = lines[i].forfeit().step();
    if (i >= lines.size() || i >= rerun->size() ||
        !google::protobuf::util::MessageDifferencer::Equals(lines[i], (*rerun)[i])) {
      return absl::DataLossError(absl::StrCat(
          source, ": playing the record again differs at line ", i + 1, " (step ",
          step, "): recorded {", i < lines.size() ? Clipped(lines[i]) : "no line",
          "}, re-run {", i < rerun->size() ? Clipped((*rerun)[i]) : "no line", "}"));
    }
  }

  std::vector<SeatTranscript> out = link.Take();
  for (SeatTranscript& t : out) {
    t.start.mutable_time_control()->set_decision_ms(h.time_control().decision_ms());
    for (SeatRequest& r : t.requests) {
      r.request.set_deadline_ms(h.time_control().decision_ms());
    }
    // What the seats were sent: the record's result (the re-run's differs
    // only in the header digest, restored above).
    *t.end.mutable_result() = result;
  }
  return out;
}

}  // namespace arena
